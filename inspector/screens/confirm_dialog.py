"""A yes/no question, optionally with a reason to type. Dismisses with the reason ("" when
none was typed) on confirm, None on cancel."""

from __future__ import annotations

from memvet.inspector.widgets.key_footer import KeyFooter
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class ConfirmDialog(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="dialog-cancel"),
        Binding("ctrl+s", "confirm", "Confirm", id="dialog-confirm"),
    ]

    def __init__(
        self,
        title: str,
        body: str,
        confirm: str = "Confirm",
        *,
        reason_label: str | None = None,
        danger: bool = False,
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.body = body
        self.confirm_label = confirm
        self.reason_label = reason_label
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title", markup=False)
            yield Static(self.body, classes="dialog-body", markup=False)
            if self.reason_label is not None:
                yield Label(self.reason_label, classes="dialog-label")
                yield Input(
                    id="dialog-reason", placeholder="enter to confirm, esc to cancel", compact=True
                )
            with Horizontal(classes="dialog-buttons"):
                yield Button(
                    self.confirm_label,
                    id="dialog-confirm",
                    compact=True,
                    variant="error" if self.danger else "primary",
                )
                yield Button("Cancel", id="dialog-cancel", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        if self.reason_label is not None:
            self.query_one(Input).focus()
        else:
            self.query_one("#dialog-cancel" if self.danger else "#dialog-confirm", Button).focus()

    def action_confirm(self) -> None:
        reason = self.query_one(Input).value.strip() if self.reason_label is not None else ""
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#dialog-reason")
    def _submitted(self) -> None:
        self.action_confirm()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "dialog-confirm":
            self.action_confirm()
        else:
            self.action_cancel()
