from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from memvet.store import CandidateDraft, Evidence, Scope, open_store
from memvet.store.store import Store


class FakeClock:
    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> datetime:
        self.now += timedelta(**kwargs)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(clock: FakeClock) -> Iterator[Store]:
    s = open_store(clock=clock, user="dana")
    yield s
    s.close()


_LINES = itertools.count(7)


def draft(
    statement: str,
    *,
    workspace: str | None = "/home/dana/src/app",
    kind: str = "preference",
    source: str = "explicit_user",
    user: str = "dana",
    hint: str | None = None,
    polarity: str = "assert",
    confidence: float = 0.8,
) -> CandidateDraft:
    line = next(_LINES)  # each draft is another line of the session: a repeat is a merge
    return CandidateDraft(
        statement=statement,
        kind=kind,
        source_type=source,
        scope=Scope(user=user, workspace=workspace, agent="claude-code", session="s-1"),
        host="claude-code",
        confidence=confidence,
        reasons=("rule:test",),
        polarity=polarity,
        supersedes_hint=hint,
        evidence=Evidence(
            path="/home/dana/.claude/projects/x/s-1.jsonl",
            line=line,
            message_id=f"msg-{line}",
            timestamp=None,
            excerpt=statement,
            session="s-1",
        ),
    )
