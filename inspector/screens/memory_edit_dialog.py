"""Edit an approved memory: statement, kind, what it says, validity and subject, prefilled with
what it says now. Its scope stays (forget it and propose it again to move it). Dismisses with the
MemoryEdits to save, or None; refuses "valid until" before "valid from" and an edit that changes
nothing."""

from __future__ import annotations

from datetime import datetime

from memvet.inspector.formatting import aware, clean
from memvet.inspector.screens.edit_dialog import (
    BaseEditDialog,
    error_and_buttons,
    kind_and_polarity_fields,
    statement_field,
)
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.store import Memory, MemoryEdits
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Static

SHOWN = "%Y-%m-%dT%H:%MZ"


def _minute(value: datetime | None) -> datetime | None:
    """Times as the dialog shows them: to the minute, so an untouched field is no change."""
    if value is None:
        return None
    return aware(value).replace(second=0, microsecond=0)


class MemoryEditDialog(BaseEditDialog[MemoryEdits]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="memory-edit-cancel"),
        Binding("ctrl+s", "approve", "Save", id="memory-edit-save"),
    ]

    def __init__(self, memory: Memory, now: datetime) -> None:
        super().__init__(now)
        self.memory = memory

    def compose(self) -> ComposeResult:
        m = self.memory
        with Vertical(classes="dialog dialog-wide"):
            yield Static("Edit the memory", classes="dialog-title")
            yield from statement_field(m.statement)
            with Horizontal(classes="dialog-row"):
                yield from kind_and_polarity_fields(m.kind, m.polarity)
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
            yield from error_and_buttons("Save")
        yield KeyFooter()

    def _shown(self, value: datetime | None) -> str:
        return "" if value is None else aware(value).strftime(SHOWN)

    def _edits(self) -> MemoryEdits:
        m = self.memory
        statement, kind, polarity = self._typed()
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
