"""Edit an approved memory: statement, kind, what it says, validity and subject, prefilled with
what it says now. Its scope stays (forget it and propose it again to move it). Dismisses with the
MemoryEdits to save, or None; refuses "valid until" before "valid from" and an edit that changes
nothing."""

from __future__ import annotations

from datetime import datetime

from memvet.inspector.formatting import aware, clean
from memvet.inspector.screens.edit_dialog import EditDialog
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.store import KINDS, Memory, MemoryEdits
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

SHOWN = "%Y-%m-%dT%H:%MZ"


def _minute(value: datetime | None) -> datetime | None:
    """Times as the dialog shows them: to the minute, so an untouched field is no change."""
    if value is None:
        return None
    return aware(value).replace(second=0, microsecond=0)


class MemoryEditDialog(EditDialog):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="memory-edit-cancel"),
        Binding("ctrl+s", "approve", "Save", id="memory-edit-save"),
    ]

    def __init__(self, memory: Memory, now: datetime) -> None:
        ModalScreen.__init__(self, classes="dialog-screen")
        self.memory = memory
        self.now = now

    def compose(self) -> ComposeResult:
        m = self.memory
        with Vertical(classes="dialog dialog-wide"):
            yield Static("Edit the memory", classes="dialog-title")
            yield Label("Statement", classes="dialog-label")
            yield Input(clean(m.statement), id="edit-statement", compact=True)
            with Horizontal(classes="dialog-row"):
                with Vertical():
                    yield Label("Kind", classes="dialog-label")
                    yield Select(
                        [(k, k) for k in KINDS],
                        value=m.kind,
                        allow_blank=False,
                        id="edit-kind",
                        compact=True,
                    )
                with Vertical():
                    yield Label("Says", classes="dialog-label")
                    yield Select(
                        [("asserts", "assert"), ("denies", "deny")],
                        value=m.polarity,
                        allow_blank=False,
                        id="edit-polarity",
                        compact=True,
                    )
                with Vertical():
                    yield Label("Subject (its slot)", classes="dialog-label")
                    yield Input(clean(m.subject), id="edit-subject", compact=True)
            with Horizontal(classes="dialog-row"):
                with Vertical():
                    yield Label("Valid from", classes="dialog-label")
                    yield Input(self._shown(m.valid_from), id="edit-from", compact=True)
                with Vertical():
                    yield Label("Valid until (blank: open)", classes="dialog-label")
                    yield Input(self._shown(m.valid_to), id="edit-to", compact=True)
            yield Static("", id="edit-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", id="edit-approve-button", variant="primary", compact=True)
                yield Button("Cancel", id="edit-cancel-button", compact=True)
        yield KeyFooter()

    def _shown(self, value: datetime | None) -> str:
        return "" if value is None else aware(value).strftime(SHOWN)

    def _edits(self) -> MemoryEdits:  # type: ignore[override]
        m = self.memory
        statement = self.query_one("#edit-statement", Input).value.strip()
        if not statement:
            raise ValueError("the statement is empty")
        kind = str(self.query_one("#edit-kind", Select).value)
        polarity = str(self.query_one("#edit-polarity", Select).value)
        start = self._time("#edit-from")
        end = self._time("#edit-to")
        if start is None:
            raise ValueError("valid from is needed (when the user said it)")
        if end is not None and end <= start:
            raise ValueError("valid until must be after valid from")
        subject = " ".join(self.query_one("#edit-subject", Input).value.split())
        edits = MemoryEdits(
            statement=None if statement == m.statement.strip() else statement,
            kind=None if kind == m.kind else kind,
            polarity=None if polarity == m.polarity else polarity,
            subject=None if not subject or subject == m.subject else subject,
            valid_from=None if _minute(start) == _minute(m.valid_from) else start,
            valid_to=None if end is None or _minute(end) == _minute(m.valid_to) else end,
            reopen=end is None and m.valid_to is not None,
        )
        if edits == MemoryEdits():
            raise ValueError("nothing changed")
        return edits
