"""Edit a candidate before approving it: statement, kind, scope (its workspace or user-global)
and validity. Dismisses with the Edits to approve with, or None."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from memvet.inspector.formatting import aware, clean, parse_when, workspace_label
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.store import KINDS, Candidate, Edits
from memvet.store.vocabulary import Polarity
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select, Static


def statement_field(statement: str) -> ComposeResult:
    """The statement, first in both edit dialogs (this one and memory_edit_dialog.py)."""
    yield Label("Statement", classes="dialog-label")
    yield Input(clean(statement), id="edit-statement", compact=True)


def kind_and_polarity_fields(kind: str, polarity: str) -> ComposeResult:
    """Kind and what it says, side by side: inside a dialog row."""
    with Vertical():
        yield Label("Kind", classes="dialog-label")
        yield Select(
            [(k, k) for k in KINDS], value=kind, allow_blank=False, id="edit-kind", compact=True
        )
    with Vertical():
        yield Label("Says", classes="dialog-label")
        yield Select(
            [("asserts", Polarity.ASSERT), ("denies", Polarity.DENY)],
            value=polarity,
            allow_blank=False,
            id="edit-polarity",
            compact=True,
        )


def error_and_buttons(confirm: str) -> ComposeResult:
    """The refusal line and the two buttons that end both edit dialogs."""
    yield Static("", id="edit-error", classes="dialog-error")
    with Horizontal(classes="dialog-buttons"):
        yield Button(confirm, id="edit-approve-button", variant="primary", compact=True)
        yield Button("Cancel", id="edit-cancel-button", compact=True)


EditsT = TypeVar("EditsT")  # what an edit dialog dismisses with: Edits, or MemoryEdits


class BaseEditDialog(ModalScreen[EditsT | None]):
    """What both edit dialogs share: the typed fields read back, a refusal shown in place."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="edit-cancel"),
        Binding("ctrl+s", "approve", "Approve", id="edit-approve"),
    ]

    def __init__(self, now: datetime) -> None:
        super().__init__(classes="dialog-screen")
        self.now = now

    def on_mount(self) -> None:
        self.query_one("#edit-statement", Input).focus()

    def _edits(self) -> EditsT:
        """The edits as typed; a ValueError says why they are refused."""
        raise NotImplementedError

    def _typed(self) -> tuple[str, str, str]:
        """Statement, kind and polarity as typed; an empty statement is refused."""
        statement = self.query_one("#edit-statement", Input).value.strip()
        if not statement:
            raise ValueError("the statement is empty")
        kind = str(self.query_one("#edit-kind", Select).value)
        return statement, kind, str(self.query_one("#edit-polarity", Select).value)

    def _time(self, selector: str) -> datetime | None:
        text = self.query_one(selector, Input).value.strip()
        return parse_when(text, self.now) if text else None

    def action_approve(self) -> None:
        try:
            edits = self._edits()
        except ValueError as exc:
            self.query_one("#edit-error", Static).update(str(exc))
            return
        self.dismiss(edits)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_approve()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "edit-approve-button":
            self.action_approve()
        else:
            self.action_cancel()


class EditDialog(BaseEditDialog[Edits]):
    def __init__(self, candidate: Candidate, now: datetime) -> None:
        super().__init__(now)
        self.candidate = candidate

    def compose(self) -> ComposeResult:
        c = self.candidate
        with Vertical(classes="dialog dialog-wide"):
            yield Static("Edit, then approve", classes="dialog-title")
            yield from statement_field(c.statement)
            with Horizontal(classes="dialog-row"):
                yield from kind_and_polarity_fields(c.kind, c.polarity)
                with Vertical():
                    yield Label("Scope", classes="dialog-label")
                    with RadioSet(id="edit-scope", compact=True):
                        yield RadioButton(
                            f"workspace {workspace_label(c.scope, 28)}",
                            value=c.scope.workspace is not None,
                            disabled=c.scope.workspace is None,
                            id="edit-ws",
                        )
                        yield RadioButton(
                            "user-global", value=c.scope.workspace is None, id="edit-global"
                        )
            with Horizontal(classes="dialog-row"):
                with Vertical():
                    yield Label("Valid from (blank: when said)", classes="dialog-label")
                    yield Input(id="edit-from", placeholder="2026-03-01 or 3d", compact=True)
                with Vertical():
                    yield Label("Valid until (blank: open)", classes="dialog-label")
                    yield Input(id="edit-to", placeholder="2026-12-31", compact=True)
                with Vertical():
                    yield Label("Subject (its slot)", classes="dialog-label")
                    yield Input(
                        clean(c.subject),
                        id="edit-subject",
                        compact=True,
                        placeholder="e.g. package manager",
                    )
            yield from error_and_buttons("Approve")
        yield KeyFooter()

    def _edits(self) -> Edits:
        c = self.candidate
        statement, kind, polarity = self._typed()
        make_global = self.query_one("#edit-global", RadioButton).value
        start = self._time("#edit-from")
        end = self._time("#edit-to")
        # A blank "valid from" is when the user said it (no later than the candidate's arrival).
        begins = start or min(aware(c.created_at), self.now)
        if end and end <= begins:
            raise ValueError(
                "valid until must be after valid from"
                + ("" if start else f" ({begins:%Y-%m-%d %H:%M}, when it was said)")
            )
        return Edits(
            statement=None if statement == c.statement.strip() else statement,
            kind=None if kind == c.kind else kind,
            polarity=None if polarity == c.polarity else polarity,
            make_global=make_global and c.scope.workspace is not None,
            valid_from=start,
            valid_to=end,
            subject=self._subject(),
        )

    def _subject(self) -> str | None:
        """None keeps the derived subject (re-derived for an edited statement)."""
        text = " ".join(self.query_one("#edit-subject", Input).value.split())
        return None if not text or text == self.candidate.subject else text
