"""The review queue as a table: one row per loaded candidate, changed in place, never reloaded.

The table holds only what was paged in. The first column marks a row's state: ● selected,
⋯ decision in flight, ✗ the last decision failed, ⚑ held by another approver, ◷ stale
reservation (settle it in Recovery)."""

from __future__ import annotations

from datetime import datetime

from memvet.inspector.filters import SortOrder
from memvet.inspector.formatting import age, host_label, kind_label, one_line, workspace_name
from memvet.inspector.widgets.line_table import LineTable, fit
from memvet.store import Candidate
from memvet.store.leases import LEASED
from memvet.store.vocabulary import CandidateStatus

COLUMNS = (
    ("mark", " "),
    ("kind", "kind"),
    ("statement", "statement"),
    ("workspace", "workspace"),
    ("host", "host"),
    ("confidence", "conf"),
    ("evidence", "ev"),
    ("age", "age"),
)
FIXED = {"mark": 1, "kind": 4, "workspace": 12, "host": 6, "confidence": 4, "evidence": 3, "age": 4}
MARKS = {
    "approving": ("⋯", "busy"),
    "rejecting": ("⋯", "busy"),
    "error": ("✗", "error"),
    "selected": ("●", "selected"),
    "held": ("⚑", "held"),
    "stale": ("◷", "held"),
}
BUSY = ("approving", "rejecting")


class QueueTable(LineTable):
    COMPONENT_CLASSES = LineTable.COMPONENT_CLASSES | {
        "queue-table--busy",
        "queue-table--error",
        "queue-table--selected",
        "queue-table--held",
    }
    DEFAULT_CSS = """
    QueueTable > .queue-table--busy { color: $primary; text-style: bold; }
    QueueTable > .queue-table--error { color: $error; text-style: bold; }
    QueueTable > .queue-table--selected { color: $accent; text-style: bold; }
    QueueTable > .queue-table--held { color: $warning; text-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            COLUMNS,
            FIXED,
            flex="statement",
            right=frozenset({"confidence", "evidence", "age"}),
            id=id,
        )
        self.records: dict[str, Candidate] = {}
        self.flags: dict[str, str] = {}  # approving | rejecting | error
        self.errors: dict[str, str] = {}
        self.selected: set[str] = set()
        self.order: SortOrder | None = None
        self._cells: dict[str, list[str]] = {}

    # --- how a row looks ------------------------------------------------------------------------
    def cells(self, key: str) -> list[str]:
        return self._cells[key]

    def mark(self, key: str) -> tuple[str, str | None]:
        state = self.flags.get(key)
        if state is None and key in self.selected:
            state = "selected"
        record = self.records.get(key)
        if state is None and record is not None and record.status in LEASED:
            state = "held" if record.status == CandidateStatus.RESERVED else "stale"
        if state is None:
            return " ", None
        glyph, style = MARKS[state]
        return glyph, f"queue-table--{style}"

    def dimmed(self, key: str) -> bool:
        return self.flags.get(key) in BUSY

    def header_label(self, column: str, label: str, width: int) -> str:
        order = self.order
        if order is None or column != order.column:
            return super().header_label(column, label, width)
        arrow = "▼" if order.newest_first != (column == "age") else "▲"  # ▲: values grow down
        return fit(label, width - 1, column in self.right) + arrow

    def on_resize(self) -> None:
        room = self.scrollable_content_region.width - 2 * len(self.columns)
        self.fixed = dict(FIXED, workspace=12 if room < 100 else 20)
        super().on_resize()

    def show_order(self, order: SortOrder) -> None:
        self.order = order
        self.refresh_line(self.scroll_offset.y)

    # --- rows ------------------------------------------------------------------------------------
    def _format(self, c: Candidate, now: datetime) -> list[str]:
        return [
            kind_label(c.kind, short=True),
            one_line(c.statement, 240),
            workspace_name(c.scope),
            host_label(c.host),
            f"{c.confidence:.2f}",
            str(c.evidence_count),
            age(now, c.created_at),
        ]

    def add(self, candidates: list[Candidate], now: datetime) -> int:
        """Append a page; rows already present (the change feed got there first) are skipped."""
        fresh = [c for c in candidates if c.id not in self.records]
        for c in fresh:
            self.records[c.id] = c
            self._cells[c.id] = self._format(c, now)
            self.keys.append(c.id)
        if fresh:
            self.changed()
            if len(self.keys) == len(fresh):
                self.highlight()
        return len(fresh)

    def put(self, candidate: Candidate, now: datetime) -> None:
        """Update a row in place, or insert it where the current order puts it."""
        key = candidate.id
        self.records[key] = candidate
        self._cells[key] = self._format(candidate, now)
        if self.index_of(key) is not None:
            self.refresh_key(key)
            return
        empty = not self.keys
        position = self._position(candidate)
        self.keys.insert(position, key)
        self.changed()
        if empty:
            self.highlight()
        elif position <= self.cursor_row:
            self.cursor_row += 1  # stay on the same record

    def _position(self, candidate: Candidate) -> int:
        """Binary search in the loaded rows, which are in the store's order."""
        if self.order is None:
            return len(self.keys)
        order, new = self.order, self.order.key(candidate)
        lo, hi = 0, len(self.keys)
        while lo < hi:
            mid = (lo + hi) // 2
            other = order.key(self.records[self.keys[mid]])
            if (other > new) if order.newest_first else (other < new):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def drop(self, key: str) -> bool:
        """Remove a row, keeping the cursor on the row it was on (or the next one)."""
        index = self.index_of(key)
        if index is None:
            return False
        del self.keys[index]
        for table in (self.records, self._cells, self.flags, self.errors):
            table.pop(key, None)
        self.selected.discard(key)
        self.changed()
        if index < self.cursor_row:
            self.set_reactive(QueueTable.cursor_row, self.cursor_row - 1)
        elif self.cursor_row >= len(self.keys) and self.keys:
            self.set_reactive(QueueTable.cursor_row, len(self.keys) - 1)
        if index <= self.cursor_row:
            self.highlight()
        return True

    def set_flag(self, key: str, flag: str | None, error: str | None = None) -> None:
        for table, value in ((self.flags, flag), (self.errors, error)):
            if value is None:
                table.pop(key, None)
            else:
                table[key] = value
        self.refresh_key(key)

    def toggle_selected(self, key: str) -> None:
        self.selected.symmetric_difference_update({key})
        self.refresh_key(key)

    def clear_selection(self) -> None:
        chosen, self.selected = self.selected, set()
        for key in chosen:
            self.refresh_key(key)

    def reset(self) -> None:
        for table in (self.records, self._cells, self.flags, self.errors):
            table.clear()
        self.keys, self.selected = [], set()
        self.set_reactive(QueueTable.cursor_row, 0)
        self.scroll_to(y=0, animate=False)
        self.changed()

    def next_free_after(self, index: int) -> int:
        """The first row after `index` with no decision in flight (or the last row)."""
        for i in range(index + 1, len(self.keys)):
            if self.flags.get(self.keys[i]) not in BUSY:
                return i
        return min(index + 1, max(len(self.keys) - 1, 0))
