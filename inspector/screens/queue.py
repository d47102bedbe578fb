"""The review queue: pending, stale and held candidates, with the selected one's detail.

Rows are paged in by keyset as the cursor nears the end and changed in place afterwards: a
decision removes its row when the store confirms it; the change feed adds, updates or removes
the rows other writers touched. Nothing reloads the whole table except a new filter or order.
"""

from __future__ import annotations

from memvet.inspector.filters import SORT_ORDERS, QuerySpec, parse_query, sort_for_column
from memvet.inspector.formatting import one_line
from memvet.inspector.jobs import (
    Changes,
    Decision,
    attempt,
    decide,
    fetch_candidates,
    load_queue_page,
)
from memvet.inspector.messages import (
    CandidatesRefreshed,
    DecisionFinished,
    DetailLoaded,
    QueueCounted,
    QueuePageLoaded,
)
from memvet.inspector.screens.confirm_dialog import ConfirmDialog
from memvet.inspector.screens.edit_dialog import EditDialog
from memvet.inspector.screens.supersede_dialog import SupersedeDialog
from memvet.inspector.widgets.candidate_view import CandidateView, state_note
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.inspector.widgets.queue_table import QueueTable
from memvet.inspector.widgets.screen_tabs import ScreenTabs
from memvet.store import CandidateDetail, Edits
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

PREFETCH_MARGIN = 40  # rows before the end of what is loaded at which the next page is fetched
DETAIL_CACHE = 64


