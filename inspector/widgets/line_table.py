"""A lean line-API table: fixed-width columns of plain strings, a row cursor, and a fixed
header. A change re-renders only the rows it touched.

Why not DataTable: any change to one of its cells re-renders every visible cell (45-75 ms at
120x40), and each decision in the queue changes rows several times. Subclasses say what a row
shows (`cells`), how its first column is marked (`mark`) and whether it is dimmed (`dimmed`)."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

LINE_CACHE = 4000
MOVE = Binding.Group("Move", compact=True)
MOVE_BINDINGS = [
    Binding("j", "cursor_down", "Down", id="table-down", group=MOVE),
    Binding("k", "cursor_up", "Up", id="table-up", group=MOVE),
    Binding("g", "scroll_top", "Top", id="table-top", group=MOVE),
    Binding("G", "scroll_bottom", "Bottom", id="table-bottom", group=MOVE),
]


def fit(text: str, width: int, right: bool = False) -> str:
    """Exactly `width` cells: cut with an ellipsis, or padded."""
    if cell_len(text) > width:
        return set_cell_size(text, max(width - 1, 0)) + "…" if width else ""
    pad = " " * (width - cell_len(text))
    return pad + text if right else text + pad


class LineTable(ScrollView, can_focus=True):
    BINDINGS = [
        *MOVE_BINDINGS,
        Binding("up", "cursor_up", "Up", show=False, id="line-table-up"),
        Binding("down", "cursor_down", "Down", show=False, id="line-table-down"),
        Binding("pageup", "page_up", "Page up", show=False, id="line-table-page-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="line-table-page-down"),
        Binding("home", "scroll_top", "Top", show=False, id="line-table-home"),
        Binding("end", "scroll_bottom", "Bottom", show=False, id="line-table-end"),
    ]
    COMPONENT_CLASSES = {
        "line-table--header",
        "line-table--cursor",
        "line-table--odd",
        "line-table--dim",
    }
    DEFAULT_CSS = """
    LineTable { background: $surface; color: $foreground; }
    LineTable > .line-table--header { background: $panel; color: $foreground; text-style: bold; }
    LineTable > .line-table--cursor { background: $block-cursor-blurred-background; }
    LineTable:focus > .line-table--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold;
    }
    LineTable > .line-table--odd { background: $surface-darken-1; }
    LineTable > .line-table--dim { color: $text-muted; }
    """
    cursor_row: reactive[int] = reactive(0)

    class Highlighted(Message):
        """The cursor rests on another row (or the row under it changed)."""

        def __init__(self, table: LineTable, key: str | None) -> None:
            super().__init__()
            self.table, self.key = table, key

        @property
        def control(self) -> LineTable:
            return self.table

    class HeaderClicked(Message):
        def __init__(self, table: LineTable, column: str) -> None:
            super().__init__()
            self.table, self.column = table, column

        @property
        def control(self) -> LineTable:
            return self.table

    def __init__(
        self,
        columns: tuple[tuple[str, str], ...],
        widths: dict[str, int],
        *,
        flex: str,
        right: frozenset[str] = frozenset(),
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.columns, self.fixed, self.flex, self.right = columns, widths, flex, right
        self.widths = dict(widths, **{flex: 30})
        self.keys: list[str] = []
        self._index: dict[str, int] | None = None
        self._lines: dict[tuple, Strip] = {}

    # --- what subclasses say about a row -------------------------------------------------------
    def cells(self, key: str) -> list[str]:
        raise NotImplementedError

    def mark(self, key: str) -> tuple[str, str | None]:
        """The first column's glyph and the component class (without prefix) that colours it."""
        return " ", None

    def dimmed(self, key: str) -> bool:
        return False

    def header_label(self, column: str, label: str, width: int) -> str:
        return fit(label, width, column in self.right)

    # --- geometry --------------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self.keys)

    @property
    def visible_rows(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    def on_resize(self) -> None:
        room = self.scrollable_content_region.width - 2 * len(self.columns)
        fixed = sum(w for k, w in self.fixed.items() if k != self.flex)
        self.widths = dict(self.fixed, **{self.flex: max(room - fixed, 12)})
        self.changed()

    def changed(self) -> None:
        """Rows were added, removed or reordered: forget positions and cached lines."""
        self._index = None
        self._lines.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.keys) + 1)
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines.clear()

    # --- rendering -------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y == 0:
            return self._header(width)
        index = self.scroll_offset.y + y - 1
        if index >= len(self.keys):
            return Strip.blank(width, self.rich_style)
        key = self.keys[index]
        cache_key = (key, index == self.cursor_row, index % 2, self.has_focus, width)
        strip = self._lines.get(cache_key)
        if strip is None:
            if len(self._lines) > LINE_CACHE:
                self._lines.clear()
            strip = self._lines[cache_key] = self._row(key, index, width)
        return strip

    def _header(self, width: int) -> Strip:
        style = self.rich_style + self.get_component_rich_style("line-table--header")
        text = "".join(
            f" {self.header_label(k, label, self.widths[k])} " for k, label in self.columns
        )
        return Strip([Segment(text, style)]).adjust_cell_length(width, style)

    def _row(self, key: str, index: int, width: int) -> Strip:
        style = self.rich_style
        if index % 2:
            style += self.get_component_rich_style("line-table--odd", partial=True)
        if index == self.cursor_row:
            style += self.get_component_rich_style("line-table--cursor")
        glyph, state = self.mark(key)
        mark_style = style + self.get_component_rich_style(state, partial=True) if state else style
        text_style = style
        if self.dimmed(key):
            text_style += self.get_component_rich_style("line-table--dim", partial=True)
        rest = "".join(
            f" {fit(cell, self.widths[col], col in self.right)} "
            for (col, _), cell in zip(self.columns[1:], self.cells(key), strict=True)
        )
        segments = [
            Segment(" ", style),
            Segment(fit(glyph, self.widths[self.columns[0][0]]), mark_style),
            Segment(" ", style),
            Segment(rest, text_style),
        ]
        return Strip(segments).adjust_cell_length(width, style)

    def refresh_key(self, key: str) -> None:
        """Re-render one row, and only it."""
        index = self.index_of(key)
        if index is None:
            return
        for cache_key in [k for k in self._lines if k[0] == key]:
            del self._lines[cache_key]
        self.refresh_line(index + 1)

    # --- keys and positions ---------------------------------------------------------------------
    def index_of(self, key: str) -> int | None:
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self.keys)}
        return self._index.get(key)

    def key_at(self, index: int) -> str | None:
        return self.keys[index] if 0 <= index < len(self.keys) else None

    @property
    def current_key(self) -> str | None:
        return self.key_at(min(self.cursor_row, len(self.keys) - 1))

    # --- the cursor ------------------------------------------------------------------------------
    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, len(self.keys) - 1))

    def watch_cursor_row(self, old: int, new: int) -> None:
        for index in (old, new):
            key = self.key_at(index)
            if key is not None:
                self.refresh_key(key)
        top = self.scroll_offset.y
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new > top + self.visible_rows - 1:
            self.scroll_to(y=new - self.visible_rows + 1, animate=False, immediate=True)
        self.highlight()

    def highlight(self) -> None:
        self.post_message(self.Highlighted(self, self.current_key))

    def move_cursor(self, *, row: int) -> None:
        self.cursor_row = row

    def move_to_key(self, key: str) -> bool:
        index = self.index_of(key)
        if index is not None:
            self.cursor_row = index
        return index is not None

    def action_cursor_down(self) -> None:
        self.cursor_row += 1

    def action_cursor_up(self) -> None:
        self.cursor_row -= 1

    def action_page_down(self) -> None:
        self.cursor_row += self.visible_rows

    def action_page_up(self) -> None:
        self.cursor_row -= self.visible_rows

    def action_scroll_top(self) -> None:
        self.cursor_row = 0

    def action_scroll_bottom(self) -> None:
        self.cursor_row = len(self.keys) - 1

    def on_focus(self) -> None:
        self._lines.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._lines.clear()
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y > 0:
            self.cursor_row = self.scroll_offset.y + offset.y - 1
            return
        x = 0
        for key, _ in self.columns:
            x += self.widths[key] + 2
            if offset.x < x:
                self.post_message(self.HeaderClicked(self, key))
                return
