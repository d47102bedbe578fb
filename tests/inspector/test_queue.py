"""The queue: paging, the detail pane, approve/reject/edit/select, and the error paths."""

from __future__ import annotations

import threading
from dataclasses import replace

from memvet.inspector.widgets.candidate_view import CandidateView
from memvet.inspector.widgets.queue_table import QueueTable
from memvet.store import EXCERPT_LIMIT, Evidence

from .conftest import OTHER, app_for, settle


def table(app) -> QueueTable:
    return app.screen.query_one(QueueTable)


def detail_text(app) -> str:
    return str(app.screen.query_one("#candidate-body").render())


async def test_first_page_lists_pending_candidates_with_detail(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        t = table(app)
        assert t.row_count == 6
        assert t.current_key == "c_0001"
        assert "Use uv for every Python command" in detail_text(app)
        assert "evidence (1)" in detail_text(app)
        assert "6 queued" in str(app.screen.query_one(".screen-status").render())


async def test_approve_marks_the_row_moves_on_and_removes_it_only_when_the_store_confirms(
    seeded, clock, monkeypatch
):
    gate = threading.Event()
    real = seeded.approve

    def slow_approve(*args, **kwargs):
        assert gate.wait(5)
        return real(*args, **kwargs)

    monkeypatch.setattr(seeded, "approve", slow_approve)
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        t = table(app)
        assert t.flags["c_0001"] == "approving"
        assert t.current_key == "c_0002"  # the cursor moved on at once
        assert "c_0001" in t.records  # not shown as done before the store answered
        assert seeded.count_memories(seeded.reader_for(None, all_scopes=True)) == {}
        gate.set()
        await settle(pilot)
        assert "c_0001" not in t.records
        assert t.current_key == "c_0002"
        assert seeded.get_memory("m_0001").statement.startswith("Use uv")
        assert [d.action for d in app.decisions] == ["approve"]


async def test_a_failed_commit_releases_the_reservation_and_shows_the_error(
    seeded, clock, monkeypatch
):
    def broken_commit(*args, **kwargs):
        raise OSError("disk I/O error")

    monkeypatch.setattr(seeded.reservations, "commit", broken_commit)
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        t = table(app)
        assert t.flags["c_0001"] == "error"
        assert "disk I/O error" in t.errors["c_0001"]
        assert "released" in t.errors["c_0001"]
        cand = seeded.get_candidate("c_0001")
        assert cand.status == "pending" and cand.last_error == "OSError"
        await pilot.press("k")
        await settle(pilot)
        assert "✗ approve failed" in detail_text(app)
        assert app.decisions == []


async def test_a_candidate_held_elsewhere_says_who_holds_it(seeded, clock):
    seeded.reserve("c_0001", owner=OTHER)
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        t = table(app)
        assert "⚑ held by inspector pid 4242 on laptop" in detail_text(app)
        await pilot.press("a")
        await settle(pilot)
        assert t.flags["c_0001"] == "error"
        assert OTHER in t.errors["c_0001"]
        assert seeded.get_candidate("c_0001").status == "reserved"


async def test_reject_asks_for_a_reason_and_tombstones(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"noise", "enter")
        await settle(pilot)
        assert "c_0001" not in table(app).records
        assert seeded.get_candidate("c_0001").status == "rejected"
        assert seeded.list_tombstones()[0].source_id == "c_0001"


async def test_reject_cancelled_changes_nothing(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r", "escape")
        await settle(pilot)
        assert "c_0001" in table(app).records
        assert seeded.get_candidate("c_0001").status == "pending"


async def test_space_selects_several_and_a_approves_them_all(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "j", "space")
        t = table(app)
        assert t.selected == {"c_0001", "c_0002", "c_0004"}
        await pilot.press("a")
        await settle(pilot)
        assert set(t.records) == {"c_0003", "c_0005", "c_0006"}
        assert {seeded.get_candidate(c).status for c in ("c_0001", "c_0002", "c_0004")} == {
            "committed"
        }


async def test_space_then_r_rejects_the_selection(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "r")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert {seeded.get_candidate(c).status for c in ("c_0001", "c_0002")} == {"rejected"}


async def test_escape_clears_the_selection(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "escape")
        assert table(app).selected == set()


async def test_edit_then_approve_applies_statement_kind_and_scope(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("#edit-statement").value = "Use uv for Python commands."
        dialog.query_one("#edit-kind").value = "constraint"
        dialog.query_one("#edit-global").value = True
        dialog.query_one("#edit-to").value = "2026-12-31"
        await pilot.press("ctrl+s")
        await settle(pilot)
        memory = seeded.get_memory("m_0001")
        assert memory.statement == "Use uv for Python commands."
        assert memory.kind == "constraint"
        assert memory.scope.workspace is None
        assert memory.valid_to is not None and memory.valid_to.year == 2026


async def test_edit_refuses_an_empty_statement_and_can_be_cancelled(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#edit-statement").value = "  "
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "empty" in str(app.screen.query_one("#edit-error").render())
        await pilot.press("escape")
        await settle(pilot)
        assert seeded.get_candidate("c_0001").status == "pending"


async def test_excerpts_are_never_longer_than_the_limit(seeded, clock, monkeypatch):
    real = seeded.candidate_detail

    def long_excerpt(cid, *args, **kwargs):
        detail = real(cid, *args, **kwargs)
        ev = Evidence("/x.jsonl", 1, None, None, "y" * (EXCERPT_LIMIT * 3))
        return replace(detail, evidence=(ev,))

    monkeypatch.setattr(seeded, "candidate_detail", long_excerpt)
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = detail_text(app)
        longest = max(len(run) for run in text.replace("\n", " ").split(" "))
        assert "y" * 10 in text
        assert longest <= EXCERPT_LIMIT + 2  # the quotes around it


async def test_the_detail_pane_can_be_hidden_and_focused(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("tab")
        assert isinstance(app.focused, CandidateView)
        await pilot.press("tab")
        assert isinstance(app.focused, QueueTable)
        await pilot.press("z")
        assert app.screen.has_class("-no-detail")
        assert not app.screen.query_one(CandidateView).display


async def test_movement_keys(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        t = table(app)
        await pilot.press("j", "j")
        assert t.cursor_row == 2
        await pilot.press("k")
        assert t.cursor_row == 1
        await pilot.press("G")
        assert t.cursor_row == 5
        await pilot.press("g")
        assert t.cursor_row == 0
        await pilot.press("down")
        assert t.cursor_row == 1
        await settle(pilot)
        assert "Integration tests" in detail_text(app)
        await pilot.press("end")
        assert t.cursor_row == 5
        await pilot.press("home", "pagedown")
        assert t.cursor_row == 5  # fewer rows than a page
        await pilot.press("pageup", "up")
        assert t.cursor_row == 0
        await pilot.click("#queue-table", offset=(10, 3))  # the header is line 0
        assert t.cursor_row == 2
