"""Approved memories of every scope of the user: active, disputed, superseded and retired, each
with its history, and the whole list as of a past time. Edit, false write, forget, dispute and
restore here; `u` takes back the last of them (never a decision made on another screen)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from memvet.inspector.formatting import age, kind_label, one_line, when, workspace_name
from memvet.inspector.jobs import Changes, Decision, attempt, change_memory, load_memory_history
from memvet.inspector.messages import HistoryLoaded, MemoriesLoaded, MemoryChanged, TeamOffered
from memvet.inspector.screens.as_of_dialog import AsOf, AsOfDialog
from memvet.inspector.screens.confirm_dialog import ConfirmDialog
from memvet.inspector.screens.edit_supersede_dialog import EditSupersedeDialog
from memvet.inspector.screens.memory_edit_dialog import MemoryEditDialog
from memvet.inspector.screens.record_screen import RecordScreen
from memvet.inspector.team_offer import offer, toast
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.inspector.widgets.line_table import LineTable
from memvet.inspector.widgets.memory_view import MemoryView
from memvet.inspector.widgets.record_table import RecordTable, Row
from memvet.inspector.widgets.screen_tabs import ScreenTabs
from memvet.store import MEMORY_STATUSES, Memory, MemoryEdits
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container

if TYPE_CHECKING:
    from memvet.store.slot_decisions import SlotConflicts

VIEWS = (("all", MEMORY_STATUSES),) + tuple((s, (s,)) for s in MEMORY_STATUSES)
MEMORY_LIMIT = 5000
COLUMNS = (
    ("status", "status", 10),
    ("kind", "kind", 4),
    ("statement", "statement", 30),
    ("scope", "scope", 12),
    ("age", "age", 4),
)
TONES = {"active": "good", "disputed": "warn", "retired": "bad", "superseded": "muted"}


class MemoriesScreen(RecordScreen):
    WIDE = 140
    BINDINGS = [
        Binding("e", "edit", "Edit", id="memories-edit"),
        Binding("f", "false_write", "False write", id="memories-false-write"),
        Binding("x", "forget", "Forget", id="memories-forget"),
        Binding("d", "dispute", "Dispute", id="memories-dispute"),
        Binding("R", "restore", "Restore", key_display="R", id="memories-restore"),
        Binding("c", "confirm", "Still true", id="memories-confirm"),
        Binding("t", "as_of", "As of", id="memories-as-of"),
        Binding("v", "view", "View", id="memories-view"),
        Binding("T", "share_team", "To team", key_display="T", id="memories-share-team"),
        Binding("tab", "app.focus_next", "Pane", id="memories-pane"),
    ]

    def __init__(self) -> None:
        super().__init__(id="memories")
        self.view = 0
        self.as_of: AsOf = (None, False)
        self.records: dict[str, Memory] = {}
        self.generation = 0
        self.shown: str | None = None
        self.review: frozenset[str] = frozenset()  # "still true?" (store/review.py)

    def compose(self) -> ComposeResult:
        yield ScreenTabs("memories")
        with Container(classes="body"):
            yield RecordTable(
                COLUMNS, flex="statement", right=frozenset({"age"}), id="memories-table"
            )
            yield MemoryView(id="memories-detail", classes="detail")
        yield KeyFooter()

    def load_records(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.generation += 1
        self.table.set_rows([])
        self.records.clear()
        self.shown = None
        self.query_one(MemoryView).message("Loading memories…")
        self._load(self.generation, VIEWS[self.view][1], *self.as_of)

    @work(thread=True, exclusive=True, group="memories", exit_on_error=False)
    def _load(
        self, generation: int, statuses: tuple[str, ...], at: datetime | None, recorded: bool
    ) -> None:
        app = self.app
        kwargs = {"recorded_as_of": at} if recorded else {"as_of": at}
        outcome = attempt(
            app.store.list_memories, app.reader, statuses=statuses, limit=MEMORY_LIMIT, **kwargs
        )
        due = attempt(app.store.review_due, app.reader) if at is None else None
        review = frozenset(f.memory.id for f in due.value) if due and due.ok else None
        self.post_message(
            MemoriesLoaded(
                generation, outcome.value or [], at, recorded, outcome.error, review=review
            )
        )

    @on(MemoriesLoaded)
    def _loaded(self, message: MemoriesLoaded) -> None:
        if message.generation != self.generation:
            return
        if message.error:
            self.query_one(MemoryView).message(f"Cannot list memories: {message.error}", "$error")
            return
        now = self.app.now()
        if message.review is not None:
            self.review = message.review
        statuses, user = VIEWS[self.view][1], self.app.store.user
        mine = [m for m in message.memories if m.scope.user == user]
        if not message.partial:
            self.records = {m.id: m for m in mine}
            self.table.set_rows(self._row(m, now) for m in mine)
        added = False
        for memory in mine if message.partial else ():
            if memory.status not in statuses:
                self._drop(memory.id)
                continue
            added = added or memory.id not in self.records
            self._put(memory, now)
        if added:  # newest first, as the store lists them
            self.table.sort_rows(lambda k: (self.records[k].recorded_at, k), reverse=True)
        self._status()
        self._show_current()

    def _row(self, m: Memory, now: datetime) -> Row:
        due = m.status == "active" and m.id in self.review
        # Selective mode committed it: say so, it was never reviewed by a person (issue 9).
        auto = m.status == "active" and m.auto_admitted
        status = "still true?" if due else ("auto" if auto else m.status)
        return (
            m.id,
            [
                status,
                kind_label(m.kind, short=True),
                one_line(m.statement, 240),
                workspace_name(m.scope),
                age(now, m.recorded_at),
            ],
            "warn" if due or auto else TONES.get(m.status),
        )

    def _put(self, m: Memory, now: datetime) -> None:
        self.records[m.id] = m
        self.table.put(*self._row(m, now))

    def _drop(self, key: str) -> None:
        if self.records.pop(key, None) is not None:
            self.table.remove(key)

    def _status(self) -> None:
        at, recorded = self.as_of
        when_text = (
            "now" if at is None else (f"{'recorded' if recorded else 'valid'} as of {when(at)}")
        )
        due = sum(
            1 for k in self.records if k in self.review and self.records[k].status == "active"
        )
        review = f" · {due} still true?" if due else ""
        self.query_one(ScreenTabs).set_status(
            f"{len(self.records):,} {VIEWS[self.view][0]}{review} · {when_text}"
        )

    # --- detail and history ---------------------------------------------------------------------
    @on(LineTable.Highlighted, "#memories-table")
    def _show_current(self) -> None:
        key = self.table.current_key
        if key is None:
            self.shown = None
            self.query_one(MemoryView).message("No memories in this view.")
            return
        if key != self.shown:
            self.shown = key
            self.query_one(MemoryView).show(self.records[key], [], self.app.now())
            self._history(key)

    @work(thread=True, exclusive=True, group="memory-history", exit_on_error=False)
    def _history(self, key: str) -> None:
        outcome = attempt(load_memory_history, self.app.store, key)
        memory, history = outcome.value if outcome.ok else (None, [])
        self.post_message(HistoryLoaded(key, memory, history, outcome.error))

    @on(HistoryLoaded)
    def _history_loaded(self, message: HistoryLoaded) -> None:
        if message.memory_id != self.shown:
            return
        if message.memory is None:
            self.query_one(MemoryView).message(f"Cannot load it: {message.error}", "$error")
            return
        if self.as_of[0] is None:
            self._put(message.memory, self.app.now())
        memory = self.records.get(message.memory_id, message.memory)
        self.query_one(MemoryView).show(memory, message.transitions, self.app.now())

    # --- actions ------------------------------------------------------------------------------
    def _current(self) -> Memory | None:
        key = self.table.current_key
        return self.records.get(key) if key else None

    def action_edit(self) -> None:
        memory = self._current()
        if memory is None:
            return
        if memory.status != "active":
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
            self.app.store.edit_memory,
            memory.id,
            edits if decided else replace(edits, conflict="ask"),
            actor=self.app.owner,
            based_on=memory,
        )
        if outcome.code == "conflict" and not decided:
            found = attempt(self.app.store.edit_conflicts, memory.id, edits)
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
        self.app.push_screen(
            ConfirmDialog(
                "Mark as a false write?",
                body,
                "False write",
                danger=True,
                reason_label="Reason (optional)",
            ),
            lambda reason: reason is not None and self._change(memory.id, "false_write", reason),
        )

    def action_forget(self) -> None:
        memory = self._current()
        if memory is None:
            return
        body = (
            f"{one_line(memory.statement, 200)}\n\nIt is retired and its content tombstoned; "
            "its history stays readable."
        )
        self.app.push_screen(
            ConfirmDialog("Forget this memory?", body, "Forget", danger=True),
            lambda ok: ok is not None and self._change(memory.id, "forget"),
        )

    def action_dispute(self) -> None:
        memory = self._current()
        if memory is None:
            return
        if memory.status not in ("active", "disputed"):
            self.notify(f"A {memory.status} memory cannot be disputed.", severity="warning")
            return
        self._change(memory.id, "resolve" if memory.status == "disputed" else "dispute")

    def action_confirm(self) -> None:
        memory = self._current()
        if memory is None:
            return
        if memory.status != "active":
            self.notify(
                f"Only an active memory is confirmed (this one is {memory.status}).",
                severity="warning",
            )
            return
        self._confirm(memory.id)

    @work(thread=True, group="store", exit_on_error=False)
    def _confirm(self, memory_id: str) -> None:
        outcome = attempt(self.app.store.confirm, memory_id, actor=self.app.owner)
        self.post_message(MemoryChanged(memory_id, "confirm", outcome))

    def action_restore(self) -> None:
        memory = self._current()
        if memory is None:
            return
        if memory.status != "retired":
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
        outcome = change_memory(app.store, memory_id, action, actor=app.owner, reason=note)
        self.post_message(MemoryChanged(memory_id, action, outcome, reason))

    @on(MemoryChanged)
    def _changed(self, message: MemoryChanged) -> None:
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
        self.post_message(TeamOffered(memory, offer(self.app.store, memory.id)))

    @on(TeamOffered)
    def _team_offered(self, message: TeamOffered) -> None:
        note = toast(message.memory, message.outcome)
        self.notify(note.text, severity=note.severity, timeout=note.timeout)
        self.app.check_store()  # a sync pass may have brought team memories

    def action_as_of(self) -> None:
        def chosen(result: AsOf | None) -> None:
            if result is not None:
                self.as_of = result
                self.reload()

        self.app.push_screen(AsOfDialog(self.app.now(), self.as_of), chosen)

    def action_view(self) -> None:
        self.view = (self.view + 1) % len(VIEWS)
        self.reload()

    # --- the change feed ----------------------------------------------------------------------
    def on_store_changed(self, changes: Changes) -> None:
        if self.as_of[0] is None and changes.memories:
            self._refresh(self.generation, sorted(changes.memories))

    @work(thread=True, group="memories-feed", exit_on_error=False)
    def _refresh(self, generation: int, keys: list[str]) -> None:
        found = [o.value for o in (attempt(self.app.store.get_memory, k) for k in keys) if o.ok]
        self.post_message(MemoriesLoaded(generation, found, None, False, partial=True))
