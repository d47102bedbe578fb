"""Small things a newcomer hit (issue 13): sort keeps focus on the table, the stale hint names
the right key, the edit dialog refuses "valid until" before "valid from", and the command
palette lists the app's actions and finds candidates and memories."""

from __future__ import annotations

from memvet.inspector.widgets.candidate_view import RECOVERY_KEY
from memvet.inspector.widgets.queue_table import QueueTable

from .conftest import app_for, settle


async def test_sorting_again_and_again_keeps_focus_on_the_table(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(QueueTable)
        assert app.focused is table
        for _ in range(4):
            await pilot.press("o")
            await settle(pilot)
            assert app.focused is table


def test_the_stale_hint_names_the_key_that_opens_recovery():
    from memvet.inspector.app import ReviewApp

    binding = next(b for b in ReviewApp.BINDINGS if b.id == "app-recovery")
    assert binding.key == str(RECOVERY_KEY) and "recovery" in binding.action


async def test_valid_until_before_an_implicit_valid_from_is_refused(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#edit-to").value = "2026-01-01"  # before the candidate was said
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "valid until must be after valid from" in str(
            app.screen.query_one("#edit-error").render()
        )
        app.screen.query_one("#edit-from").value = "2026-03-01T10:00Z"
        app.screen.query_one("#edit-to").value = "2026-03-01T09:00Z"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "valid until must be after valid from" in str(
            app.screen.query_one("#edit-error").render()
        )
        await pilot.press("escape")
        await settle(pilot)
    assert seeded.get_candidate("c_0001").status == "pending"


async def test_the_palette_lists_app_actions_on_every_screen(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for key in ("1", "2"):
            await pilot.press(key)
            await settle(pilot)
            titles = {c.title for c in app.get_system_commands(app.screen)}
            assert {
                "Undo",
                "Help",
                "Queue",
                "Memories",
                "Recovery",
                "Tombstones",
                "Audit",
            } <= titles


async def test_the_palette_finds_a_candidate_and_opens_it(seeded, clock):
    from textual.command import CommandPalette
    from textual.widgets import OptionList

    app = app_for(seeded, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"docker compose")
        await pilot.pause(0.5)
        await settle(pilot)
        options = app.screen.query_one(OptionList)
        texts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any("docker compose stack" in t for t in texts), texts
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.id == "queue"
        assert app.screen.query_one(QueueTable).current_key == "c_0002"
