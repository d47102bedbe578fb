"""Fixtures for the inspector's tests: a fixed clock, fixed ids, a seeded store with fixed
workspace strings (nothing in a screenshot may depend on tmp paths, pids or the time of day),
and an app factory with a fixed owner and theme."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from memvet.inspector.app import ReviewApp, make_app
from memvet.store import CandidateDraft, Evidence, Scope, open_store
from memvet.store.store import Store
from textual.widgets import Input

SHOP = "/home/dana/src/shop-api"
INFRA = "/home/dana/src/infra"
OWNER = "inspector pid 1000 on test"
OTHER = "inspector pid 4242 on laptop"


class FakeClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> datetime:
        self.now += timedelta(**kwargs)
        return self.now


def counter_ids():
    counts: dict[str, int] = {}

    def new_id(prefix: str) -> str:
        counts[prefix] = counts.get(prefix, 0) + 1
        return f"{prefix}{counts[prefix]:04d}"

    return new_id


def draft(
    statement: str,
    *,
    workspace: str | None = SHOP,
    kind: str = "preference",
    host: str = "claude-code",
    confidence: float = 0.8,
    line: int = 12,
    excerpt: str | None = None,
    hint: str | None = None,
    reasons: tuple[str, ...] = ("the user said so",),
) -> CandidateDraft:
    session = "s-7f3a" if host == "claude-code" else "rollout-2026-03-01"
    path = (
        f"/home/dana/.claude/projects/-home-dana-src-shop-api/{session}.jsonl"
        if host == "claude-code"
        else f"/home/dana/.codex/sessions/2026/03/01/{session}.jsonl"
    )
    return CandidateDraft(
        statement=statement,
        kind=kind,
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=workspace, agent=host, session=session),
        host=host,
        confidence=confidence,
        reasons=reasons,
        supersedes_hint=hint,
        evidence=Evidence(
            path=path,
            line=line,
            message_id="msg-1",
            timestamp=datetime(2026, 3, 1, 8, 55, tzinfo=UTC),
            excerpt=excerpt or statement,
            session=session,
        ),
    )


QUEUE = [
    draft(
        "Use uv for every Python command in this repo, never pip.",
        confidence=0.92,
        reasons=("explicit preference", "said twice"),
    ),
    draft(
        "Integration tests need the docker compose stack running first.",
        kind="procedure",
        confidence=0.74,
        line=40,
    ),
    draft(
        "Never commit directly to main; open a pull request.",
        kind="constraint",
        workspace=None,
        host="codex",
        confidence=0.88,
        line=3,
    ),
    draft(
        "Terraform state lives in the infra-state bucket in eu-west-1.",
        kind="fact",
        workspace=INFRA,
        host="codex",
        confidence=0.66,
        line=88,
    ),
    draft(
        "We chose Postgres 16 over MySQL for the order service.",
        kind="decision",
        confidence=0.81,
        line=120,
    ),
    draft(
        "Prefer small focused commits with imperative messages.",
        workspace=None,
        confidence=0.58,
        line=7,
    ),
]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))


def seed(store: Store, clock: FakeClock, drafts: list[CandidateDraft]) -> list[str]:
    ids = []
    for d in drafts:
        clock.advance(minutes=7)
        ids.append(store.admit(d).candidate_id)
    return ids


@pytest.fixture
def store(clock: FakeClock) -> Iterator[Store]:
    s = open_store(clock=clock, user="dana", new_id=counter_ids())
    yield s
    s.close()


@pytest.fixture
def seeded(store: Store, clock: FakeClock) -> Store:
    """Six pending candidates, created 7 minutes apart from 09:07; the clock then reads 12:00."""
    seed(store, clock, QUEUE)
    clock.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    return store


def app_for(store: Store | None, clock: FakeClock | None = None, **kwargs) -> ReviewApp:
    options = {"owner": OWNER, "theme": "textual-dark", "poll_interval": 30.0, **kwargs}
    if clock is not None:
        options["clock"] = clock
    return make_app(store, **options)


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


async def settle(pilot, rounds: int = 3) -> None:
    """Let workers finish and their messages land (a message may start another worker)."""
    app = pilot.app
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause()


def seed_history(store: Store, clock: FakeClock) -> dict[str, str]:
    """A store with a past: approved, superseded, disputed, false-written and rejected records,
    a conflict waiting in the queue, and a stale reservation. Returns the ids by role."""
    ids = seed(store, clock, QUEUE)
    old = store.approve(
        seed(store, clock, [draft("We deploy shop-api to Fly.io.", kind="decision")])[0],
        actor=OTHER,
    )
    clock.advance(minutes=30)
    conflict = seed(
        store, clock, [draft("We deploy shop-api to Render now.", kind="decision", confidence=0.7)]
    )[0]
    pinned = store.approve(
        seed(store, clock, [draft("Format Python with ruff format.")])[0], actor=OTHER
    )
    dropped = store.approve(
        seed(store, clock, [draft("The staging database is called db-2.", kind="fact")])[0],
        actor=OTHER,
    )
    clock.advance(minutes=5)
    store.false_write(dropped.id, actor=OTHER, reason="it never was")
    disputed = store.approve(
        seed(store, clock, [draft("Run the linters before every push.", kind="procedure")])[0],
        actor=OTHER,
    )
    store.dispute(disputed.id, actor=OTHER)
    rejected = seed(store, clock, [draft("Use tabs for indentation.", confidence=0.4)])[0]
    store.reject(rejected, actor=OTHER, reason="not us")
    stale = ids[3]
    store.reserve(stale, owner=OTHER)
    store.mark_stale_leases(clock.now + timedelta(minutes=10))
    clock.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    return {
        "queue": ids[0],
        "conflict": conflict,
        "stale": stale,
        "old": old.id,
        "pinned": pinned.id,
        "false_write": dropped.id,
        "disputed": disputed.id,
        "rejected": rejected,
    }


@pytest.fixture
def history(store: Store, clock: FakeClock) -> dict[str, str]:
    return seed_history(store, clock)
