"""Recall finds the candidates it weighs by status, never by reading every committed one (issue
15): once the daemon has refreshed the planner's statistics (Store.optimize, its ANALYZE),
SQLite preferred walking the list-order index, or the whole table, over the status index: at
10k imported memories (10k committed candidates) ~25 ms of every `memvet recall`."""

from __future__ import annotations

import pytest
from memvet.store import fast_keys as fk
from memvet.store.recall_read import RecallSource
from memvet.store.records import Reader

from .conftest import draft

APP = "/home/dana/src/app"


@pytest.mark.parametrize("analyzed", [False, True], ids=["fresh", "after-analyze"])
def test_recalled_candidates_are_found_by_status(store, analyzed):
    store.import_memories(
        [draft(f"Module {i} keeps fixtures in testdata/{i}", workspace=APP) for i in range(300)],
        actor="dana",
    )
    pending = store.admit(draft("We might move deploys to Render", workspace=APP)).candidate_id
    if analyzed:
        store.optimize()
    conn, cipher = fk.open_direct(str(store.home))
    try:
        seen: list[str] = []
        conn.set_trace_callback(seen.append)
        source = RecallSource(conn, cipher, "dana")
        found = source.recalled_candidates(Reader(user="dana", workspace=APP), store.now())
        conn.set_trace_callback(None)
        assert [c.id for c in found] == [pending]
        (statement,) = [s for s in seen if "FROM candidates" in s]
        plan = " | ".join(r[-1] for r in conn.execute(f"EXPLAIN QUERY PLAN {statement}"))
    finally:
        conn.close()
    assert "USING INDEX ix_candidates_status" in plan, plan
    assert "SCAN candidates" not in plan, plan
