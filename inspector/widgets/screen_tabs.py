"""The top line of every screen: which screen this is among the five (click or press 1-5),
and a short status on the right (counts, filter, as-of time)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

SCREENS = (
    ("queue", "Queue"),
    ("memories", "Memories"),
    ("recovery", "Recovery"),
    ("tombstones", "Tombstones"),
    ("audit", "Audit"),
)


class ScreenTabs(Horizontal):
    DEFAULT_CSS = """
    ScreenTabs .tabs {
        link-style: none;
        link-style-hover: reverse;
    }
    """

    def __init__(self, current: str) -> None:
        super().__init__(classes="screen-tabs")
        self.current = current

    def compose(self) -> ComposeResult:
        parts: list[Content] = []
        for n, (mode, title) in enumerate(SCREENS, 1):
            label = Content.from_markup(f"[@click=app.switch_mode('{mode}')] {n} {title} [/]")
            if mode == self.current:
                label = label.stylize("$block-cursor-foreground on $block-cursor-background bold")
            else:
                label = label.stylize("$text-muted")
            parts.append(label)
        yield Static(Content("").join(parts), classes="tabs")
        yield Static("", classes="screen-status")

    def set_status(self, text: str | Content) -> None:
        # Its size is fixed (1fr × 1 line): no layout of the whole screen per change, which a
        # decision makes twice (issue 15: approve → next row).
        self.query_one(".screen-status", Static).update(text, layout=False)
