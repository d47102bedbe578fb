"""`e` on the Memories screen edits an approved memory (store/memory_edit.py): the dialog is
prefilled, refuses "valid until" before "valid from" and an edit that changes nothing, the toast
shows the text as saved, `u` puts the earlier version back, and an inactive memory is refused."""

from __future__ import annotations

from memvet.inspector.widgets.line_table import LineTable
from memvet.store.recall import recall

from .conftest import SHOP, app_for, settle


def messages(app) -> list[str]:
    return [n.message for n in app._notifications]


async def to_memory(pilot, key: str) -> None:
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    pilot.app.screen.query_one(LineTable).move_to_key(key)
    await settle(pilot)


async def test_e_edits_the_memory_and_u_takes_the_edit_back(history, store, clock):
    pinned = history["pinned"]
    before = store.get_memory(pinned)
    app = app_for(store, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_memory(pilot, pinned)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#edit-statement").value == before.statement
        assert dialog.query_one("#edit-subject").value == before.subject
        dialog.query_one("#edit-to").value = "2026-02-01"  # before it was said
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "valid until must be after valid from" in str(
            dialog.query_one("#edit-error").render()
        )
        dialog.query_one("#edit-to").value = ""
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "nothing changed" in str(dialog.query_one("#edit-error").render())
        dialog.query_one("#edit-statement").value = "Format Python with black, line length 100."
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=5)
        saved = store.get_memory(pinned)
        assert saved.statement == "Format Python with black, line length 100."
        assert saved.valid_from == before.valid_from and saved.status == "active"
        assert any(m.startswith("Edit: Format Python with black") for m in messages(app))
        assert app.screen.records[pinned].statement == saved.statement  # the row shows it
        got = recall(store, "how do I format python with black?", workspace=SHOP)
        assert got["state"] == "VERIFIED" and got["memories"][0]["id"] == pinned
        await pilot.press("u")
        await settle(pilot, rounds=5)
        assert store.get_memory(pinned).statement == before.statement
        assert any(m == f"Edit undone: it says again: {before.statement}" for m in messages(app))
        await pilot.press("u")
        await settle(pilot)
        assert "Nothing to undo on the Memories screen." in messages(app)
    assert store.verify_audit().ok


async def test_an_inactive_memory_is_not_edited(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_memory(pilot, history["false_write"])
        await pilot.press("e")
        await settle(pilot)
        assert any("Only an active memory is edited" in m for m in messages(app))
        assert not app.decisions
