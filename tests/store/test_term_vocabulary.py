"""The vocabulary stamp of the recall index (store/term_vocabulary.py, term_reindex.py): a store
indexed under one vocabulary (A) and opened by a release with another (B) has its memories
re-indexed by the daemon's sweep, in slices, idempotently, resuming after a crash; meanwhile
recall still finds every memory by the terms both vocabularies share, and after it a term only
B knows finds a memory indexed under A."""

from __future__ import annotations

import pytest
from memvet.daemon.settings import DaemonSettings
from memvet.daemon.sweeps import store_sweeps
from memvet.store import Edits, open_store, relevance, synonyms
from memvet.store import term_index as ti
from memvet.store import term_reindex as tr
from memvet.store import term_vocabulary as tv
from memvet.store.recall import recall

from .conftest import draft

APP = "/home/dana/src/app"
# Vocabulary B's one new group: words found nowhere else, so only B relates them.
NEW_GROUP = {"zq-runner": ("zanzibarquux", "quillonmarsh")}
OLD_STATEMENT = "Nightly builds run on the quillonmarsh runners"
ONLY_B_KNOWS = "where is zanzibarquux?"  # no word of the memory but through B's group


def use_vocabulary(monkeypatch: pytest.MonkeyPatch, groups: dict[str, tuple[str, ...]]) -> None:
    """A release whose synonym table is `groups`: what relevance.py compiles at import, again."""
    monkeypatch.setattr(synonyms, "GROUPS", groups)
    compiled, phrases = synonyms.compile_groups(relevance.tt.plain_terms)
    monkeypatch.setattr(relevance, "_GROUPS", compiled)
    monkeypatch.setattr(relevance, "_GROUP_PHRASES", phrases)
    monkeypatch.setattr(relevance, "_PHRASES", (*relevance.tt.CONCEPT_PHRASES, *phrases))
    tv.vocabulary_stamp.cache_clear()


@pytest.fixture(autouse=True)
def _fresh_stamp():
    tv.vocabulary_stamp.cache_clear()
    yield
    tv.vocabulary_stamp.cache_clear()


@pytest.fixture(autouse=True)
def _small_slices(monkeypatch):
    monkeypatch.setattr(tr, "SLICE", 3)
    monkeypatch.setattr(tr, "PAUSE_S", 0)


def served(result) -> list[str]:
    doc = result.to_json() if hasattr(result, "to_json") else result
    return [m["id"] for m in doc["memories"]]


def meta(store, key: str) -> str | None:
    with store.ctx.read() as conn:
        return conn.exec_driver_sql("SELECT value FROM store_meta WHERE key = ?", (key,)).scalar()


def postings(store) -> dict[str, set[tuple[bytes, int]]]:
    with store.ctx.read() as conn:
        rows = conn.exec_driver_sql("SELECT token, memory_id, field FROM term_postings").all()
    out: dict[str, set[tuple[bytes, int]]] = {}
    for token, memory_id, field in rows:
        out.setdefault(memory_id, set()).add((bytes(token), field))
    return out


def expected_postings(store) -> dict[str, set[tuple[bytes, int]]]:
    """Each memory's postings as today's vocabulary builds them from its text."""
    out: dict[str, set[tuple[bytes, int]]] = {}
    for memory in store.list_memories(store.reader_for(None, all_scopes=True)):
        rows = ti.postings(store.ctx.cipher.term_key, memory.id, memory.statement, memory.subject)
        out[memory.id] = {(token, field) for token, _, field in rows}
    return out


