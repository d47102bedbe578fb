"""An edit of an approved memory that now disagrees with memories of its slot (issue 13): the
supersede dialog of approval, fed by the store's preview of the edit (`edit_conflicts`) instead
of a candidate's detail. Every rival is pre-selected, as at approval. Dismisses with the
MemoryEdits carrying the decision, or None (nothing is written)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from memvet.inspector.formatting import one_line
from memvet.inspector.screens.supersede_dialog import SupersedeDialog
from memvet.store import Memory, MemoryEdits
from textual.screen import ModalScreen

if TYPE_CHECKING:
    from memvet.store.slot_decisions import SlotConflicts


class EditSupersedeDialog(SupersedeDialog):
    def __init__(self, memory: Memory, edits: MemoryEdits, found: SlotConflicts) -> None:
        ModalScreen.__init__(self, classes="dialog-screen")
        self.memory, self.edits, self.found = memory, edits, found

    def heading(self) -> tuple[str, str]:
        f = self.found
        title = (
            "The edit is a correction: what does it replace?"
            if f.correction
            else "The edit disagrees with memories of its slot"
        )
        text = self.edits.statement or self.memory.statement
        return title, f"{one_line(text, 160)}\nslot: {f.subject}"

    def memories(self) -> list[Memory]:
        found = [m for m, _ in self.found.rivals] + list(self.found.slot)
        return list({m.id: m for m in found if m.id != self.memory.id}.values())

    def preselected(self) -> set[str]:
        return set(self.found.preselect) or {m.id for m, _ in self.found.rivals}

    def decided(self, conflict: str, ids: tuple[str, ...] = ()) -> object:
        return replace(self.edits, conflict=conflict, supersede_ids=ids)
