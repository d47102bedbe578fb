"""The review queue as a table: one row per loaded candidate, changed in place, never reloaded.

The table holds only what was paged in. A mark in the first column tells the row's state:
● selected, ⋯ decision in flight, ✗ the last decision failed, ⚑ held by another approver,
◷ stale reservation (settle it in Recovery)."""

from __future__ import annotations

from datetime import datetime

from memvet.inspector.filters import SortOrder
from memvet.inspector.formatting import age, host_label, kind_label, one_line, workspace_name
from memvet.inspector.widgets.key_table import KeyedCell, KeyTable
from memvet.store import Candidate
from rich.style import Style
from rich.text import Text

COLUMNS = (("mark", " "), ("kind", "kind"), ("statement", "statement"),
           ("workspace", "workspace"), ("host", "host"), ("confidence", "conf"),
           ("evidence", "ev"), ("age", "age"))
FIXED = {"mark": 1, "kind": 4, "host": 6, "confidence": 4, "evidence": 3, "age": 3}
RIGHT = {"confidence", "evidence", "age"}
STATEMENT_CELL = 240  # characters kept in a cell; the detail pane shows all of it
MARKS = {"approving": ("⋯", "primary"), "rejecting": ("⋯", "primary"), "error": ("✗", "error"),
         "selected": ("●", "accent"), "held": ("⚑", "warning"), "stale": ("◷", "warning")}


class QueueTable(KeyTable):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, widths=FIXED)
        self.records: dict[str, Candidate] = {}
        self.flags: dict[str, str] = {}  # approving | rejecting | error
        self.errors: dict[str, str] = {}
        self.selected: set[str] = set()
        self.order: SortOrder | None = None

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key, width=FIXED.get(key, 10))
        self.fit_columns()

    def column_widths(self, room: int) -> dict[str, int]:
        """The workspace grows on wide terminals; the statement takes the rest."""
        workspace = 12 if room < 100 else 20
        statement = max(room - sum(FIXED.values()) - workspace, 12)
        return {**FIXED, "workspace": workspace, "statement": statement}

    def show_order(self, order: SortOrder) -> None:
        self.order = order
        arrow = "▼" if order.newest_first != (order.column == "age") else "▲"
        for key, label in COLUMNS:
            text = f"{label}{arrow}" if key == order.column else label
            self.columns[key].label = Text(text)  # type: ignore[index]
        self._update_count += 1
        self.refresh()

    # --- rows -----------------------------------------------------------------------------
    def _cells(self, c: Candidate, now: datetime) -> list[Text]:
        return [
            self._mark(c.id),
            Text(kind_label(c.kind, short=True)),
            Text(one_line(c.statement, STATEMENT_CELL), no_wrap=True, overflow="ellipsis"),
            Text(workspace_name(c.scope), no_wrap=True, overflow="ellipsis"),
            Text(host_label(c.host)),
            Text(f"{c.confidence:.2f}", justify="right"),
            Text(str(c.evidence_count), justify="right"),
            Text(age(now, c.created_at), justify="right"),
        ]

    def _mark(self, key: str) -> KeyedCell:
        record = self.records.get(key)
        state = self.flags.get(key)
        if state is None and key in self.selected:
            state = "selected"
        if state is None and record is not None and record.status in ("reserved", "stale"):
            state = "held" if record.status == "reserved" else "stale"
        if state is None:
            return KeyedCell(" ", key)
        glyph, variable = MARKS[state]
        color = self.app.theme_variables.get(variable)
        return KeyedCell(glyph, key, Style(color=color, bold=True) if color else "bold")

    def add(self, candidates: list[Candidate], now: datetime) -> int:
        """Append a page; rows already present (the change feed got there first) are skipped."""
        added = 0
        for c in candidates:
            if c.id in self.records:
                continue
            self.records[c.id] = c
            self.add_row(*self._cells(c, now), key=c.id)
            added += 1
        return added

    def put(self, candidate: Candidate, now: datetime) -> None:
        """Update a row in place, or insert it where the current order puts it."""
        if candidate.id in self.records:
            self.records[candidate.id] = candidate
            for (key, _), cell in zip(COLUMNS, self._cells(candidate, now), strict=True):
                self.update_cell(candidate.id, key, cell)
            return
        last = self.key_at(self.row_count - 1)
        self.records[candidate.id] = candidate
        self.add_row(*self._cells(candidate, now), key=candidate.id)
        order = self.order
        if order is not None and last is not None and self._before(candidate.id, last):
            self.sort_rows(lambda key: order.key(self.records[key]), reverse=order.newest_first)

    def _before(self, key: str, other: str) -> bool:
        assert self.order is not None
        a, b = self.order.key(self.records[key]), self.order.key(self.records[other])
        return a > b if self.order.newest_first else a < b

    def drop(self, key: str) -> bool:
        """Remove a row, keeping the cursor on the row it was on (or the next one)."""
        if key not in self.records:
            return False
        index = self.get_row_index(key)
        cursor = self.cursor_row
        del self.records[key]
        self.flags.pop(key, None)
        self.errors.pop(key, None)
        self.selected.discard(key)
        self.remove_row(key)
        if index < cursor:
            self.move_cursor(row=cursor - 1, scroll=False)
        return True

    def set_flag(self, key: str, flag: str | None, error: str | None = None) -> None:
        if flag is None:
            self.flags.pop(key, None)
        else:
            self.flags[key] = flag
        if error is None:
            self.errors.pop(key, None)
        else:
            self.errors[key] = error
        self.refresh_mark(key)

    def refresh_mark(self, key: str) -> None:
        if key in self.records:
            self.update_cell(key, "mark", self._mark(key))

    def toggle_selected(self, key: str) -> None:
        if key in self.selected:
            self.selected.discard(key)
        else:
            self.selected.add(key)
        self.refresh_mark(key)

    def clear_selection(self) -> None:
        for key in list(self.selected):
            self.selected.discard(key)
            self.refresh_mark(key)

    def reset(self) -> None:
        self.records.clear()
        self.flags.clear()
        self.errors.clear()
        self.selected.clear()
        self.clear()

    def next_free_after(self, index: int) -> int:
        """The first row after `index` with no decision in flight (or the last row)."""
        for i in range(index + 1, self.row_count):
            if self.key_at(i) not in self.flags or self.flags[self.key_at(i)] == "error":
                return i
        return min(index + 1, max(self.row_count - 1, 0))
