"""An approval finds its slot by the subject's blind index, not by walking the scope (issue 15):
with every memory of the user in one scope, SQLite's planner otherwise prefers the
(user, status) index and reads every memory of the user for each approval (25 ms at 10k)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from memvet.store import Edits
from store_internals import engine_of

from .conftest import draft

APP = "/home/dana/src/app"
WALKS_THE_SCOPE = ("ix_memories_list_order", "ix_memories_in_force", "ix_memories_user_bidx")


def _memory_selects(store, run) -> list[tuple[str, object]]:
    """The SELECTs over `memories` that `run()` issues, with their parameters."""
    seen: list[tuple[str, object]] = []

    def record(conn, cursor, statement, params, context, executemany) -> None:  # noqa: ANN001
        if statement.lstrip().upper().startswith("SELECT") and "FROM memories" in statement:
            seen.append((statement, params))

    sa.event.listen(engine_of(store), "before_cursor_execute", record)
    try:
        run()
    finally:
        sa.event.remove(engine_of(store), "before_cursor_execute", record)
    return seen


def _plan(store, statement: str, params: object) -> str:
    with store.ctx.read() as conn:
        return " | ".join(
            r[-1] for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params)
        )


def test_the_slot_lookup_searches_the_subject_index(store):
    for i in range(30):  # one scope, many subjects: the (user, status) index looks tempting
        cid = store.admit(draft(f"Module m{i} is built with tool{i}", workspace=APP)).candidate_id
        store.approve(cid, actor="dana")
    # a subject with members, and one without (a new subject: no `IN ()` over the scope)
    for statement in ("Module m7 is built with hammer", "Module q1 is built with hammer"):
        cand = store.get_candidate(
            store.admit(draft(statement, workspace=APP)).candidate_id, store.reader_for(APP)
        )
        selects = _memory_selects(store, lambda cand=cand: store.conflicts_for(cand, Edits()))
        assert any("subject_bidx" in s for s, _ in selects), "the slot is found by its subject"
        for sql, params in selects:
            plan = _plan(store, sql, params)
            assert not any(name in plan for name in WALKS_THE_SCOPE), plan
            assert "SCAN memories" not in plan, plan


@pytest.mark.parametrize("listed", [900, 1], ids=["ids-listed", "too-many-to-list"])
def test_the_slot_still_holds_what_it_held(store, monkeypatch, listed):
    """The same members as before: this workspace's and the user-global memories of the
    subject, live ones only, never another workspace's — also when the subject has more rows
    than a statement can list as parameters (a store from before subject indexes)."""
    monkeypatch.setattr("memvet.store.slot_decisions.MAX_LISTED_IDS", listed)
    mine = store.approve(
        store.admit(draft("Module m7 is built with tool7", workspace=APP)).candidate_id,
        actor="dana",
    )
    glob = store.approve(
        store.admit(draft("Module m7 is built with tool8", workspace=None)).candidate_id,
        actor="dana",
    )
    store.approve(
        store.admit(draft("Module m7 is built with tool9", workspace="/elsewhere")).candidate_id,
        actor="dana",
    )
    gone = store.approve(
        store.admit(draft("Module m7 is built with tool6", workspace=APP)).candidate_id,
        actor="dana",
        edits=Edits(conflict="keep_both"),
    )
    store.forget(gone.id, actor="dana")
    cand = store.get_candidate(
        store.admit(draft("Module m7 is built with hammer", workspace=APP)).candidate_id,
        store.reader_for(APP),
    )
    slot = {m.id for m in store.conflicts_for(cand, Edits()).slot}
    assert slot == {mine.id, glob.id}
