"""Issue 9, tombstone side doors through near-duplicates (store/near_duplicates.py).

Admission asks the tombstones before it merges near-duplicates: a rejected statement said again
(a canonical variant) is tombstoned, and adds no evidence to a pending candidate it resembles.
A rejected rule in other words is a new candidate for a person — but the selective policy never
auto-commits it: only a person can let back in what a person turned down."""

from __future__ import annotations

import pytest
from memvet.store import CandidateDraft, Checkpoint, Evidence, Scope, TombstonedError, open_store
from memvet.store.records import Reader

WS = "/home/dana/src/app"


def _draft(
    statement: str,
    *,
    line: int,
    session: str = "s-1",
    workspace: str | None = WS,
    source: str = "explicit_user",
) -> CandidateDraft:
    return CandidateDraft(
        statement=statement,
        kind="preference",
        source_type=source,
        scope=Scope(user="dana", workspace=workspace, agent="claude-code", session=session),
        host="claude-code",
        confidence=0.95,
        reasons=("test",),
        evidence=Evidence(
            path=f"/t/{session}.jsonl",
            line=line,
            message_id=f"m{line}",
            timestamp=None,
            excerpt=statement,
            session=session,
        ),
    )


def _ingest(store, draft: CandidateDraft, path: str = "/t/a.jsonl"):  # noqa: ANN001, ANN202
    checkpoint = Checkpoint(
        path=path,
        host="claude-code",
        device=1,
        inode=1,
        fingerprint="0:x",
        offset=draft.evidence.line,
        line_no=draft.evidence.line,
        size_seen=1,
        extra={},
    )
    return store.ingest(checkpoint, [draft])[0]


@pytest.fixture
def store():
    s = open_store(user="dana")
    yield s
    s.close()


def _rejected(store, statement: str, line: int = 1) -> None:  # noqa: ANN001
    queued = _ingest(store, _draft(statement, line=line))
    assert queued.outcome == "queued"
    store.reject(queued.candidate_id, actor="operator")


def test_a_rejected_statement_is_tombstoned_before_it_can_merge_into_a_near_duplicate(store):
    pending = _ingest(store, _draft("We always use pnpm here, never npm.", line=1))
    # "Use pnpm in this repo, not npm" is the same rule (test_near_duplicates); queued apart by
    # the operator, then rejected: a tombstone on that wording.
    typed = store.admit(_draft("Use pnpm in this repo, not npm!", line=2, source="operator"))
    store.reject(typed.candidate_id, actor="operator")
    again = _ingest(
        store,
        _draft("“Use pnpm in this repo, not npm！”", line=3, session="s-2"),
        path="/t/b.jsonl",
    )
    assert again.outcome == "tombstoned"
    [candidate] = store.list_candidates(Reader(user="dana", all_scopes=True))
    assert candidate.id == pending.candidate_id and candidate.evidence_count == 1


def test_the_selective_policy_does_not_auto_commit_a_rejected_rule_in_other_words(store):
    _rejected(store, "Do not use axios.")
    reworded = _ingest(
        store,
        _draft("Stop reaching for axios, we don't allow it here.", line=2, session="s-2"),
        path="/t/b.jsonl",
    )
    assert reworded.outcome == "queued"  # a person may still decide it again
    with pytest.raises(TombstonedError) as refused:
        store.approve(reworded.candidate_id, actor="policy:selective")
    assert "axios" not in refused.value.message  # the tombstone is named, not its text
    assert refused.value.details["tombstone"]
    [still] = store.list_candidates(Reader(user="dana", all_scopes=True))
    assert still.id == reworded.candidate_id and still.status == "pending"
    assert store.list_memories(Reader(user="dana", all_scopes=True)) == []
    # A person who approves it decides it again: that is their call.
    memory = store.approve(reworded.candidate_id, actor="operator")
    assert memory.status == "active"


def test_the_policy_commits_what_no_tombstone_resembles_and_other_workspaces_stay_apart(store):
    _rejected(store, "Do not use axios.")
    elsewhere = _ingest(
        store,
        _draft(
            "Stop reaching for axios, we don't allow it here.",
            line=2,
            workspace="/home/dana/src/other",
        ),
        path="/t/c.jsonl",
    )
    unrelated = _ingest(
        store, _draft("Run the linter before every push.", line=3), path="/t/d.jsonl"
    )
    for result in (elsewhere, unrelated):
        assert store.approve(result.candidate_id, actor="policy:selective").status == "active"
