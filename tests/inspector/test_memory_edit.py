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
        assert got.state == "VERIFIED" and got.memories[0].id == pinned
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


async def test_an_edit_into_a_rival_opens_the_supersede_dialog_and_u_puts_it_back(
    history, store, clock
):
    pinned, old = history["pinned"], history["old"]
    before = store.get_memory(pinned)
    rival = "We deploy shop-api to Render."

    async def edit_into_rival(pilot) -> None:
        await to_memory(pilot, pinned)
        await pilot.press("e")
        await pilot.pause()
        pilot.app.screen.query_one("#edit-statement").value = rival
        pilot.app.screen.query_one("#edit-kind").value = "decision"
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=5)

    app = app_for(store, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await edit_into_rival(pilot)
        dialog = app.screen
        assert dialog.__class__.__name__ == "EditSupersedeDialog"
        assert old in {m.id for m in dialog.memories()}
        assert dialog.selected() == (old,)  # the slot's rival, pre-selected
        await pilot.press("escape")  # not now: nothing is written
        await settle(pilot)
        assert store.get_memory(pinned).statement == before.statement
        assert store.get_memory(old).status == "active"
        await edit_into_rival(pilot)
        await pilot.press("enter")  # supersede the selected memories
        await settle(pilot, rounds=5)
        assert store.get_memory(pinned).statement == rival
        assert store.get_memory(old).status == "superseded"
        assert store.get_memory(old).superseded_by_id == pinned
        assert any(m.startswith("Edit: We deploy shop-api to Render") for m in messages(app))
        await pilot.press("u")
        await settle(pilot, rounds=5)
        assert store.get_memory(pinned).statement == before.statement
        assert store.get_memory(old).status == "active"
        assert any(
            m.startswith("Edit undone: it says again:") and "1 superseded memory put back" in m
            for m in messages(app)
        )
    assert store.verify_audit().ok
