"""State machines, the reservation protocol in one process, tombstones, supersession, bitemporal reads."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memvet.store import (
    AlreadyDecidedError,
    Edits,
    IllegalTransitionError,
    LeaseMismatchError,
    ReservationHeldError,
)
from memvet.store.lifecycle import CANDIDATE_TRANSITIONS, MEMORY_TRANSITIONS, check_candidate

from .conftest import draft


def test_transition_tables_match_the_architecture():
    assert ("pending", "committed") not in CANDIDATE_TRANSITIONS
    assert ("superseded", "retired") not in MEMORY_TRANSITIONS
    with pytest.raises(IllegalTransitionError) as err:
        check_candidate("committed", "rejected")  # an undo (undo.py) goes back to pending
    assert err.value.code == "illegal_transition" and err.value.exit_code == 1


def test_admission_order_tombstone_then_merge_then_queue(store):
    first = store.admit(draft("we use uv here"))
    assert first.outcome == "queued"
    again = store.admit(draft("We use  uv here."))
    assert again.outcome == "merged" and again.candidate_id == first.candidate_id
    assert store.get_candidate(first.candidate_id).evidence_count == 2
    assert len(store.candidate_detail(first.candidate_id).evidence) == 2
    store.reject(first.candidate_id, actor="test", reason="noise")
    assert store.admit(draft("we use uv here")).outcome == "tombstoned"
    assert store.admit(draft("we use uv here")).outcome == "tombstoned"
    [tomb] = store.list_tombstones()
    assert tomb.seen_again == 2 and tomb.reason == "rejected" and tomb.preview == "we use uv here"


def test_reserve_is_compare_and_set_and_tells_who_holds_it(store):
    cid = store.admit(draft("we use uv here")).candidate_id
    lease = store.reserve(cid, owner="inspector A")
    with pytest.raises(ReservationHeldError) as err:
        store.reserve(cid, owner="inspector B")
    assert err.value.details["holder"] == "inspector A"
    with pytest.raises(ReservationHeldError):
        store.reject(cid, actor="cli")  # a reject never overwrites a reservation
    with pytest.raises(LeaseMismatchError):
        store.commit(cid, "not-the-token", actor="B")
    memory = store.commit(cid, lease.token, actor="A")
    assert store.commit(cid, lease.token, actor="A").id == memory.id  # idempotent
    with pytest.raises(AlreadyDecidedError):
        store.reserve(cid, owner="C")


def test_a_failed_commit_releases_with_the_error_kept(store, monkeypatch):
    cid = store.admit(draft("we use uv here")).candidate_id

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(type(store.reservations.creation), "insert", boom)
    with pytest.raises(RuntimeError):
        store.approve(cid, actor="A")
    cand = store.get_candidate(cid)
    assert cand.status == "pending" and cand.last_error == "RuntimeError" and cand.lease is None
    monkeypatch.undo()
    assert store.approve(cid, actor="A").status == "active"
    assert store.get_candidate(cid).last_error is None


def test_stale_leases_are_settled_only_by_recovery(store, clock):
    ids = [
        store.admit(draft(f"rule number {i} applies", kind="constraint")).candidate_id
        for i in range(3)
    ]
    for cid in ids:
        store.reserve(cid, owner="crashed inspector", ttl=timedelta(minutes=1))
    assert store.mark_stale_leases(clock.advance(minutes=5)) == 3
    assert store.mark_stale_leases(clock.now) == 0  # idempotent
    assert {store.get_candidate(c).status for c in ids} == {"stale"}
    with pytest.raises(ReservationHeldError):
        store.reserve(ids[0], owner="someone")
    memory = store.recover(ids[0], "commit", actor="op")
    assert store.recover(ids[0], "commit", actor="op").id == memory.id
    assert store.recover(ids[1], "release", actor="op").status == "pending"
    assert store.recover(ids[2], "reject", actor="op").status == "rejected"
    assert [m.id for m in store.list_memories(store.reader_for(None, all_scopes=True))] == [
        memory.id
    ]
    assert store.verify_audit().ok


def test_undo_reject_lifts_the_tombstone(store):
    cid = store.admit(draft("we use uv here")).candidate_id
    store.reject(cid, actor="op")
    assert store.undo_reject(cid, actor="op").status == "pending"
    assert store.list_tombstones() == []
    assert store.admit(draft("we use uv here")).outcome == "merged"


def test_memory_lifecycle_and_replayed_transactions(store):
    cid = store.admit(draft("deploys go through make ship", kind="procedure")).candidate_id
    memory = store.approve(cid, actor="op")
    first = store.dispute(memory.id, actor="op", txn_id="t-1")
    assert first.memory.status == "disputed" and not first.replayed
    replay = store.dispute(memory.id, actor="op", txn_id="t-1")
    assert replay.replayed and replay.memory.status == "disputed"
    assert store.resolve_dispute(memory.id, actor="op").memory.status == "active"
    with pytest.raises(IllegalTransitionError):
        store.resolve_dispute(memory.id, actor="op")
    gone = store.false_write(memory.id, actor="op", reason="never said that")
    assert gone.memory.status == "retired" and gone.memory.retired_reason == "false_write"
    assert store.restore(memory.id, actor="op").memory.status == "active"
    history = [(t.from_status, t.to_status) for t in store.transitions(memory.id)]
    assert history == [
        (None, "active"),
        ("active", "disputed"),
        ("disputed", "active"),
        ("active", "retired"),
        ("retired", "active"),
    ]
    # the tombstone stays through the restore: the same statement never comes back as a candidate
    assert (
        store.admit(draft("deploys go through make ship", kind="procedure")).outcome == "tombstoned"
    )


def test_a_correction_supersedes_and_history_stays_readable(store, clock):
    reader = store.reader_for("/home/dana/src/app")
    old = store.approve(
        store.admit(draft("we use yarn for packages", kind="decision")).candidate_id, actor="op"
    )
    t_old = clock.advance(days=1)
    cid = store.admit(
        draft("actually we switched to pnpm for packages", kind="decision", hint="yarn")
    ).candidate_id
    detail = store.candidate_detail(cid)
    assert detail.supersedes is not None and detail.supersedes.id == old.id
    clock.advance(days=1)
    new = store.approve(cid, actor="op")
    assert new.supersedes_id == old.id
    assert [m.id for m in store.list_memories(reader)] == [new.id]
    superseded = store.get_memory(old.id)
    assert superseded.status == "superseded" and superseded.superseded_by_id == new.id
    # Valid time is when the user said it (issue 13): the correction was said at t_old, so the
    # old memory held until then and the new one from then on, though approved a day later.
    assert new.valid_from == t_old and superseded.valid_to == t_old
    before = t_old - timedelta(seconds=1)
    assert [m.id for m in store.list_memories(reader, as_of=before)] == [old.id]
    assert [m.id for m in store.list_memories(reader, as_of=t_old)] == [new.id]
    recorded = store.list_memories(reader, recorded_as_of=t_old)
    assert [(m.id, m.status) for m in recorded] == [(old.id, "active")]


def test_approve_with_edits_moves_scope_and_text(store):
    cid = store.admit(draft("i like conventional commits")).candidate_id
    memory = store.approve(
        cid,
        actor="op",
        edits=Edits(statement="Use conventional commits", kind="preference", make_global=True),
    )
    assert memory.scope.workspace is None and memory.statement == "Use conventional commits"
    assert [m.id for m in store.list_memories(store.reader_for("/any/where"))] == [memory.id]


def test_expiry_ttl_and_decay_sweeps(store, clock):
    old = store.admit(draft("for the demo use port 8080", kind="fact")).candidate_id
    clock.advance(days=40)
    assert store.expire_candidates(clock.now, timedelta(days=30)) == 1
    assert store.get_candidate(old).status == "expired"
    m = store.approve(
        store.admit(
            draft("the model thinks we use nix", source="model_inference", confidence=0.8)
        ).candidate_id,
        actor="op",
    )
    assert store.decay_confidence(clock.advance(days=30), timedelta(days=30)) == 1
    assert store.decay_confidence(clock.now, timedelta(days=30)) == 0
    assert abs(store.get_memory(m.id).confidence - 0.4) < 1e-6
    explicit = store.approve(
        store.admit(draft("ci runs on buildkite", kind="fact", confidence=0.9)).candidate_id,
        actor="op",
        edits=Edits(valid_to=clock.now + timedelta(days=1)),
    )
    store.decay_confidence(clock.advance(days=60), timedelta(days=30))
    assert store.get_memory(explicit.id).confidence == 0.9
    assert store.retire_due_memories(clock.now) == 1
    assert store.get_memory(explicit.id).retired_reason == "expired"
    assert store.retire_due_memories(clock.now) == 0


def test_bulk_admit_and_import_follow_the_same_rules(store):
    results = store.admit_many(
        [
            draft("we use uv here"),
            draft("we use uv here"),
            draft("ci is github actions", kind="fact"),
        ]
    )
    assert [r.outcome for r in results] == ["queued", "merged", "queued"]
    store.reject(results[2].candidate_id, actor="op")
    ids = store.import_memories(
        [
            draft("ci is github actions", kind="fact"),
            draft("tests run with pytest -q", kind="procedure"),
        ],
        actor="op",
    )
    assert len(ids) == 1  # the tombstoned statement is skipped
    memory = store.get_memory(ids[0])
    assert (
        memory.status == "active" and store.get_candidate(memory.candidate_id).status == "committed"
    )
    assert [t.to_status for t in store.transitions(ids[0])] == ["active"]
    assert store.verify_audit().ok


def test_the_operator_can_correct_polarity_at_approval(store):
    cid = store.admit(draft("we don't use docker for local dev", kind="constraint")).candidate_id
    memory = store.approve(cid, actor="op", edits=Edits(polarity="deny"))
    assert memory.polarity == "deny"
    other = store.admit(draft("staging runs on fly.io", kind="fact")).candidate_id
    with pytest.raises(Exception, match="polarity"):
        store.approve(other, actor="op", edits=Edits(polarity="maybe"))
    assert store.get_candidate(other).status == "pending"


def test_recall_as_recorded_at_an_earlier_time(store, clock):
    from memvet.store.recall import recall

    ws = "/home/dana/src/app"
    memory = store.approve(
        store.admit(draft("deploys run through make ship", kind="procedure")).candidate_id,
        actor="op",
    )
    before_forget = clock.advance(hours=1)
    clock.advance(hours=1)
    store.forget(memory.id, actor="op")
    now = recall(store, "how do deploys run?", workspace=ws)
    assert now.state == "UNKNOWN" and memory.id not in [
        m.id for m in now.memories if m.role == "answer"
    ]
    then = recall(store, "how do deploys run?", workspace=ws, recorded_as_of=before_forget)
    # As recorded then it was in force; told as history, never as current (issue 13).
    assert then.state == "VERIFIED_HISTORICAL" and then.memories[0].id == memory.id
