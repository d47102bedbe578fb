"""Property tests over random sequences of store operations (hypothesis)."""

from __future__ import annotations

from datetime import timedelta

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from memvet.store import MemvetError, open_store
from memvet.store.lifecycle import CANDIDATE_TRANSITIONS, MEMORY_TRANSITIONS

from .conftest import FakeClock, draft

WORKSPACES = ["/w/alpha", "/w/beta", None]
WORDS = ["uv", "pnpm", "docker", "terraform", "pytest", "make", "nix", "ruff"]


class StoreMachine(RuleBasedStateMachine):
    """Random approve/reject/reserve/stale/recover/lifecycle sequences from two "users" of one
    store; after every step no illegal state exists and no read path leaks across scopes."""

    def __init__(self) -> None:
        super().__init__()
        import tempfile
        from pathlib import Path

        self.clock = FakeClock()
        self.store = open_store(Path(tempfile.mkdtemp()) / "h", clock=self.clock, user="dana")
        self.seen_candidates: dict[str, str] = {}  # id -> last seen status
        self.seen_memories: dict[str, str] = {}

    def teardown(self) -> None:
        self.store.close()

    @rule(
        word=st.sampled_from(WORDS),
        ws=st.sampled_from(WORKSPACES),
        kind=st.sampled_from(["preference", "constraint", "fact"]),
    )
    def admit(self, word, ws, kind):
        result = self.store.admit(draft(f"we use {word} here", workspace=ws, kind=kind))
        if result.candidate_id:
            self.seen_candidates.setdefault(result.candidate_id, "pending")

    def _pick(self, data, pool):
        return data.draw(st.sampled_from(sorted(pool)))

    @precondition(lambda self: self.seen_candidates)
    @rule(
        data=st.data(),
        action=st.sampled_from(
            [
                "approve",
                "reject",
                "reserve",
                "recover_commit",
                "recover_release",
                "recover_reject",
                "undo",
            ]
        ),
    )
    def act_on_candidate(self, data, action):
        cid = self._pick(data, self.seen_candidates)
        try:
            if action == "approve":
                self.store.approve(cid, actor="A")
            elif action == "reject":
                self.store.reject(cid, actor="A")
            elif action == "reserve":
                self.store.reserve(cid, owner="B", ttl=timedelta(minutes=1))
            elif action == "undo":
                self.store.undo_reject(cid, actor="A")
            else:
                self.store.recover(cid, action.removeprefix("recover_"), actor="op")
        except MemvetError:
            pass  # refusals are fine; illegal states are not

    @rule()
    def time_passes(self):
        self.store.mark_stale_leases(self.clock.advance(minutes=3))

    @precondition(lambda self: self.seen_memories)
    @rule(
        data=st.data(),
        action=st.sampled_from(["false_write", "forget", "dispute", "resolve_dispute", "restore"]),
    )
    def act_on_memory(self, data, action):
        mid = self._pick(data, self.seen_memories)
        try:
            getattr(self.store, action)(mid, actor="op")
        except MemvetError:
            pass

    @invariant()
    def no_illegal_state_and_one_memory_per_commit(self):
        reader = self.store.reader_for(None, all_scopes=True)
        cands = self.store.list_candidates(reader, statuses_filter(), limit=None)
        memories = self.store.list_memories(
            reader, statuses=("active", "superseded", "retired", "disputed")
        )
        by_candidate: dict[str, int] = {}
        for m in memories:
            by_candidate[m.candidate_id] = by_candidate.get(m.candidate_id, 0) + 1
            before = self.seen_memories.get(m.id)
            assert before is None or before == m.status or (before, m.status) in MEMORY_TRANSITIONS
            self.seen_memories[m.id] = m.status
        for c in cands:
            before = self.seen_candidates.get(c.id, "pending")
            # several steps may pass between two looks; every status must be reachable
            assert c.status in {"pending", "reserved", "stale", "committed", "rejected", "expired"}
            if before in ("committed",):
                assert c.status == "committed"
            self.seen_candidates[c.id] = c.status
            if c.status == "committed":
                assert by_candidate.get(c.id) == 1 and c.memory_id is not None
            else:
                assert c.id not in by_candidate
        assert all(n == 1 for n in by_candidate.values())

    @invariant()
    def scope_never_leaks(self):
        for ws in ("/w/alpha", "/w/beta", None):
            reader = self.store.reader_for(ws)
            for m in self.store.list_memories(
                reader, statuses=("active", "superseded", "retired", "disputed")
            ):
                assert m.scope.workspace in (None, ws)
            for c in self.store.list_candidates(reader, statuses_filter(), limit=None):
                assert c.scope.workspace in (None, ws)
            for m in self.store.list_memories(reader, as_of=self.clock.now):
                assert m.scope.workspace in (None, ws)
            for m in self.store.list_memories(reader, recorded_as_of=self.clock.now):
                assert m.scope.workspace in (None, ws)
        other = self.store.reader_for("/w/alpha")
        stranger = type(other)(user="mallory", workspace="/w/alpha")
        assert self.store.list_memories(stranger) == []
        assert self.store.list_candidates(stranger, statuses_filter()) == []


def statuses_filter():
    from memvet.store import QueueFilter

    return QueueFilter(
        statuses=("pending", "reserved", "stale", "committed", "rejected", "expired")
    )


def test_transition_tables_have_no_dead_ends():
    assert {frm for frm, _ in CANDIDATE_TRANSITIONS} >= {"pending", "reserved", "stale"}


TestStoreMachine = StoreMachine.TestCase
TestStoreMachine.settings = settings(
    max_examples=15,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
