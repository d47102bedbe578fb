"""A DataTable with the inspector's movement keys (j/k/g/G beside the arrows) and row cursor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

MOVE = Binding.Group("Move", compact=True)


class KeyedCell(Text):
    """A row's first cell. It carries the row key, because DataTable.sort() hands its key
    function cell values, not row keys."""

    def __init__(self, text: str, row_key: str, style: Style | str = "") -> None:
        super().__init__(text, style=style, no_wrap=True, overflow="ellipsis")
        self.row_key = row_key


class KeyTable(DataTable[Any]):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", id="table-down", group=MOVE),
        Binding("k", "cursor_up", "Up", id="table-up", group=MOVE),
        Binding("g", "scroll_top", "Top", id="table-top", group=MOVE),
        Binding("G", "scroll_bottom", "Bottom", id="table-bottom", group=MOVE),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None,
                 widths: dict[str, int] | None = None, flex: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self.widths = dict(widths or {})
        self.flex = flex  # the column that takes the room the others leave

    def column_widths(self, room: int) -> dict[str, int]:
        if self.flex is None:
            return self.widths
        fixed = sum(w for k, w in self.widths.items() if k != self.flex)
        return {**self.widths, self.flex: max(room - fixed, 12)}

    def _on_resize(self, event) -> None:  # noqa: ANN001 - Textual's Resize event
        self.fit_columns()
        super()._on_resize(event)

    def fit_columns(self) -> None:
        """Fixed column widths, so a long statement never scrolls the table sideways."""
        if not self.columns or not self.widths:
            return
        room = self.size.width - 1 - 2 * self.cell_padding * len(self.columns)
        widths = self.column_widths(room)
        for key, column in self.columns.items():
            column.width = widths.get(key.value or "", column.width)
            column.auto_width = False
        # Column widths are plain attributes: ask the table to re-measure and re-render.
        self._require_update_dimensions = True
        self._update_count += 1
        self.refresh(layout=True)

    @property
    def current_key(self) -> str | None:
        """The key of the row under the cursor, or None when the table is empty."""
        if not self.row_count:
            return None
        row = min(self.cursor_row, self.row_count - 1)
        return self.coordinate_to_cell_key((row, 0)).row_key.value

    def key_at(self, index: int) -> str | None:
        if 0 <= index < self.row_count:
            return self.coordinate_to_cell_key((index, 0)).row_key.value
        return None

    def move_to_key(self, key: str) -> bool:
        try:
            index = self.get_row_index(key)
        except Exception:  # RowDoesNotExist
            return False
        self.move_cursor(row=index)
        return True

    def sort_rows(self, key: Callable[[str], Any], reverse: bool = False) -> None:
        """Re-order the rows by a key of their row key, keeping the cursor on its row."""
        keep = self.current_key
        first = next(iter(self.columns))
        self.sort(first, key=lambda cell: key(cell.row_key), reverse=reverse)
        if keep is not None:
            self.move_to_key(keep)
