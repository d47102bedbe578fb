"""Undo that does what it says (store/undo.py): an undone approval leaves the candidate pending
and puts back what it superseded; an undone false write or forget lifts its tombstone."""

from __future__ import annotations

import pytest
from memvet.store import CandidateDraft, Edits, MemvetError, Scope
from memvet.store.candidates import QueueFilter

APP = "/home/dana/src/app"


def propose(store, statement: str, kind: str = "fact") -> str:
    draft = CandidateDraft(
        statement=statement,
        kind=kind,
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=APP),
        host="claude-code",
    )
    return store.admit(draft).candidate_id


def active_ids(store) -> set[str]:
    return {m.id for m in store.list_memories(store.reader_for(APP))}


def test_undoing_an_approval_returns_the_candidate_and_every_superseded_memory(store):
    yarn = store.approve(propose(store, "We use yarn to install dependencies"), actor="dana")
    lint = store.approve(propose(store, "Lint with eslint"), actor="dana")
    pnpm_id = propose(store, "We moved to pnpm to install dependencies")
    pnpm = store.approve(pnpm_id, actor="dana", edits=Edits(supersede_id=yarn.id))
    assert store.get_memory(yarn.id).status == "superseded"
    cand, restored = store.undo_approval(pnpm_id, actor="dana")
    assert cand.status == "pending" and restored == [yarn.id]
    back = store.get_memory(yarn.id)
    assert back.status == "active" and back.valid_to is None
    assert active_ids(store) == {yarn.id, lint.id}
    with pytest.raises(MemvetError):
        store.get_memory(pnpm.id)
    actions = [e.action for e in store.audit_events(50)]
    assert "memory.approval_undone" in actions and "memory.unsuperseded" in actions
    assert store.verify_audit().ok
    # The same candidate can be approved again, and then supersedes again.
    again = store.approve(pnpm_id, actor="dana", edits=Edits(supersede_id=yarn.id))
    assert again.id == pnpm.id and store.get_memory(yarn.id).status == "superseded"
    assert store.verify_audit().ok


def test_an_approval_whose_memory_moved_on_cannot_be_undone(store):
    cid = propose(store, "The API listens on port 8000")
    memory = store.approve(cid, actor="dana")
    store.forget(memory.id, actor="dana")
    with pytest.raises(MemvetError) as err:
        store.undo_approval(cid, actor="dana")
    assert err.value.code == "illegal_transition"
    assert store.get_candidate_record(cid).status == "committed"


def test_undoing_a_forget_restores_the_memory_and_lifts_its_tombstone(store):
    statement = "Never run migrations on a Friday"
    memory = store.approve(propose(store, statement, "constraint"), actor="dana")
    store.forget(memory.id, actor="dana")
    assert (
        store.admit(
            CandidateDraft(
                statement=statement,
                kind="constraint",
                source_type="explicit_user",
                scope=Scope(user="dana", workspace=APP),
                host="claude-code",
            )
        ).outcome
        != "queued"
    )
    change = store.undo_retirement(memory.id, actor="dana")
    assert change.memory.status == "active" and memory.id in active_ids(store)
    assert not [t for t in store.list_tombstones() if t.source_id == memory.id]
    assert "tombstone.lifted" in [e.action for e in store.audit_events(20)]


def test_undoing_a_false_write_that_was_an_operator_retirement_is_refused(store):
    memory = store.approve(propose(store, "Deploys go through Argo CD"), actor="dana")
    store.retire(memory.id, actor="dana", reason="operator")
    with pytest.raises(MemvetError) as err:
        store.undo_retirement(memory.id, actor="dana")
    assert err.value.code == "illegal_transition"
    assert store.get_memory(memory.id).status == "retired"
    pending = store.list_candidates(store.reader_for(APP), QueueFilter(statuses=("pending",)))
    assert pending == []
