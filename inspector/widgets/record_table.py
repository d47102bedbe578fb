"""A LineTable of records given as plain strings: memories, stale reservations, tombstones,
audit events. The first column is a word (a status, a reason) coloured by its tone."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from memvet.inspector.widgets.line_table import LineTable

Row = tuple[str, list[str], str | None]  # key, cells (first column first), tone


class RecordTable(LineTable):
    COMPONENT_CLASSES = LineTable.COMPONENT_CLASSES | {
        "record-table--good",
        "record-table--warn",
        "record-table--bad",
        "record-table--muted",
    }
    DEFAULT_CSS = """
    RecordTable > .record-table--good { color: $success; }
    RecordTable > .record-table--warn { color: $warning; text-style: bold; }
    RecordTable > .record-table--bad { color: $error; }
    RecordTable > .record-table--muted { color: $text-muted; }
    """

    def __init__(
        self,
        columns: tuple[tuple[str, str, int], ...],
        *,
        flex: str,
        right: frozenset[str] = frozenset(),
        id: str | None = None,
    ) -> None:
        super().__init__(
            tuple((k, label) for k, label, _ in columns),
            {k: w for k, _, w in columns},
            flex=flex,
            right=right,
            id=id,
        )
        self.rows: dict[str, tuple[list[str], str | None]] = {}

    def cells(self, key: str) -> list[str]:
        return self.rows[key][0][1:]

    def mark(self, key: str) -> tuple[str, str | None]:
        cells, tone = self.rows[key]
        return cells[0], f"record-table--{tone}" if tone else None

    def set_rows(self, rows: Iterable[Row]) -> None:
        """Replace every row, keeping the cursor on the record it was on when it is still here."""
        keep = self.current_key
        self.rows = {key: (cells, tone) for key, cells, tone in rows}
        self.keys = list(self.rows)
        self.changed()
        index = self.index_of(keep) if keep is not None else None
        self.set_reactive(
            RecordTable.cursor_row,
            self.validate_cursor_row(index if index is not None else self.cursor_row),
        )
        self.highlight()

    def put(self, key: str, cells: list[str], tone: str | None = None) -> None:
        """Update a row in place, or append it."""
        known = key in self.rows
        self.rows[key] = (cells, tone)
        if known:
            self.refresh_key(key)
            return
        self.keys.append(key)
        self.changed()
        if len(self.keys) == 1:
            self.highlight()

    def drop(self, key: str) -> None:
        """Take the row out (`drop`, as in QueueTable: Widget.remove takes out the table)."""
        index = self.index_of(key)
        if index is None:
            return
        del self.keys[index]
        del self.rows[key]
        self.changed()
        if index < self.cursor_row:
            self.set_reactive(RecordTable.cursor_row, self.cursor_row - 1)
        self.set_reactive(RecordTable.cursor_row, self.validate_cursor_row(self.cursor_row))
        if index <= self.cursor_row:
            self.highlight()

    def sort_rows(self, key: Callable[[str], Any], reverse: bool = False) -> None:
        keep = self.current_key
        self.keys.sort(key=key, reverse=reverse)
        self.changed()
        if keep is not None:
            self.set_reactive(RecordTable.cursor_row, self.index_of(keep) or 0)
