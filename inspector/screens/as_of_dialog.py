"""Look at memories as of a past time: what was valid then (valid time) or what the store said
then (record time). Dismisses with (time or None for now, by record time?) or None."""

from __future__ import annotations

from datetime import datetime

from memvet.inspector.formatting import parse_when
from memvet.inspector.widgets.key_footer import KeyFooter
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RadioButton, RadioSet, Static

AsOf = tuple[datetime | None, bool]


class AsOfDialog(ModalScreen[AsOf | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="asof-cancel"),
        Binding("ctrl+s", "apply", "Show", id="asof-apply"),
    ]

    def __init__(self, now: datetime, current: AsOf) -> None:
        super().__init__(classes="dialog-screen")
        self.now = now
        self.current = current

    def compose(self) -> ComposeResult:
        at, recorded = self.current
        with Vertical(classes="dialog"):
            yield Static("Memories as of…", classes="dialog-title")
            yield Input(
                at.isoformat() if at else "",
                id="asof-time",
                compact=True,
                placeholder="2026-03-01, 2026-03-01T12:00Z or 3d; blank: now",
            )
            with RadioSet(id="asof-axis", compact=True):
                yield RadioButton("valid then (what was true)", value=not recorded, id="asof-valid")
                yield RadioButton(
                    "recorded then (what the store said)", value=recorded, id="asof-recorded"
                )
            yield Static("", id="asof-error", classes="dialog-error")
            yield Static("enter or ctrl+s: show · esc: cancel", classes="dialog-hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def action_apply(self) -> None:
        text = self.query_one(Input).value.strip()
        recorded = self.query_one("#asof-recorded", RadioButton).value
        if not text:
            self.dismiss((None, False))
            return
        try:
            self.dismiss((parse_when(text, self.now), recorded))
        except ValueError as exc:
            self.query_one("#asof-error", Static).update(str(exc))

    def action_cancel(self) -> None:
        self.dismiss(None)
