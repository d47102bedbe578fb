"""What the operator does to a memory on the memories screen: edit, false write, forget,
dispute or resolve, confirm ("still true"), restore, offer to the team, and how the store's answer
is shown.

A mixin of MemoriesScreen, kept apart so each module stays readable. Handlers use Textual's
naming convention (on_<message>): `@on` is only collected on Textual classes, not on mixins."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from memvet.inspector.formatting import one_line
from memvet.inspector.jobs import Decision, attempt, change_memory
from memvet.inspector.messages import MemoryChanged, TeamOffered
from memvet.inspector.screens.confirm_dialog import ConfirmDialog
from memvet.inspector.screens.edit_supersede_dialog import EditSupersedeDialog
from memvet.inspector.screens.memory_edit_dialog import MemoryEditDialog
from memvet.inspector.team_offer import offer, toast
from memvet.store import Memory, MemoryEdits
from memvet.store.vocabulary import LIVE_STATUSES, MemoryStatus
from textual import work

if TYPE_CHECKING:
    from memvet.inspector.screens.record_screen import RecordScreen as _Screen
    from memvet.store.slot_decisions import SlotConflicts
else:
    _Screen = object  # at run time a plain mixin; the type checker sees the screen it joins


class MemoryActions(_Screen):
    # What MemoriesScreen (memories.py) holds and does, declared for the type checker.
    records: dict[str, Memory]
    review: frozenset[str]
    shown: str | None
    _put: Callable[[Memory, datetime], None]
    _show_current: Callable[[], None]

    def _current(self) -> Memory | None:
        key = self.table.current_key
        return self.records.get(key) if key else None

    def action_edit(self) -> None:
        memory = self._current()
        if memory is None:
            return
        if memory.status != MemoryStatus.ACTIVE:
            self.notify(
                f"Only an active memory is edited (this one is {memory.status}).",
                severity="warning",
            )
            return

        def edited(edits: MemoryEdits | None) -> None:
            if edits is not None:
                self._edit(memory, edits)

        self.app.push_screen(MemoryEditDialog(memory, self.app.now()), edited)

    @work(thread=True, group="store", exit_on_error=False)
    def _edit(self, memory: Memory, edits: MemoryEdits) -> None:
        # based_on: what the dialog showed; an edit made elsewhere meanwhile is refused, not lost.
        # conflict "ask": a rival value in its slot is refused, never silently unsettled; the
        # supersede dialog then asks what happens to the rivals, as at approval.
        decided = edits.conflict is not None
        outcome = attempt(
            self.store.edit_memory,
            memory.id,
            edits if decided else replace(edits, conflict="ask"),
            actor=self.app.owner,
            based_on=memory,
        )
        if outcome.code == "conflict" and not decided:
            found = attempt(self.store.edit_conflicts, memory.id, edits)
            if found.ok and found.value.rivals:
                self.app.call_from_thread(self._ask_slot, memory, edits, found.value)
                return
        self.post_message(MemoryChanged(memory.id, "edit", outcome))

    def _ask_slot(self, memory: Memory, edits: MemoryEdits, found: SlotConflicts) -> None:
        def chosen(decided: MemoryEdits | None) -> None:
            if decided is None:
                self.notify("Not saved: the edit waits for a decision on its slot.")
            else:
                self._edit(memory, decided)

        self.app.push_screen(EditSupersedeDialog(memory, edits, found), chosen)

    def action_false_write(self) -> None:
        memory = self._current()
        if memory is None:
            return
        body = (
            f"{one_line(memory.statement, 200)}\n\nIt is retired as never valid and its "
            "content is tombstoned: it will not be proposed again."
        )
        self.ask(
            ConfirmDialog(
                "Mark as a false write?",
                body,
                "False write",
                danger=True,
                reason_label="Reason (optional)",
            ),
            lambda reason: self._change(memory.id, "false_write", reason),
        )

    def action_forget(self) -> None:
        memory = self._current()
        if memory is None:
            return
        body = (
            f"{one_line(memory.statement, 200)}\n\nIt is retired and its content tombstoned; "
            "its history stays readable."
        )
        self.ask(
            ConfirmDialog("Forget this memory?", body, "Forget", danger=True),
            lambda _: self._change(memory.id, "forget"),
        )

    def action_dispute(self) -> None:
        memory = self._current()
        if memory is None:
            return
        if memory.status not in LIVE_STATUSES:
            self.notify(f"A {memory.status} memory cannot be disputed.", severity="warning")
            return
        self._change(memory.id, "resolve" if memory.status == MemoryStatus.DISPUTED else "dispute")

    def action_confirm(self) -> None:
        memory = self._current()
        if memory is None:
            return
        if memory.status != MemoryStatus.ACTIVE:
            self.notify(
                f"Only an active memory is confirmed (this one is {memory.status}).",
                severity="warning",
            )
            return
        self._confirm(memory.id)

    @work(thread=True, group="store", exit_on_error=False)
    def _confirm(self, memory_id: str) -> None:
        outcome = attempt(self.store.confirm, memory_id, actor=self.app.owner)
        self.post_message(MemoryChanged(memory_id, "confirm", outcome))

    def action_restore(self) -> None:
        memory = self._current()
        if memory is None:
            return
        if memory.status != MemoryStatus.RETIRED:
            self.notify(
                f"Only a retired memory can be restored (this one is {memory.status}).",
                severity="warning",
            )
            return
        self._change(memory.id, "restore", memory.retired_reason)

    def _change(self, memory_id: str, action: str, reason: str | None = None) -> None:
        self._run_change(memory_id, action, reason)

    @work(thread=True, group="store", exit_on_error=False)
    def _run_change(self, memory_id: str, action: str, reason: str | None) -> None:
        app = self.app
        # restore: `reason` is the retirement it takes back (kept for undo), not a note
        note = None if action == "restore" else reason
        outcome = change_memory(self.store, memory_id, action, actor=app.owner, reason=note)
        self.post_message(MemoryChanged(memory_id, action, outcome, reason))

    def on_memory_changed(self, message: MemoryChanged) -> None:
        label = message.action.replace("_", " ")
        if not message.outcome.ok:
            error = message.outcome.error
            if message.action == "edit" and message.outcome.code == "conflict":
                error = (
                    "it would disagree with another memory of its slot; dispute or retire that "
                    "one first, or `memvet memories edit … --supersede MEMORY`"
                )
            self.notify(f"Could not {label}: {error}", severity="error")
            return
        if message.action == "edit":  # looked at now: no longer due for review
            self.review = self.review - {message.memory_id}
        if message.action == "confirm":  # looked at now: no longer due, nothing to undo
            self.review = self.review - {message.memory_id}
            self._put(message.outcome.value, self.app.now())
            self.notify(f"Still true: {one_line(message.outcome.value.statement, 48)}")
            return
        memory = message.outcome.value.memory
        self.app.record_decision(
            Decision(
                message.action,
                memory.candidate_id,
                memory.statement,
                memory.id,
                screen="memories",
                reason=message.reason,
            )
        )
        self._put(memory, self.app.now())
        self.notify(f"{label.capitalize()}: {one_line(memory.statement, 48)} → {memory.status}")
        if message.memory_id == self.shown:
            self.shown = None
            self._show_current()
        self.app.check_store()

    def action_share_team(self) -> None:
        memory = self._current()
        if memory is not None:
            self._share_team(memory)

    @work(thread=True, group="team", exit_on_error=False)
    def _share_team(self, memory: Memory) -> None:
        self.post_message(TeamOffered(memory, offer(self.store, memory.id)))

    def on_team_offered(self, message: TeamOffered) -> None:
        note = toast(message.memory, message.outcome)
        self.notify(note.text, severity=note.severity, timeout=note.timeout)
        self.app.check_store()  # a sync pass may have brought team memories
