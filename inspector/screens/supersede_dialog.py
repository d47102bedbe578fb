"""The candidate conflicts with active memories: replace one of them, or keep both.
Dismisses with the Edits to approve with, or None to decide later."""

from __future__ import annotations

from dataclasses import replace

from memvet.inspector.formatting import one_line, workspace_name
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.store import CandidateDetail, Edits
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

KEEP_BOTH = "keep-both"


class SupersedeDialog(ModalScreen[Edits | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="supersede-cancel")]

    def __init__(self, detail: CandidateDetail, edits: Edits) -> None:
        super().__init__(classes="dialog-screen")
        self.detail = detail
        self.edits = edits

    def compose(self) -> ComposeResult:
        options: list[Option] = []
        linked = self.detail.supersedes
        if linked is not None:
            options.append(Option(Content(f"Supersede (suggested) {linked.id}: "
                                          f"{one_line(linked.statement, 60)}"), id=linked.id))
        for memory in self.detail.conflicts:
            if linked is None or memory.id != linked.id:
                options.append(Option(Content(
                    f"Supersede {memory.id} ({workspace_name(memory.scope)}): "
                    f"{one_line(memory.statement, 60)}"), id=memory.id))
        options.append(Option("Keep both: approve it beside the memories above", id=KEEP_BOTH))
        with Vertical(classes="dialog dialog-wide"):
            yield Static("Supersede or keep both?", classes="dialog-title")
            yield Static(one_line(self.detail.candidate.statement, 200), classes="dialog-body",
                         markup=False)
            yield OptionList(*options, id="supersede-options", compact=True)
            yield Static("enter: approve with this choice · esc: not now", classes="dialog-hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        choice = event.option.id
        if choice == KEEP_BOTH:
            self.dismiss(replace(self.edits, supersede=False, supersede_id=None))
        else:
            self.dismiss(replace(self.edits, supersede=True, supersede_id=choice))

    def action_cancel(self) -> None:
        self.dismiss(None)
