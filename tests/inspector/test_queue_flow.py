"""Two inspectors on one store, undo, supersede-or-keep-both, filter and sort, live updates
from other writers, and lazy paging."""

from __future__ import annotations

import asyncio
import threading

from memvet.inspector.widgets.queue_table import QueueTable
from memvet.store import open_store

from .conftest import OTHER, app_for, counter_ids, draft, seed, settle


def queue(app) -> QueueTable:
    return app.screen.query_one(QueueTable)


async def test_two_inspectors_approving_at_once_make_exactly_one_memory(seeded, clock, monkeypatch):
    other = open_store(clock=clock, user="dana", new_id=counter_ids())
    first_reserved = threading.Event()
    release_first = threading.Event()
    real_commit = seeded.reservations.commit

    def held_commit(*args, **kwargs):
        first_reserved.set()
        assert release_first.wait(5)
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(seeded.reservations, "commit", held_commit)  # approve calls it
    app_a = app_for(seeded, clock, owner="inspector A")
    app_b = app_for(other, clock, owner="inspector B")
    try:
        async with (
            app_a.run_test(size=(80, 24)) as pilot_a,
            app_b.run_test(size=(80, 24)) as pilot_b,
        ):
            await settle(pilot_a)
            await settle(pilot_b)
            await pilot_a.press("a")
            assert first_reserved.wait(5)  # A holds the lease and is writing
            await pilot_b.press("a")
            await settle(pilot_b)
            t_b = queue(app_b)
            record = t_b.records["c_0001"]  # B says who holds it: in the error, or as ⚑
            shown = t_b.errors.get("c_0001", "") + (record.lease.owner if record.lease else "")
            assert "inspector A" in shown and t_b.mark("c_0001")[0] in ("✗", "⚑")
            release_first.set()
            await settle(pilot_a)
            assert "c_0001" not in queue(app_a).records
            app_b.check_store()  # B learns from the change feed that A committed it
            await settle(pilot_b)
            assert "c_0001" not in t_b.records
        memories = seeded.list_memories(seeded.reader_for(None, all_scopes=True))
        assert [m.candidate_id for m in memories] == ["c_0001"]
        assert [d.candidate_id for d in app_a.decisions] == ["c_0001"] and app_b.decisions == []
    finally:
        other.close()


async def test_the_loser_of_a_finished_race_is_told_it_was_already_decided(seeded, clock):
    other = open_store(clock=clock, user="dana", new_id=counter_ids())
    app = app_for(seeded, clock)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            other.approve("c_0001", actor=OTHER)  # decided elsewhere before our feed noticed
            await pilot.press("a")
            await settle(pilot)
            assert "c_0001" not in queue(app).records
            assert app.decisions == []
        assert len(seeded.list_memories(seeded.reader_for(None, all_scopes=True))) == 1
    finally:
        other.close()