class QueueScreen(Screen[None]):
    BINDINGS = [
        Binding("a", "approve", "Approve", id="queue-approve"),
        Binding("e", "edit", "Edit", id="queue-edit"),
        Binding("r", "reject", "Reject", id="queue-reject"),
        Binding("space", "toggle_select", "Select", id="queue-select"),
        Binding("s", "supersede", "Supersede", id="queue-supersede"),
        Binding("slash", "filter", "Filter", key_display="/", id="queue-filter"),
        Binding("o", "sort", "Sort", id="queue-sort"),
        Binding("z", "toggle_detail", "Detail", id="queue-detail"),
        Binding("tab", "app.focus_next", "Pane", id="queue-pane"),
        Binding("escape", "clear", "Clear", id="queue-clear"),
    ]

    def __init__(self) -> None:
        super().__init__(id="queue")
        self.spec = QuerySpec()
        self.order = SORT_ORDERS[0]
        self.generation = 0
        self.page_after: tuple | None = None
        self.exhausted = False
        self.loading = False
        self.total: int | None = None
        self.details: dict[str, CandidateDetail] = {}
        self.shown_key: str | None = None

    def compose(self) -> ComposeResult:
        yield ScreenTabs("queue")
        yield Input(placeholder="host:codex kind:fact ws:/path ws:global words…  (enter: apply)",
                    id="queue-filter-input", classes="-hidden")
        yield Static("", id="queue-filter-line", classes="-hidden")
        with Container(id="queue-body"):
            yield QueueTable(id="queue-table")
            yield CandidateView(id="queue-detail")
        yield KeyFooter()

    @property
    def table(self) -> QueueTable:
        return self.query_one(QueueTable)

    @property
    def detail(self) -> CandidateView:
        return self.query_one(CandidateView)

    def on_mount(self) -> None:
        self.app.store_changed.subscribe(self, self.on_store_changed)
        self.table.show_order(self.order)
        self.table.focus()
        self.reload()

    def on_resize(self) -> None:
        self.set_class(self.size.width >= 140, "-wide")

    # --- loading ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Start over: only for a new filter or order, never after a decision."""
        self.generation += 1
        self.table.reset()
        self.page_after, self.exhausted, self.loading, self.total = None, False, True, None
        self.details.clear()
        self.shown_key = None
        self.detail.message("Loading the queue…")
        self._status()
        self._load_page(self.generation, None, first=True)

    @work(thread=True, exclusive=True, group="queue-page", exit_on_error=False)
    def _load_page(self, generation: int, after: tuple | None, first: bool) -> None:
        app = self.app
        outcome = attempt(load_queue_page, app.store, app.reader, self.spec.to_filter(),
                          self.order, after, app.page_size, with_total=False)
        if outcome.ok:
            self.post_message(QueuePageLoaded(generation, outcome.value, first))
        else:
            self.app.call_from_thread(self.app.notify, f"Cannot load the queue: {outcome.error}",
                                      severity="error")

    @work(thread=True, exclusive=True, group="queue-count", exit_on_error=False)
    def _count(self, generation: int) -> None:
        outcome = attempt(self.app.store.count_candidates, self.app.reader, self.spec.to_filter())
        if outcome.ok:
            self.post_message(QueueCounted(generation, outcome.value))

    @on(QueuePageLoaded)
    def _page_loaded(self, message: QueuePageLoaded) -> None:
        if message.generation != self.generation:
            return
        rows = message.page.rows
        self.table.add(rows, self.app.now())
        if rows:
            self.page_after = self.order.after(rows[-1])
        self.exhausted, self.loading = message.page.exhausted, False
        if message.first:
            self._count(self.generation)
            self.show_current()

    @on(QueueCounted)
    def _counted(self, message: QueueCounted) -> None:
        if message.generation == self.generation:
            self.total = message.total
            self._status()

    def _status(self) -> None:
        total = "counting…" if self.total is None else f"{self.total:,} in queue"
        chosen = f" · {len(self.table.selected)} selected" if self.table.selected else ""
        self.query_one(ScreenTabs).set_status(f"{total}{chosen}")

    # --- the detail pane ----------------------------------------------------------------------
    @on(DataTable.RowHighlighted, "#queue-table")
    def _highlighted(self) -> None:
        self.show_current()
        near_end = self.table.cursor_row >= self.table.row_count - PREFETCH_MARGIN
        if near_end and not self.exhausted and not self.loading:
            self.loading = True
            self._load_page(self.generation, self.page_after, first=False)

    def show_current(self, force: bool = False) -> None:
        key = self.table.current_key
        if key is None:
            self.shown_key = None
            empty = "Nothing matches this filter." if self.spec.active else (
                "The queue is empty. New candidates appear here as the daemon finds them.")
            self.detail.message(empty)
            return
        if key == self.shown_key and not force:
            return
        self.shown_key = key
        record = self.table.records[key]
        note = state_note(record, self.table.flags.get(key), self.table.errors.get(key))
        cached = self.details.get(key)
        if cached is not None and cached.candidate == record:
            self.detail.show(cached, self.app.now(), note)
            self._prefetch_next()
            return
        self.detail.show(CandidateDetail(record, (), (), None, None), self.app.now(), note)
        self._load_detail(key)

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False)
    def _load_detail(self, key: str) -> None:
        outcome = attempt(self.app.store.candidate_detail, key)
        self.post_message(DetailLoaded(key, outcome.value, outcome.error))

    @work(thread=True, exclusive=True, group="detail-prefetch", exit_on_error=False)
    def _prefetch(self, key: str) -> None:
        outcome = attempt(self.app.store.candidate_detail, key)
        if outcome.ok:
            self.post_message(DetailLoaded(key, outcome.value))

    def _prefetch_next(self) -> None:
        key = self.table.key_at(self.table.cursor_row + 1)
        if key is not None and key not in self.details:
            self._prefetch(key)

    @on(DetailLoaded)
    def _detail_loaded(self, message: DetailLoaded) -> None:
        if message.detail is not None:
            if len(self.details) >= DETAIL_CACHE:
                self.details.pop(next(iter(self.details)))
            self.details[message.candidate_id] = message.detail
        if message.candidate_id == self.shown_key:
            if message.detail is None:
                self.detail.message(f"Cannot load this candidate: {message.error}", "$error")
            else:
                self.show_current(force=True)

    def action_toggle_detail(self) -> None:
        self.toggle_class("-no-detail")

    # --- decisions -----------------------------------------------------------------------------
    def _targets(self) -> list[str]:
        table = self.table
        keys = [k for k in table.records if k in table.selected] or [table.current_key]
        return [k for k in keys if k is not None and table.flags.get(k) not in
                ("approving", "rejecting")]

    def action_approve(self) -> None:
        keys = self._targets()
        if len(keys) == 1 and self._conflicted(keys[0]):
            self._ask_supersede(keys[0], Edits())
        elif keys:
            self.start("approve", keys)

    def _conflicted(self, key: str) -> bool:
        detail = self.details.get(key)
        return detail is not None and bool(detail.conflicts)

    def _ask_supersede(self, key: str, edits: Edits) -> None:
        detail = self.details.get(key)
        if detail is None:
            self.notify("Still loading this candidate's conflicts; try again.")
            return

        def chosen(result: Edits | None) -> None:
            if result is not None:
                self.start("approve", [key], edits=result)

        self.app.push_screen(SupersedeDialog(detail, edits), chosen)

    def action_supersede(self) -> None:
        key = self.table.current_key
        if key is None:
            return
        detail = self.details.get(key)
        if detail is not None and not detail.conflicts and detail.supersedes is None:
            self.notify("It conflicts with no active memory: a approves it as it is.")
            return
        self._ask_supersede(key, Edits())

    def action_edit(self) -> None:
        key = self.table.current_key
        if key is None or key not in self.table.records:
            return

        def edited(edits: Edits | None) -> None:
            if edits is None or key not in self.table.records:
                return
            if self._conflicted(key) and edits.supersede is None and edits.supersede_id is None:
                self._ask_supersede(key, edits)
            else:
                self.start("approve", [key], edits=edits)

        record = self.table.records[key]
        self.app.push_screen(EditDialog(record, self.app.now()), edited)

    def action_reject(self) -> None:
        keys = self._targets()
        if not keys:
            return
        first = one_line(self.table.records[keys[0]].statement, 70)
        body = first if len(keys) == 1 else f"{first}\n…and {len(keys) - 1} more"
        title = "Reject this candidate?" if len(keys) == 1 else f"Reject {len(keys)} candidates?"

        def answered(reason: str | None) -> None:
            if reason is not None:
                self.start("reject", [k for k in keys if k in self.table.records], reason=reason)

        self.app.push_screen(ConfirmDialog(title, body, "Reject", reason_label="Reason (optional)"),
                             answered)

    def start(self, action: str, keys: list[str], *, edits: Edits | None = None,
              reason: str | None = None) -> None:
        """Mark the rows in flight and move on at once; the store's answer arrives later."""
        table = self.table
        keys = [k for k in keys if k in table.records]
        if not keys:
            return
        statements = {k: table.records[k].statement for k in keys}
        for key in keys:
            table.set_flag(key, "approving" if action == "approve" else "rejecting")
        table.clear_selection()
        if table.current_key in keys:
            table.move_cursor(row=table.next_free_after(table.cursor_row))
        self.show_current(force=True)
        self._status()
        self._decide(action, statements, edits, reason)

    @work(thread=True, group="store", exit_on_error=False)
    def _decide(self, action: str, statements: dict[str, str], edits: Edits | None,
                reason: str | None) -> None:
        app = self.app
        for key, statement in statements.items():
            outcome = decide(app.store, action, key, actor=app.owner, edits=edits, reason=reason)
            self.post_message(DecisionFinished(action, key, statement, outcome))

    @on(DecisionFinished)
    def _decided(self, message: DecisionFinished) -> None:
        table, outcome, key = self.table, message.outcome, message.candidate_id
        what = one_line(message.statement, 48)
        verb = "Approved" if message.action == "approve" else "Rejected"
        if outcome.ok:
            memory_id = outcome.value.id if message.action == "approve" else None
            self.app.record_decision(Decision(message.action, key, message.statement, memory_id))
            table.drop(key)
            self.total = None if self.total is None else max(self.total - 1, 0)
            self.notify(f"{verb}: {what}", timeout=3)
        elif outcome.code in ("already_decided", "not_found"):
            table.drop(key)
            self.notify(f"Already decided elsewhere ({outcome.status or 'gone'}): {what}",
                        severity="warning")
        elif outcome.code == "reservation_held":
            table.set_flag(key, "error", f"held by {outcome.holder} ({outcome.status}): "
                                         "another approver has it")
            self.notify(f"Held by {outcome.holder}: {what}", severity="warning")
        else:
            kept = "; the reservation was released" if message.action == "approve" else ""
            table.set_flag(key, "error", f"{message.action} failed: {outcome.error}{kept}")
            self.notify(f"{message.action.title()} failed: {outcome.error}", severity="error")
        self._status()
        self.show_current(force=key == self.shown_key or self.shown_key not in table.records)
        self.app.check_store()

    # --- selection, filter, order ------------------------------------------------------------------
    def action_toggle_select(self) -> None:
        key = self.table.current_key
        if key is not None:
            self.table.toggle_selected(key)
            self.table.action_cursor_down()
            self._status()

    def action_clear(self) -> None:
        field = self.query_one("#queue-filter-input", Input)
        if field.has_focus:
            field.add_class("-hidden")
            self.table.focus()
        elif self.table.selected:
            self.table.clear_selection()
            self._status()
        elif self.spec.active:
            self._apply_filter(QuerySpec())

    def action_filter(self) -> None:
        field = self.query_one("#queue-filter-input", Input)
        field.value = self.spec.describe()
        field.remove_class("-hidden")
        field.focus()

    @on(Input.Submitted, "#queue-filter-input")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        try:
            spec = parse_query(event.value)
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        event.input.add_class("-hidden")
        self.table.focus()
        self._apply_filter(spec)

    def _apply_filter(self, spec: QuerySpec) -> None:
        self.spec = spec
        line = self.query_one("#queue-filter-line", Static)
        line.update(f"filter: {spec.describe()}   (/ change · esc clear)")
        line.set_class(not spec.active, "-hidden")
        self.reload()

    def action_sort(self) -> None:
        self._apply_order(SORT_ORDERS[(SORT_ORDERS.index(self.order) + 1) % len(SORT_ORDERS)]
                          if self.order in SORT_ORDERS else SORT_ORDERS[0])

    @on(DataTable.HeaderSelected, "#queue-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        order = sort_for_column(event.column_key.value or "", self.order)
        if order is not None:
            self._apply_order(order)

    def _apply_order(self, order) -> None:  # noqa: ANN001
        self.order = order
        self.table.show_order(order)
        self.reload()

    # --- the change feed ---------------------------------------------------------------------------
    def on_store_changed(self, changes: Changes) -> None:
        busy = {k for k, f in self.table.flags.items() if f in ("approving", "rejecting")}
        touched = changes.candidates - busy
        for key in touched:
            self.details.pop(key, None)
        if touched:
            self._refresh_rows(self.generation, sorted(touched))

    @work(thread=True, group="queue-feed", exit_on_error=False)
    def _refresh_rows(self, generation: int, keys: list[str]) -> None:
        outcome = attempt(fetch_candidates, self.app.store, keys)
        if outcome.ok:
            found, missing = outcome.value
            self.post_message(CandidatesRefreshed(generation, found, missing))

    @on(CandidatesRefreshed)
    def _rows_refreshed(self, message: CandidatesRefreshed) -> None:
        if message.generation != self.generation:
            return
        table, now = self.table, self.app.now()
        for key in message.missing:
            table.drop(key)
        user = self.app.store.user
        for c in message.candidates:
            if table.flags.get(c.id) in ("approving", "rejecting"):
                continue
            if c.scope.user == user and self.spec.matches(c):
                if c.id in table.records or self._in_window(c):
                    table.put(c, now)
            else:
                table.drop(c.id)
        self._count(self.generation)
        self.show_current(force=self.shown_key in {c.id for c in message.candidates})

    def _in_window(self, candidate) -> bool:  # noqa: ANN001
        """Inside what has been paged in: later rows arrive with their page."""
        if self.exhausted or self.page_after is None:
            return self.exhausted
        key = self.order.key(candidate)
        return key > self.page_after if self.order.newest_first else key < self.page_after
