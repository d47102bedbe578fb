"""The review queue: pending, stale and held candidates, with the selected one's detail.

Rows are paged in by keyset as the cursor nears the end and changed in place afterwards: a
decision removes its row when the store confirms it; the change feed adds, updates or removes
the rows other writers touched. Nothing reloads the whole table except a new filter or order.
"""

from __future__ import annotations

from memvet.inspector.filters import (
    SORT_ORDERS,
    QuerySpec,
    SortOrder,
    parse_query,
    sort_for_column,
)
from memvet.inspector.jobs import attempt, load_queue_page
from memvet.inspector.messages import DetailLoaded, QueueCounted, QueuePageLoaded
from memvet.inspector.screens.queue_changes import QueueChanges
from memvet.inspector.screens.queue_team import QueueTeam
from memvet.inspector.screens.review_screen import ReviewScreen
from memvet.inspector.widgets.candidate_view import CandidateView, state_note
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.inspector.widgets.queue_table import QueueTable
from memvet.inspector.widgets.screen_tabs import ScreenTabs
from memvet.store import CandidateDetail, QueueFilter
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.widgets import Input, Static

PREFETCH_MARGIN = 40  # rows before the end of what is loaded at which the next page is fetched
DETAIL_CACHE = 64


class QueueScreen(QueueChanges, QueueTeam, ReviewScreen):
    BINDINGS = [
        Binding("a", "approve", "Approve", id="queue-approve"),
        Binding("e", "edit", "Edit", id="queue-edit"),
        Binding("r", "reject", "Reject", id="queue-reject"),
        Binding("space", "toggle_select", "Select", id="queue-select"),
        Binding("s", "supersede", "Supersede", id="queue-supersede"),
        Binding("slash", "filter", "Filter", key_display="/", id="queue-filter"),
        Binding("o", "sort", "Sort", id="queue-sort"),
        Binding("z", "toggle_detail", "Detail", id="queue-detail"),
        Binding("T", "share_team", "To team", key_display="T", id="queue-share-team"),
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
        # A page is being read. Not `loading`: that is Textual's own flag, which covers the
        # whole screen with an indicator (the table hidden, its focus lost, keys ignored).
        self.reading_page = False
        self.total: int | None = None
        self.details: dict[str, CandidateDetail] = {}
        self.settled: set[str] = set()  # decided here; the total already counts them out
        self.shown_key: str | None = None

    def compose(self) -> ComposeResult:
        yield ScreenTabs("queue")
        yield Input(
            placeholder="host:codex kind:fact ws:/path ws:global words…  (enter: apply)",
            id="queue-filter-input",
            classes="-hidden",
        )
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
        self.table.show_order(self.order)
        self.app.store_changed.subscribe(self, self.on_store_changed)
        self.table.focus()
        self.reload()

    def on_resize(self) -> None:
        self.set_class(self.size.width >= 140, "-wide")

    # --- loading ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Start over: only for a new filter or order, never after a decision."""
        self.generation += 1
        self.table.reset()
        self.page_after, self.exhausted, self.reading_page, self.total = None, False, True, None
        self.details.clear()
        self.shown_key = None
        self.detail.message("Loading the queue…")
        self._status()
        self._next_page(first=True)

    def _next_page(self, first: bool) -> None:
        self.reading_page = True
        self._load_page(self.generation, self.spec.to_filter(), self.order, self.page_after, first)

    @work(thread=True, exclusive=True, group="queue-page", exit_on_error=False)
    def _load_page(
        self, generation: int, flt: QueueFilter, order: SortOrder, after: tuple | None, first: bool
    ) -> None:
        app = self.app
        outcome = attempt(
            load_queue_page,
            self.store,
            self.reader,
            flt,
            order,
            after,
            app.page_size,
            with_total=False,
        )
        self.post_message(QueuePageLoaded(generation, outcome.value, first, outcome.error))

    @work(thread=True, exclusive=True, group="queue-count", exit_on_error=False)
    def _count(self, generation: int) -> None:
        flt = self.spec.to_filter()  # immutable: safe to read here
        outcome = attempt(self.store.count_candidates, self.reader, flt)
        if outcome.ok:
            self.post_message(QueueCounted(generation, outcome.value))

    @on(QueuePageLoaded)
    def _page_loaded(self, message: QueuePageLoaded) -> None:
        if message.generation != self.generation:
            return
        if message.page is None:
            self.reading_page = False
            self.notify(f"Cannot load the queue: {message.error}", severity="error")
            if not self.table.row_count:
                self.detail.message(f"Cannot load the queue: {message.error}", "$error")
            return
        rows = message.page.rows
        self.table.add(rows, self.app.now())
        if rows:
            self.page_after = self.order.after(rows[-1])
        self.exhausted, self.reading_page = message.page.exhausted, False
        if message.first:
            self._count(self.generation)
            self.show_current()

    @on(QueueCounted)
    def _counted(self, message: QueueCounted) -> None:
        if message.generation == self.generation:
            self.total = message.total
            self._status()

    def _status(self) -> None:
        total = "counting…" if self.total is None else f"{self.total:,} queued"
        chosen = f" · {len(self.table.selected)} selected" if self.table.selected else ""
        self.query_one(ScreenTabs).set_status(f"{total}{chosen}")

    # --- the detail pane ----------------------------------------------------------------------
    @on(QueueTable.Highlighted, "#queue-table")
    def _highlighted(self) -> None:
        self.show_current()
        near_end = self.table.cursor_row >= self.table.row_count - PREFETCH_MARGIN
        if near_end and not self.exhausted and not self.reading_page:
            self._next_page(first=False)

    def show_current(self, force: bool = False) -> None:
        key = self.table.current_key
        if key is None:
            self.shown_key = None
            empty = (
                "Nothing matches this filter."
                if self.spec.active
                else ("The queue is empty. New candidates appear here as the daemon finds them.")
            )
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
            self.call_after_refresh(self._prefetch_next)  # paint first, then read ahead
            return
        self.detail.show(CandidateDetail(record, (), (), None, None), self.app.now(), note)
        self._load_detail(key)

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False)
    def _load_detail(self, key: str) -> None:
        outcome = attempt(self.store.candidate_detail, key)
        self.post_message(DetailLoaded(key, outcome.value, outcome.error))

    @work(thread=True, exclusive=True, group="detail-prefetch", exit_on_error=False)
    def _prefetch(self, key: str) -> None:
        outcome = attempt(self.store.candidate_detail, key)
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
            self.call_after_refresh(self.table.focus)  # after the hidden input lost focus
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
        self.call_after_refresh(self.table.focus)  # after the hidden input lost focus
        self._apply_filter(spec)

    def _apply_filter(self, spec: QuerySpec) -> None:
        self.spec = spec
        line = self.query_one("#queue-filter-line", Static)
        line.update(f"filter: {spec.describe()}   (/ change · esc clear)")
        line.set_class(not spec.active, "-hidden")
        self.reload()

    def action_sort(self) -> None:
        self._apply_order(
            SORT_ORDERS[(SORT_ORDERS.index(self.order) + 1) % len(SORT_ORDERS)]
            if self.order in SORT_ORDERS
            else SORT_ORDERS[0]
        )

    @on(QueueTable.HeaderClicked, "#queue-table")
    def _header(self, event: QueueTable.HeaderClicked) -> None:
        order = sort_for_column(event.column, self.order)
        if order is not None:
            self._apply_order(order)

    def _apply_order(self, order: SortOrder) -> None:
        self.order = order
        self.table.show_order(order)
        self.reload()
