"""Issue 9: selective mode never auto-commits a rule a person rejected, said again in other words
(a near-duplicate of its tombstone): it stays pending for a person. Real daemon process, a real
transcript on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memvet.store import CandidateDraft, QueueFilter, Scope, open_store
from memvet.store.paths import memvet_home
from memvet.store.workspace import resolve_workspace

from .conftest import ClaudeSession, memvet

pytestmark = pytest.mark.slow

TYPED = ["We always use uv for Python packaging in this repo."]
REJECTED = "We always use ruff for linting in this repo."
REWORDED = "In this repo we always lint with ruff."


def selective(threshold: float = 0.75) -> None:
    home = memvet_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "policy.toml").write_text(f'mode = "selective"\nselective_threshold = {threshold}\n')


def state() -> tuple[set[str], set[str]]:
    """The active memories' and the pending candidates' statements."""
    store = open_store(schema="never")
    try:
        reader = store.reader_for(None, all_scopes=True)
        memories = {m.statement for m in store.list_memories(reader)}
        pending = {
            c.statement
            for c in store.list_candidates(reader, QueueFilter(statuses=("pending",)), limit=None)
        }
    finally:
        store.close()
    return memories, pending


def test_a_reworded_rejected_rule_is_queued_not_auto_committed(file_key, tmp_path: Path) -> None:
    ws = tmp_path / "app"
    (ws / ".git").mkdir(parents=True)
    store = open_store()
    try:
        cid = store.admit(
            CandidateDraft(
                statement=REJECTED,
                kind="preference",
                source_type="operator",
                scope=Scope(user=store.user, workspace=resolve_workspace(str(ws))),
            )
        ).candidate_id
        store.reject(cid, actor="operator")
    finally:
        store.close()
    project = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-app"
    project.mkdir(parents=True)
    selective()
    s = ClaudeSession(str(ws))
    (project / "s-1.jsonl").write_bytes(s.prompt(TYPED[0]) + s.prompt(REWORDED))
    done = memvet("daemon", "run", "--once")
    assert done.returncode == 0, done.stderr
    memories, pending = state()
    assert set(memories) == {TYPED[0]}  # the policy still commits what nobody turned down
    assert REWORDED in pending
    store = open_store(schema="never")
    try:
        [held] = [
            c
            for c in store.list_candidates(
                store.reader_for(None, all_scopes=True), QueueFilter(statuses=("pending",))
            )
            if c.statement == REWORDED
        ]
        assert held.lease is None  # released, not left reserved
    finally:
        store.close()
