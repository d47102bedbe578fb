"""`u` undoes the last action of the screen it is pressed on (or says there is nothing), an
undone approval puts the candidate back with what it superseded, an undone false write or
forget lifts its tombstone; R restores a retired memory; toasts show the committed text."""

from __future__ import annotations

from memvet.inspector.widgets.line_table import LineTable
from memvet.inspector.widgets.queue_table import QueueTable
from memvet.store import Edits

from .conftest import app_for, settle


def messages(app) -> list[str]:
    return [n.message for n in app._notifications]


async def to_memories(pilot, key: str) -> None:
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    pilot.app.screen.query_one(LineTable).move_to_key(key)
    await settle(pilot)


async def test_undo_on_memories_takes_back_the_forget_not_an_earlier_approval(
    history, store, clock
):
    app = app_for(store, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one(QueueTable).move_to_key(history["queue"])
        await settle(pilot)
        await pilot.press("a")  # an approval on the Queue screen
        await settle(pilot)
        approved = "m_" + history["queue"][2:]
        await to_memories(pilot, history["pinned"])
        await pilot.press("x", "ctrl+s")  # forget
        await settle(pilot)
        assert store.get_memory(history["pinned"]).status == "retired"
        await pilot.press("u")
        await settle(pilot, rounds=5)
        assert store.get_memory(history["pinned"]).status == "active"
        assert not [t for t in store.list_tombstones() if t.source_id == history["pinned"]]
        assert store.get_memory(approved).status == "active"  # the Queue's decision stands
        await pilot.press("u")  # nothing more on this screen
        await settle(pilot)
        assert "Nothing to undo on the Memories screen." in messages(app)
        assert store.get_memory(approved).status == "active"
        assert [d.screen for d in app.decisions] == ["queue"]


async def test_undoing_an_approval_returns_it_to_the_queue_with_what_it_superseded(
    history, store, clock
):
    app = app_for(store, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one(QueueTable).move_to_key(history["conflict"])
        await settle(pilot)
        # Supersede the Fly.io memory through the screen's own approval path (the dialog that
        # asks is tested in test_queue_flow.py).
        app.screen.start("approve", [history["conflict"]], edits=Edits(supersede_id=history["old"]))
        await settle(pilot)
        assert store.get_memory(history["old"]).status == "superseded"
        await pilot.press("u")
        await settle(pilot, rounds=5)
        assert store.get_candidate(history["conflict"]).status == "pending"
        old = store.get_memory(history["old"])
        assert old.status == "active" and old.valid_to is None
        assert history["conflict"] in app.screen.query_one(QueueTable).records
        assert any("superseded memory put back" in m for m in messages(app))
    assert store.verify_audit().ok


async def test_undo_with_no_decisions_says_so_and_changes_nothing(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        before = {
            m.id: m.status
            for m in store.list_memories(
                store.reader_for(None, all_scopes=True), statuses=("active", "retired")
            )
        }
        await pilot.press("u")
        await settle(pilot)
        assert "Nothing to undo on the Queue screen." in messages(app)
        after = {
            m.id: m.status
            for m in store.list_memories(
                store.reader_for(None, all_scopes=True), statuses=("active", "retired")
            )
        }
        assert before == after


async def test_restore_key_brings_back_a_false_write_and_lifts_its_tombstone(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_memories(pilot, history["false_write"])
        await pilot.press("R")
        await settle(pilot)
        assert store.get_memory(history["false_write"]).status == "active"
        assert not [t for t in store.list_tombstones() if t.source_id == history["false_write"]]
        await to_memories(pilot, history["pinned"])
        await pilot.press("R")  # not retired: refused with a reason
        await settle(pilot)
        assert any("Only a retired memory" in m for m in messages(app))
        await pilot.press("u")  # takes back the restore: a false write again
        await settle(pilot, rounds=5)
        memory = store.get_memory(history["false_write"])
        assert memory.status == "retired" and memory.retired_reason == "false_write"


async def test_the_toast_shows_the_statement_as_edited(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#edit-statement").value = "Use uv for Python commands."
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert any(m.startswith("Approved: Use uv for Python commands.") for m in messages(app))
        assert app.decisions[-1].statement == "Use uv for Python commands."


async def test_an_old_memory_asks_still_true_and_c_confirms_it(history, store, clock):
    clock.advance(days=120)  # every approval of the history is now unconfirmed for 120 days
    app = app_for(store, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_memories(pilot, history["pinned"])
        screen = app.screen
        assert history["pinned"] in screen.review
        assert screen._row(screen.records[history["pinned"]], clock.now)[1][0] == "still true?"
        await pilot.press("c")
        await settle(pilot)
        assert history["pinned"] not in screen.review
        assert screen._row(screen.records[history["pinned"]], clock.now)[1][0] == "active"
        assert "confirmed" in [t.reason for t in store.transitions(history["pinned"])]
        due = {f.memory.id for f in store.review_due(store.reader_for(None, all_scopes=True))}
        assert history["pinned"] not in due and history["old"] in due
