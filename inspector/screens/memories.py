"""Approved memories of every scope of the user: active, disputed, superseded and retired, each
with its history, and the whole list as of a past time. Edit, false write, forget, dispute and
restore here (memory_actions.py); `u` takes back the last of them (never a decision made on
another screen)."""

from __future__ import annotations

from datetime import datetime

from memvet.inspector.formatting import age, kind_label, one_line, when, workspace_name
from memvet.inspector.jobs import Changes, attempt, load_memory_history
from memvet.inspector.messages import HistoryLoaded, MemoriesLoaded
from memvet.inspector.screens.as_of_dialog import AsOf, AsOfDialog
from memvet.inspector.screens.memory_actions import MemoryActions
from memvet.inspector.screens.record_screen import RecordScreen
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.inspector.widgets.line_table import LineTable
from memvet.inspector.widgets.memory_view import MemoryView
from memvet.inspector.widgets.record_table import RecordTable, Row
from memvet.inspector.widgets.screen_tabs import ScreenTabs
from memvet.store import MEMORY_STATUSES, Memory
from memvet.store.vocabulary import MemoryStatus
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container

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


class MemoriesScreen(MemoryActions, RecordScreen):
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
        kwargs = {"recorded_as_of": at} if recorded else {"as_of": at}
        outcome = attempt(
            self.store.list_memories, self.reader, statuses=statuses, limit=MEMORY_LIMIT, **kwargs
        )
        due = attempt(self.store.review_due, self.reader) if at is None else None
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
        statuses, user = VIEWS[self.view][1], self.store.user
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
        due = m.status == MemoryStatus.ACTIVE and m.id in self.review
        # Selective mode committed it: say so, it was never reviewed by a person (issue 9).
        auto = m.status == MemoryStatus.ACTIVE and m.auto_admitted
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
            self.table.drop(key)

    def _status(self) -> None:
        at, recorded = self.as_of
        when_text = (
            "now" if at is None else (f"{'recorded' if recorded else 'valid'} as of {when(at)}")
        )
        due = sum(
            1
            for k in self.records
            if k in self.review and self.records[k].status == MemoryStatus.ACTIVE
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
        outcome = attempt(load_memory_history, self.store, key)
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
        found = [o.value for o in (attempt(self.store.get_memory, k) for k in keys) if o.ok]
        self.post_message(MemoriesLoaded(generation, found, None, False, partial=True))