async def test_undo_reject_puts_the_candidate_back_and_lifts_the_tombstone(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("j", "r", "enter")
        await settle(pilot)
        assert "c_0002" not in queue(app).records
        await pilot.press("u")
        await settle(pilot, rounds=5)
        assert seeded.get_candidate("c_0002").status == "pending"
        assert seeded.list_tombstones() == []
        t = queue(app)
        assert [t.key_at(i) for i in range(3)] == ["c_0001", "c_0002", "c_0003"]  # in place


async def test_undo_approve_returns_the_candidate_to_the_queue(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert seeded.get_candidate("c_0001").status == "pending"
        assert (
            seeded.list_memories(
                seeded.reader_for(None, all_scopes=True), statuses=("active", "retired")
            )
            == []
        )
        await pilot.press("u")  # nothing left to undo
        await settle(pilot)
        assert app.decisions == []


async def test_approving_a_conflict_asks_supersede_or_keep_both(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        queue(app).move_to_key(history["conflict"])
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "SupersedeDialog"
        await pilot.press("enter")  # the first choice: supersede the Fly.io memory
        await settle(pilot)
    old = store.get_memory(history["old"])
    assert old.status == "superseded" and old.superseded_by_id == "m_" + history["conflict"][2:]


async def test_s_keep_both_leaves_the_old_memory_active(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        queue(app).move_to_key(history["conflict"])
        await settle(pilot)
        await pilot.press("s", "down", "enter")
        await settle(pilot)
    assert store.get_memory(history["old"]).status == "active"
    assert store.get_candidate(history["conflict"]).status == "committed"


async def test_s_without_a_conflict_says_so(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "QueueScreen"


async def test_filter_by_host_kind_workspace_and_text(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"host:codex", "enter")
        await settle(pilot)
        assert set(queue(app).records) == {"c_0003", "c_0004"}
        assert app.focused is queue(app)  # back on the table, ready for a/r
        await pilot.press("slash")
        app.screen.query_one("#queue-filter-input").value = "ws:global commit"
        await pilot.press("enter")
        await settle(pilot)
        assert set(queue(app).records) == {"c_0003", "c_0006"}
        await pilot.press("slash")
        app.screen.query_one("#queue-filter-input").value = "kind:nonsense"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.query_one("#queue-filter-input").display  # still open: bad kind
        await pilot.press("escape", "escape")  # close the input, then clear the filter
        await settle(pilot)
        assert len(queue(app).records) == 6


async def test_sort_cycles_orders_and_headers_sort_too(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")  # newest first
        await settle(pilot)
        assert queue(app).key_at(0) == "c_0006"
        await pilot.press("o")  # confidence, highest first
        await settle(pilot)
        assert queue(app).key_at(0) == "c_0001"
        assert queue(app).key_at(5) == "c_0006"
        await pilot.click("#queue-table", offset=(65, 0))  # the "conf" header: lowest first
        await settle(pilot)
        assert queue(app).key_at(0) == "c_0006"


async def test_new_candidates_appear_live_and_merges_update_in_place(seeded, clock):
    daemon = open_store(clock=clock, user="dana", new_id=lambda p: f"{p}9{len(p)}x")
    app = app_for(seeded, clock)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            pages = app.screen.generation
            daemon.admit(draft("Deploys go out on Tuesdays only.", kind="constraint"))
            # Said again on another line (the same line read again would be absorbed: issue 9).
            daemon.admit(draft("Use uv for every Python command in this repo, never pip.", line=13))
            app.check_store()
            await settle(pilot, rounds=5)
            t = queue(app)
            assert "c_92x" in t.records and t.key_at(6) == "c_92x"
            assert t.records["c_0001"].evidence_count == 2
            assert app.screen.generation == pages  # no reload: rows changed in place
            daemon.reject("c_0003", actor=OTHER)
            app.check_store()
            await settle(pilot, rounds=5)
            assert "c_0003" not in t.records
            assert "6 queued" in str(app.screen.query_one(".screen-status").render())
    finally:
        daemon.close()


async def settle_until(pilot, done, rounds: int = 20) -> None:
    """Settle until `done()` (a loaded machine may need more rounds for a chain of pages)."""
    for _ in range(rounds):
        if done():
            return
        await settle(pilot)


async def test_pages_load_as_the_cursor_nears_the_end(store, clock):
    seed(store, clock, [draft(f"Statement number {i} about widgets.") for i in range(120)])
    app = app_for(store, clock, page_size=50)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        t = queue(app)
        assert t.row_count == 50
        await pilot.press("G")
        await settle_until(pilot, lambda: t.row_count == 100)
        assert t.row_count == 100
        await pilot.press("G")
        await settle_until(pilot, lambda: t.row_count == 120 and app.screen.exhausted)
        assert t.row_count == 120 and app.screen.exhausted
        await pilot.press("g", "a")
        await settle(pilot)
        assert t.row_count == 119 and app.screen.generation == 1  # removed in place


async def test_the_table_keeps_its_focus_and_its_keys_while_a_page_is_loading(
    store, clock, monkeypatch
):
    """A slow page read (a loaded machine) must not cover the screen: the queue's own "a page is
    being read" flag once was Textual's `loading`, which put a loading indicator over the whole
    screen, hid the table (its focus went to the detail pane) and ignored keys meanwhile."""
    seed(store, clock, [draft(f"Statement number {i} about widgets.") for i in range(120)])
    reading, release = threading.Event(), threading.Event()
    real_list = store.list_candidates

    def slow_list(*args, **kwargs):
        if kwargs.get("after") is not None:  # the later pages: read while the user keeps going
            reading.set()
            assert release.wait(10)
        return real_list(*args, **kwargs)

    monkeypatch.setattr(store, "list_candidates", slow_list)
    app = app_for(store, clock, page_size=50)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        t = queue(app)
        await pilot.press("G")  # near the end: the next page is being read
        assert await asyncio.to_thread(reading.wait, 10)
        for _ in range(3):
            await pilot.pause(0.05)  # frames drawn while the read is slow
        covered = app.screen._cover_widget is not None
        focused = app.focused
        await pilot.press("k")
        moved = t.cursor_row
        release.set()
        await settle_until(pilot, lambda: t.row_count == 100)
        assert not covered and focused is t
        assert moved == 48  # the key reached the table while the page was read
        await pilot.press("G")
        await settle_until(pilot, lambda: t.row_count == 120 and app.screen.exhausted)
        assert app.focused is t and t.cursor_row == 99


async def test_our_own_decisions_do_not_recount_the_queue_but_other_writers_do(
    seeded, clock, monkeypatch
):
    """Counting the queue reads every pending row (seconds at 500k): after our own approval the
    total is known without it (one less); a change by another writer still recounts."""
    counted: list[int] = []
    real_count = seeded.count_candidates

    def counting(*args, **kwargs):
        counted.append(1)
        return real_count(*args, **kwargs)

    monkeypatch.setattr(seeded, "count_candidates", counting)
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        status = app.screen.query_one(".screen-status")
        assert "6 queued" in str(status.render()) and len(counted) == 1
        await pilot.press("a", "r", "enter")
        await settle(pilot)
        app.check_store()  # the feed sees our decisions' events
        await settle(pilot)
        assert len(counted) == 1 and "4 queued" in str(status.render())
        assert seeded.get_candidate("c_0001").status == "committed"
        seeded.admit(draft("Pin the Node version in .nvmrc."), actor="someone else")
        app.check_store()
        await settle(pilot)
        assert len(counted) == 2 and "5 queued" in str(status.render())


async def test_a_conflict_is_never_approved_unasked_even_before_its_detail_loaded(
    history, store, clock
):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        t = queue(app)
        t.move_to_key(history["conflict"])
        await settle(pilot)
        app.screen.details.clear()  # as if `a` came before the detail was read
        app.screen.shown_key = None
        await pilot.press("a")
        await settle(pilot)
        assert t.flags[history["conflict"]] == "error"
        assert "press s" in t.errors[history["conflict"]]
        assert store.get_candidate(history["conflict"]).status == "pending"
        assert store.get_memory(history["old"]).status == "active"
        t.move_to_key(history["conflict"])
        await settle(pilot)
        await pilot.press("s", "enter")  # the dialog can ask at once: the detail came back
        await settle(pilot)
        assert store.get_memory(history["old"]).status == "superseded"
