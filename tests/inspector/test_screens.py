"""Memories, Recovery, Tombstones, Audit, Help, the command palette and the store error screen."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from memvet.inspector.app import make_app
from memvet.inspector.widgets.line_table import LineTable
from memvet.store import SchemaMismatchError
from memvet.store.audit import T as AUDIT
from store_internals import engine_of

from .conftest import OTHER, app_for, draft, settle


def rows(app) -> list[str]:
    t = app.screen.query_one(LineTable)
    return [t.key_at(i) for i in range(t.row_count)]


def body(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def open_screen(pilot, key: str) -> None:
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)


async def test_memories_lists_every_status_with_history(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "2")
        assert set(rows(app)) == {history[k] for k in ("old", "pinned", "false_write", "disputed")}
        app.screen.query_one(LineTable).move_to_key(history["false_write"])
        await settle(pilot)
        text = body(app, "#memory-body")
        assert "retired" in text and "history (2)" in text and "false_write" in text
        await pilot.press("v")  # only active ones
        await settle(pilot)
        assert set(rows(app)) == {history["old"], history["pinned"]}


async def test_false_write_confirmed_retires_and_tombstones(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "2")
        app.screen.query_one(LineTable).move_to_key(history["pinned"])
        await settle(pilot)
        await pilot.press("f")
        await pilot.pause()
        await pilot.press(*"wrong", "enter")
        await settle(pilot)
    memory = store.get_memory(history["pinned"])
    assert memory.status == "retired" and memory.retired_reason == "false_write"
    assert any(t.source_id == history["pinned"] for t in store.list_tombstones())


async def test_false_write_cancelled_changes_nothing(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "2")
        app.screen.query_one(LineTable).move_to_key(history["pinned"])
        await settle(pilot)
        await pilot.press("f", "escape")
        await settle(pilot)
    assert store.get_memory(history["pinned"]).status == "active"


async def test_forget_asks_first_then_retires(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "2")
        app.screen.query_one(LineTable).move_to_key(history["pinned"])
        await settle(pilot)
        await pilot.press("x", "enter")  # the dialog focuses Cancel: enter keeps the memory
        await settle(pilot)
        assert store.get_memory(history["pinned"]).status == "active"
        await pilot.press("x", "ctrl+s")
        await settle(pilot)
    memory = store.get_memory(history["pinned"])
    assert memory.status == "retired" and memory.retired_reason == "forget"


async def test_d_disputes_and_resolves(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "2")
        table = app.screen.query_one(LineTable)
        table.move_to_key(history["pinned"])
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert store.get_memory(history["pinned"]).status == "disputed"
        await pilot.press("d")
        await settle(pilot)
        assert store.get_memory(history["pinned"]).status == "active"
        table.move_to_key(history["false_write"])
        await settle(pilot)
        await pilot.press("d")  # a retired memory cannot be disputed: nothing happens
        await settle(pilot)
        assert store.get_memory(history["false_write"]).status == "retired"


async def test_as_of_a_past_time(history, store, clock):
    # Valid time is when the user said it: the seeded statements were said at 08:55; this one at 11:00.
    said_late = draft("Cache builds in the CI runner.", kind="procedure")
    said_late = replace(
        said_late,
        evidence=replace(
            said_late.evidence, line=99, timestamp=datetime(2026, 3, 1, 11, 0, tzinfo=UTC)
        ),
    )
    late = store.approve(store.admit(said_late).candidate_id, actor=OTHER).id
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "2")
        now_rows = rows(app)
        assert late in now_rows and history["old"] in now_rows
        await pilot.press("t")
        await pilot.pause()
        app.screen.query_one("#asof-time").value = "2026-03-01T10:00Z"
        await pilot.press("enter")
        await settle(pilot)
        past = rows(app)
        assert history["old"] in past and late not in past  # said at 11:00: not yet valid at 10:00
        assert history["false_write"] not in past  # a false write never was valid
        assert "valid as of 2026-03-01 10:00Z" in body(app, ".screen-status")
        await pilot.press("t")
        await pilot.pause()
        app.screen.query_one("#asof-time").value = ""
        await pilot.press("enter")
        await settle(pilot)
        assert rows(app) == now_rows


async def test_recovery_commits_releases_and_rejects_stale_leases(history, store, clock):
    for action, expected in (("c", "committed"), ("l", "pending"), ("r", "rejected")):
        cid = history["stale"]
        if store.get_candidate(cid).status != "stale":  # make a fresh stale lease each round
            cid = store.admit(draft(f"Stale candidate for {action}.")).candidate_id
            store.reserve(cid, owner=OTHER)
            store.mark_stale_leases(clock.now + timedelta(minutes=10))
        app = app_for(store, clock)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_screen(pilot, "3")
            assert rows(app) == [cid]
            assert OTHER in body(app, "#candidate-body")
            await pilot.press(action)
            if action == "r":
                await pilot.pause()
                await pilot.press("ctrl+s")
            await settle(pilot)
            assert store.get_candidate(cid).status == expected
            assert rows(app) == []


async def test_recovery_refuses_a_lease_that_is_still_held(seeded, clock):
    seeded.reserve("c_0001", owner=OTHER)
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "3")
        assert rows(app) == ["c_0001"]
        await pilot.press("c")
        await settle(pilot)
        assert seeded.get_candidate("c_0001").status == "reserved"


async def test_tombstones_lift_and_show_lifted(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "4")
        assert len(rows(app)) == 2
        await pilot.press("l", "ctrl+s")
        await settle(pilot)
        assert len(rows(app)) == 1
        assert len(store.list_tombstones()) == 1
        await pilot.press("h")
        await settle(pilot)
        assert len(rows(app)) == 2


async def test_audit_shows_chain_status_and_recent_events(history, store, clock):
    app = app_for(store, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "5")
        assert "chain intact" in body(app, "#audit-chain")
        assert rows(app)[0] == str(store.audit_head())
        with engine_of(store).begin() as conn:  # someone edits the ledger behind our back
            conn.execute(sa.update(AUDIT).where(AUDIT.c.seq == 3).values(actor="mallory"))
        await pilot.press("v")
        await settle(pilot)
        assert "chain broken at event 3" in body(app, "#audit-chain")


async def test_help_lists_every_binding_with_its_id(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = str(app.screen.query_one("#help-body Static").render())
        for binding_id in (
            "queue-approve",
            "memories-false-write",
            "recovery-commit",
            "tombstones-lift",
            "audit-verify",
            "app-undo",
            "table-down",
        ):
            assert binding_id in text
        await pilot.press("escape")
        assert app.screen.id == "queue"
        await pilot.press("question_mark", "question_mark")
        assert app.screen.id == "queue"


async def test_the_command_palette_offers_every_action_of_the_screen(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {
            "Approve",
            "Edit",
            "Reject",
            "Select",
            "Supersede",
            "Filter",
            "Undo",
            "Quit",
            "Memories",
            "Help",
        } <= titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "CommandPalette"
        await pilot.press("escape")
        await pilot.pause()
        command = next(c for c in app.get_system_commands(app.screen) if c.title == "Approve")
        command.callback()
        await settle(pilot)
        assert seeded.get_candidate("c_0001").status == "committed"


def test_every_binding_of_ours_has_a_unique_id():
    from memvet.inspector.screens.help import _sections

    ids = [b.id for _, bindings in _sections() for b in bindings]
    assert all(ids) and len(ids) == len(set(ids))


async def test_every_shown_binding_has_an_id_and_keys_can_be_remapped(seeded, clock):
    app = app_for(seeded, clock, keymap={"queue-approve": "y"})
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _, binding, *_ in app.screen.active_bindings.values():
            assert binding.id or not binding.show, binding
        await pilot.press("y")
        await settle(pilot)
        assert seeded.get_candidate("c_0001").status == "committed"


async def test_number_keys_switch_screens_and_q_quits(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key, screen in (
            ("2", "memories"),
            ("3", "recovery"),
            ("4", "tombstones"),
            ("5", "audit"),
            ("1", "queue"),
        ):
            await pilot.press(key)
            assert app.screen.id == screen
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_a_store_that_needs_migrating_gets_a_screen_saying_what_to_run():
    error = SchemaMismatchError(
        "the store is at schema version 1 and this memvet expects 2; run `memvet migrate`"
    )
    app = make_app(None, error=error)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = " ".join(str(s.render()) for s in app.screen.query("Static"))
        assert "memvet cannot open the store" in text and "memvet migrate" in text
        await pilot.press("2", "a")  # nothing else works without a store
        assert app.screen.id == "store-error"
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 3
