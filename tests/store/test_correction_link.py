"""Which memory a correction links to does not depend on the order memories were approved in
(issue 13: the demo's correction must link to the same memory on every run; approval order
follows candidate ids, whose tail is random)."""

from __future__ import annotations

from memvet.store import open_store

from .conftest import FakeClock, draft

TIED = (
    "Run poetry install after every pull",
    "Commit the poetry lock file with dependency changes",
)
CORRECTION = "We moved from poetry to uv, use uv now"


def linked_statement(home, order: tuple[str, ...]) -> str:
    store = open_store(home, clock=FakeClock(), user="dana")
    try:
        for statement in order:
            store.approve(store.admit(draft(statement)).candidate_id, actor="dana")
        cid = store.admit(draft(CORRECTION, hint="poetry")).candidate_id
        link = store.get_candidate(cid).supersedes_id
        assert link is not None  # both memories assert poetry: one of them is the link
        return store.get_memory(link).statement
    finally:
        store.close()


def test_a_tie_is_broken_by_content_not_by_approval_order(tmp_path):
    assert linked_statement(tmp_path / "a", TIED) == linked_statement(tmp_path / "b", TIED[::-1])
