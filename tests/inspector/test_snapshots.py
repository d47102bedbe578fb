"""Pixels: every screen and the key states, at fixed sizes, on a seeded store with a fixed clock,
fixed ids and fixed names (no tmp paths, pids or wall-clock time reach the screen).

Accept a change only after reading snapshot_report.html, then `pytest --snapshot-update`."""

from __future__ import annotations

from memvet.inspector.app import make_app
from memvet.inspector.widgets.queue_table import QueueTable
from memvet.store import SchemaMismatchError

from .conftest import app_for, settle


def at(size: tuple[int, int] = (80, 24)) -> dict:
    return {"terminal_size": size}


def keys(*pressed: str, move_to: str | None = None):
    async def run_before(pilot) -> None:
        await settle(pilot)
        if move_to is not None:
            pilot.app.screen.query_one(QueueTable).move_to_key(move_to)
            await settle(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run_before


class TestQueue:
    def test_queue_80x24(self, snap_compare, seeded, clock):
        """The queue at the smallest supported size: table over detail, every key shown."""
        assert snap_compare(app_for(seeded, clock), run_before=keys(), **at())

    def test_queue_wide(self, snap_compare, seeded, clock):
        """From 140 columns the detail sits beside the table."""
        assert snap_compare(app_for(seeded, clock), run_before=keys(), **at((160, 40)))

    def test_queue_light_theme(self, snap_compare, seeded, clock):
        """The light theme: marks and states stay readable."""
        app = app_for(seeded, clock, theme="textual-light")
        assert snap_compare(app, run_before=keys("space", "space"), **at())

    def test_empty_queue(self, snap_compare, store, clock):
        """Nothing pending: the detail says where candidates come from."""
        assert snap_compare(app_for(store, clock), run_before=keys(), **at())

    def test_conflict(self, snap_compare, history, store, clock):
        """A candidate that conflicts with an active memory, and the stale row (◷) above it."""
        app = app_for(store, clock)
        assert snap_compare(app, run_before=keys(move_to=history["conflict"]), **at((100, 30)))

    def test_stale_reservation_in_queue(self, snap_compare, history, store, clock):
        """A stale reservation in the queue points to Recovery."""
        app = app_for(store, clock)
        assert snap_compare(app, run_before=keys(move_to=history["stale"]), **at())

    def test_error_on_approve(self, snap_compare, seeded, clock, monkeypatch):
        """A commit that fails: the reservation is released and the row shows the error."""

        def broken_commit(*args, **kwargs):
            raise OSError("disk I/O error")

        monkeypatch.setattr(seeded.reservations, "commit", broken_commit)
        assert snap_compare(app_for(seeded, clock), run_before=keys("a", "k"), **at())

    def test_filter(self, snap_compare, seeded, clock):
        """A filter line: host and text."""
        app = app_for(seeded, clock)
        assert snap_compare(app, run_before=keys("slash", *"host:codex main", "enter"), **at())


class TestDialogs:
    def test_supersede_dialog(self, snap_compare, history, store, clock):
        """a on a conflicting candidate asks: supersede the memory, or keep both."""
        app = app_for(store, clock)
        assert snap_compare(app, run_before=keys("a", move_to=history["conflict"]), **at())

    def test_edit_dialog(self, snap_compare, seeded, clock):
        """e: statement, kind, scope and validity before approving."""
        assert snap_compare(app_for(seeded, clock), run_before=keys("e"), **at())

    def test_reject_dialog(self, snap_compare, seeded, clock):
        """r asks for an optional reason."""
        assert snap_compare(app_for(seeded, clock), run_before=keys("r"), **at())

    def test_help(self, snap_compare, seeded, clock):
        """?: every key with its binding id."""
        assert snap_compare(app_for(seeded, clock), run_before=keys("question_mark"), **at())


class TestOtherScreens:
    def test_memories(self, snap_compare, history, store, clock):
        """Every status, with the selected memory's history."""
        assert snap_compare(app_for(store, clock), run_before=keys("2"), **at())

    def test_memories_as_of(self, snap_compare, history, store, clock):
        """The memories valid at 10:00."""

        def run_before(pilot):
            async def go() -> None:
                await keys("2", "t")(pilot)
                pilot.app.screen.query_one("#asof-time").value = "2026-03-01T10:00Z"
                await pilot.press("enter")
                await settle(pilot)

            return go()

        assert snap_compare(app_for(store, clock), run_before=run_before, **at())

    def test_recovery(self, snap_compare, history, store, clock):
        """A stale reservation: who held it, since when, and commit/release/reject."""
        assert snap_compare(app_for(store, clock), run_before=keys("3"), **at())

    def test_tombstones(self, snap_compare, history, store, clock):
        assert snap_compare(app_for(store, clock), run_before=keys("4"), **at())

    def test_audit(self, snap_compare, history, store, clock):
        assert snap_compare(app_for(store, clock), run_before=keys("5"), **at())

    def test_store_error(self, snap_compare):
        """The store needs migrating: say what to run, not a traceback."""
        error = SchemaMismatchError(
            "the store is at schema version 1 and this memvet expects 2; run `memvet migrate` "
            "(or start the daemon, which upgrades it)"
        )
        app = make_app(None, error=error, theme="textual-dark")
        assert snap_compare(app, **at())
