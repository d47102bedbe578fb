"""The candidate competes with memories of its slot: supersede any number of them, keep both as
compatible, or dispute (both leave recall until settled). Every rival of the slot is
pre-selected; for a correction ("moved from X to Y") so is every memory of the scope that
asserts X. Dismisses with the Edits to approve with, or None to decide later. The same choice
for an edit of an approved memory is EditSupersedeDialog (edit_supersede_dialog.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from memvet.inspector.formatting import one_line, workspace_name
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.store import CandidateDetail, Edits, Memory
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, SelectionList, Static
from textual.widgets.option_list import Option

SUPERSEDE, KEEP_BOTH, DISPUTE = "supersede", "keep-both", "dispute"


class SupersedeDialog(ModalScreen[Any]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="supersede-cancel"),
        Binding("k", "keep_both", "Keep both", id="supersede-keep"),
        Binding("d", "dispute", "Dispute", id="supersede-dispute"),
    ]

    def __init__(self, detail: CandidateDetail, edits: Edits) -> None:
        super().__init__(classes="dialog-screen")
        self.detail = detail
        self.edits = edits

    def heading(self) -> tuple[str, str]:
        """The title and the text it decides about (with its slot)."""
        d = self.detail
        title = (
            "A correction: what does it replace?"
            if d.correction
            else "It disagrees with memories of its slot"
        )
        return title, f"{one_line(d.candidate.statement, 160)}\nslot: {d.candidate.subject}"

    def decided(self, conflict: str, ids: tuple[str, ...] = ()) -> object:
        """What the dialog dismisses with: the Edits to approve with."""
        if conflict == "supersede":
            return replace(
                self.edits,
                conflict=conflict,
                supersede_ids=ids,
                supersede=True,
                supersede_id=ids[0],
            )
        return replace(self.edits, conflict=conflict, supersede=False, supersede_id=None)

    def memories(self) -> list[Memory]:
        """The correction's link, its rivals, then the rest of its slot; each once."""
        d = self.detail
        found = [m for m in (d.supersedes, *d.conflicts, *d.slot) if m is not None]
        return list({m.id: m for m in found}.values())

    def preselected(self) -> set[str]:
        d = self.detail
        chosen = set(d.preselect) or {m.id for m in d.conflicts}
        return chosen | ({d.supersedes.id} if d.supersedes is not None else set())

    def compose(self) -> ComposeResult:
        chosen = self.preselected()
        rows = [
            (
                Content(
                    f"{m.id} ({workspace_name(m.scope)}, {m.status}): {one_line(m.statement, 56)}"
                ),
                m.id,
                m.id in chosen,
            )
            for m in self.memories()
        ]
        title, body = self.heading()
        with Vertical(classes="dialog dialog-wide"):
            yield Static(title, classes="dialog-title")
            yield Static(body, classes="dialog-body", markup=False)
            yield SelectionList[str](*rows, id="supersede-memories", compact=True)
            yield OptionList(
                Option("Supersede the selected memories (valid until it was said)", id=SUPERSEDE),
                Option("Keep both: they are all true (compatible)", id=KEEP_BOTH),
                Option("Dispute: none of them is used until settled", id=DISPUTE),
                id="supersede-options",
                compact=True,
            )
            yield Static(
                "enter: choose · tab, space: change the selection · k keep both · "
                "d dispute · esc: not now",
                classes="dialog-hint",
            )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#supersede-options", OptionList).focus()  # SelectionList is one too

    def selected(self) -> tuple[str, ...]:
        return tuple(self.query_one(SelectionList).selected)

    @on(OptionList.OptionSelected, "#supersede-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        {
            SUPERSEDE: self.action_supersede,
            KEEP_BOTH: self.action_keep_both,
            DISPUTE: self.action_dispute,
        }[event.option.id or SUPERSEDE]()

    def action_supersede(self) -> None:
        ids = self.selected()
        if not ids:
            self.notify(
                "Select the memories it replaces (space), or choose keep both or dispute.",
                severity="warning",
            )
            return
        self.dismiss(self.decided("supersede", ids))

    def action_keep_both(self) -> None:
        self.dismiss(self.decided("keep_both"))

    def action_dispute(self) -> None:
        self.dismiss(self.decided("dispute"))

    def action_cancel(self) -> None:
        self.dismiss(None)
