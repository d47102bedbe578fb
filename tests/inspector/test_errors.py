"""Error paths: every failure is shown where it happened, and nothing crashes the app."""

from __future__ import annotations

from memvet.inspector.widgets.line_table import LineTable
from memvet.inspector.widgets.queue_table import QueueTable
from memvet.store import IntegrityError

from .conftest import OTHER, app_for, settle


def notes(app) -> list[str]:
    return [n.message for n in app._notifications]


def broken(message: str = "disk I/O error"):
    def fail(*args, **kwargs):
        raise OSError(message)

    return fail


async def test_a_queue_that_cannot_be_read_says_so(seeded, clock, monkeypatch):
    monkeypatch.setattr(seeded, "list_candidates", broken())
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert any("Cannot load the queue: OSError: disk I/O error" in n for n in notes(app))
        assert app.screen.query_one(QueueTable).row_count == 0


async def test_a_candidate_whose_detail_cannot_be_read_says_so(seeded, clock, monkeypatch):
    def tampered(*args, **kwargs):
        raise IntegrityError("a ciphertext failed authentication")

    monkeypatch.setattr(seeded, "candidate_detail", tampered)
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = str(app.screen.query_one("#candidate-body").render())
        assert "Cannot load this candidate: a ciphertext failed authentication" in text


async def test_a_change_feed_that_fails_is_reported_and_the_app_keeps_going(
    seeded, clock, monkeypatch
):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(seeded, "audit_events_after", broken("database is locked"))
        seeded.admit(seeded_draft())
        app.check_store()
        await settle(pilot)
        assert any("cannot read the store" in n for n in notes(app))
        monkeypatch.undo()
        app.check_store()
        await settle(pilot)
        assert app.screen.query_one(QueueTable).row_count == 7


def seeded_draft():
    from .conftest import draft

    return draft("Release notes live in CHANGES.md.", kind="fact")


async def test_undo_that_the_lifecycle_no_longer_allows_reports_why(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        seeded.retire("m_0001", actor=OTHER)  # retired elsewhere before we undo
        await pilot.press("u")
        await settle(pilot)
        assert any("Could not undo" in n for n in notes(app))
        assert seeded.get_memory("m_0001").retired_reason == "operator"


async def test_a_memory_action_the_lifecycle_refuses_is_reported(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        app.screen.query_one(LineTable).move_to_key(history["false_write"])
        await settle(pilot)
        await pilot.press("x", "ctrl+s")  # forget a memory that is already retired
        await settle(pilot)
        assert any("Could not forget" in n for n in notes(app))


async def test_lifting_a_tombstone_someone_else_lifted_is_reported(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        key = app.screen.query_one(LineTable).current_key
        store.lift_tombstone(key, actor=OTHER)
        await pilot.press("l", "ctrl+s")
        await settle(pilot)
        assert any("Could not lift it" in n for n in notes(app))


async def test_recovering_a_lease_settled_elsewhere_is_reported(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        store.recover(history["stale"], "release", actor=OTHER)
        await pilot.press("c")
        await settle(pilot)
        assert any("Could not commit" in n for n in notes(app))
        assert store.get_candidate(history["stale"]).status == "pending"


async def test_an_unexpected_exception_in_a_decision_is_shown_not_raised(
    seeded, clock, monkeypatch
):
    monkeypatch.setattr(seeded, "reject", broken("no space left on device"))
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r", "enter")
        await settle(pilot)
        table = app.screen.query_one(QueueTable)
        assert table.flags["c_0001"] == "error"
        assert "no space left on device" in table.errors["c_0001"]