@pytest.fixture
def old_store(tmp_path, monkeypatch):
    """Seven memories indexed under vocabulary A (today's synonyms, without NEW_GROUP)."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    store = open_store(tmp_path, user="dana")
    for statement in (
        OLD_STATEMENT,
        "We use pnpm in this repo, never npm",
        "The staging postgres listens on port 5433",
        "Deploys go through Heroku pipelines",
        "Use ruff for linting, not flake8",
        "Release notes live in docs/CHANGELOG.md",
        "The frontend builds with vite; do not add webpack",
    ):
        candidate = store.admit(draft(statement, kind="fact")).candidate_id
        store.approve(candidate, actor="dana", edits=Edits())
    yield store
    store.close()


def test_a_new_store_records_the_stamp_and_the_sweep_has_nothing_to_do(old_store):
    assert meta(old_store, tv.META_KEY) == tv.vocabulary_stamp()
    assert tr.reindex_for_vocabulary(old_store) is None


def test_the_stamp_follows_the_tables_that_shape_terms(monkeypatch):
    before = tv.vocabulary_stamp()
    use_vocabulary(monkeypatch, {**synonyms.GROUPS, **NEW_GROUP})
    assert tv.vocabulary_stamp() != before
    monkeypatch.setattr(tv, "TERM_RULES_VERSION", tv.TERM_RULES_VERSION + 1)
    use_vocabulary(monkeypatch, dict(synonyms.GROUPS))  # the rules' version alone changes it too
    assert tv.vocabulary_stamp() not in (before, "")


def test_the_sweep_brings_every_memory_to_the_new_vocabulary_in_slices(old_store, monkeypatch):
    old = postings(old_store)
    use_vocabulary(monkeypatch, {**synonyms.GROUPS, **NEW_GROUP})
    assert postings(old_store) != expected_postings(old_store)  # B's terms are missing
    (old_id,) = [
        m.id
        for m in old_store.list_memories(old_store.reader_for(APP))
        if m.statement == OLD_STATEMENT
    ]
    # Meanwhile the old postings still find the memory by the words both vocabularies know.
    assert old_id in served(recall(old_store, "where do nightly builds run?", workspace=APP))
    assert old_id not in served(recall(old_store, ONLY_B_KNOWS, workspace=APP))

    slices: list[int] = []
    real = tr._reindex
    monkeypatch.setattr(
        tr, "_reindex", lambda c, k, ids: slices.append(len(ids)) or real(c, k, ids)
    )
    sweep = store_sweeps(DaemonSettings())["sweep.reindex_terms"]
    result = sweep(old_store, old_store.now())
    assert result.changed == 7 and result.detail == "memories re-indexed 7"
    assert slices[:3] == [3, 3, 1]  # SLICE (3 here) memories per write transaction
    assert postings(old_store) == expected_postings(old_store) != old
    assert meta(old_store, tv.META_KEY) == tv.vocabulary_stamp()
    assert meta(old_store, tv.PROGRESS_KEY) is None
    assert old_id in served(recall(old_store, ONLY_B_KNOWS, workspace=APP))
    # Idempotent: nothing to do again, and a forced run changes no posting.
    assert sweep(old_store, old_store.now()).detail == "vocabulary unchanged"
    assert tr.reindex_for_vocabulary(old_store, force=True) == 7
    assert postings(old_store) == expected_postings(old_store)
    events = [e for e in old_store.audit_events() if e.action == "store.reindexed"]
    assert len(events) == 2 and all(e.entity_id == tv.vocabulary_stamp() for e in events)


def test_a_sweep_cut_short_finishes_where_it_stopped(old_store, monkeypatch):
    use_vocabulary(monkeypatch, {**synonyms.GROUPS, **NEW_GROUP})

    def crash(_seconds: float) -> None:
        raise KeyboardInterrupt  # the daemon killed right after its first slice committed

    monkeypatch.setattr(tr.time, "sleep", crash)
    with pytest.raises(KeyboardInterrupt):
        tr.reindex_for_vocabulary(old_store)
    assert meta(old_store, tv.META_KEY) != tv.vocabulary_stamp()  # not recorded as done
    assert meta(old_store, tv.PROGRESS_KEY) is not None
    done_first = {
        mid
        for mid, rows in postings(old_store).items()
        if rows == expected_postings(old_store)[mid]
    }
    assert len(done_first) >= 3
    monkeypatch.setattr(tr.time, "sleep", lambda _s: None)
    assert tr.reindex_for_vocabulary(old_store) == 4  # the rest only
    assert postings(old_store) == expected_postings(old_store)
    assert meta(old_store, tv.META_KEY) == tv.vocabulary_stamp()
    assert meta(old_store, tv.PROGRESS_KEY) is None


def test_a_store_without_a_stamp_is_indexed_once(old_store):
    """An upgraded store (no stamp recorded): its postings' vocabulary is unknown."""
    with old_store.ctx.write() as conn:
        conn.exec_driver_sql("DELETE FROM store_meta WHERE key = ?", (tv.META_KEY,))
    assert tr.reindex_for_vocabulary(old_store) == 7
    assert tr.reindex_for_vocabulary(old_store) is None
