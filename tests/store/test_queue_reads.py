"""Store additions for the inspector: text filter, sorted keyset paging, chosen supersession,
and the audit change feed."""

from __future__ import annotations

from dataclasses import replace

from memvet.store import Edits, QueueFilter

from .conftest import draft


def _seed(store, clock, statements):
    ids = []
    for i, text in enumerate(statements):
        clock.advance(seconds=1)
        ids.append(store.admit(replace(draft(text), confidence=0.1 * (i % 5 + 1))).candidate_id)
    return ids


def test_text_filter_matches_the_decrypted_statement_case_insensitively(store, clock):
    _seed(store, clock, ["we use uv here", "Deploy with UV run", "tabs not spaces"])
    reader = store.reader_for(None, all_scopes=True)
    found = store.list_candidates(reader, QueueFilter(text="uv"))
    assert [c.statement for c in found] == ["we use uv here", "Deploy with UV run"]
    assert store.count_candidates(reader, QueueFilter(text="UV")) == 2
    assert (
        store.list_candidates(reader, QueueFilter(text="uv"), limit=1)[0].statement
        == "we use uv here"
    )
    assert store.count_candidates(reader, QueueFilter(text="nothing like it")) == 0


def test_text_filter_pages_by_keyset(store, clock):
    _seed(store, clock, [f"rule number {i}" for i in range(7)])
    reader = store.reader_for(None, all_scopes=True)
    flt = QueueFilter(text="rule")
    first = store.list_candidates(reader, flt, limit=4)
    rest = store.list_candidates(reader, flt, limit=4, after=(first[-1].created_at, first[-1].id))
    assert [c.statement for c in first + rest] == [f"rule number {i}" for i in range(7)]


def test_sorted_keyset_paging_visits_every_row_once_in_order(store, clock):
    ids = _seed(store, clock, [f"statement {i}" for i in range(11)])
    reader = store.reader_for(None, all_scopes=True)
    for newest_first in (False, True):
        seen, after = [], None
        while True:
            page = store.list_candidates(
                reader, limit=3, after=after, sort="confidence", newest_first=newest_first
            )
            if not page:
                break
            seen.extend(page)
            last = page[-1]
            after = (last.confidence, last.created_at, last.id)
        assert sorted(c.id for c in seen) == sorted(ids)
        keys = [(c.confidence, c.created_at, c.id) for c in seen]
        assert keys == sorted(keys, reverse=newest_first)


def test_host_sort_treats_a_missing_host_as_empty(store, clock):
    a = store.admit(replace(draft("one thing"), host=None)).candidate_id
    clock.advance(seconds=1)
    b = store.admit(draft("another thing")).candidate_id
    reader = store.reader_for(None, all_scopes=True)
    page = store.list_candidates(reader, sort="host", limit=1)
    assert [c.id for c in page] == [a]
    rest = store.list_candidates(reader, sort="host", after=("", page[0].created_at, a))
    assert [c.id for c in rest] == [b]


def test_approve_can_supersede_a_chosen_conflicting_memory(store, clock):
    old = store.approve(store.admit(draft("we deploy with fly")).candidate_id, actor="t")
    clock.advance(minutes=1)
    cid = store.admit(draft("we deploy with render")).candidate_id
    assert store.candidate_detail(cid).conflicts[0].id == old.id
    new = store.approve(cid, actor="t", edits=Edits(supersede_id=old.id))
    assert new.supersedes_id == old.id
    assert store.get_memory(old.id).status == "superseded"


def test_keep_both_wins_over_a_chosen_supersession(store, clock):
    old = store.approve(store.admit(draft("we deploy with fly")).candidate_id, actor="t")
    cid = store.admit(draft("we deploy with render")).candidate_id
    store.approve(cid, actor="t", edits=Edits(supersede=False, supersede_id=old.id))
    assert store.get_memory(old.id).status == "active"


def test_audit_change_feed_returns_events_after_a_sequence(store, clock):
    assert store.audit_head() == 0
    first = store.admit(draft("we use uv here")).candidate_id
    head = store.audit_head()
    second = store.admit(draft("tabs not spaces")).candidate_id
    store.reject(first, actor="t")
    events = store.audit_events_after(head)
    assert [e.seq for e in events] == sorted(e.seq for e in events)
    assert all(e.seq > head for e in events)
    touched = {e.entity_id for e in events if e.entity_type == "candidate"}
    assert touched == {first, second}
    assert store.audit_events_after(store.audit_head()) == []
    assert len(store.audit_events_after(0, limit=2)) == 2
