"""The footer: every shown binding of the screen, wrapped over as many lines as the width needs
(two at 80 columns), so no key is ever hidden. Keys are clickable. Bindings in a group (the
movement keys, the screen numbers) share one description."""

from __future__ import annotations

from textual.binding import ActiveBinding, Binding
from textual.content import Content
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Static

KEY = "$footer-key-foreground bold"
DESCRIPTION = "$footer-description-foreground"
GAP = "  "


class KeyFooter(Static):
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: auto;
        max-height: 3;
        padding: 0 1;
        background: $footer-background;
        color: $footer-foreground;
        link-style: none;
        link-style-hover: reverse;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.call_after_refresh(self.render_keys)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is self.screen:
            self.call_after_refresh(self.render_keys)

    def on_resize(self) -> None:
        self.render_keys()

    def items(self) -> list[Content]:
        """One entry per action (or binding group), in binding order."""
        groups: dict[object, tuple[list[tuple[Binding, bool]], str]] = {}
        screen, app = self.screen, self.app

        # The screen's own actions first, then the focused widget's, then the app's.
        def rank(active: ActiveBinding) -> tuple[int, int]:
            node = active.node
            own = [b.id for b in getattr(type(node), "BINDINGS", []) if isinstance(b, Binding)]
            place = own.index(active.binding.id) if active.binding.id in own else len(own)
            return (0 if node is screen else 2 if node is app else 1), place

        active = sorted(screen.active_bindings.values(), key=rank)
        for _node, binding, enabled, _tooltip in active:
            if not binding.show or not binding.description:
                continue
            group = binding.group or binding.action
            entries, description = groups.setdefault(
                group, ([], binding.group.description if binding.group else binding.description)
            )
            if all(b.action != binding.action for b, _ in entries):
                entries.append((binding, enabled))
        items = []
        for entries, description in groups.values():
            keys = [
                Content.from_markup(
                    f"[@click=app.simulate_key({b.key!r})]{escape(app.get_key_display(b))}[/]"
                ).stylize(KEY if on else "dim")
                for b, on in entries
            ]
            enabled = any(on for _, on in entries)
            items.append(
                Content.assemble(
                    Content("").join(keys), " ", (description, DESCRIPTION if enabled else "dim")
                )
            )
        items.append(Content.assemble(("^p", KEY), " ", ("palette", DESCRIPTION)))
        return items

    def render_keys(self) -> None:
        if not self.is_attached:
            return
        width = max((self.size.width or self.app.size.width) - 2, 20)
        lines: list[Content] = []
        line = Content("")
        for item in self.items():
            if line.cell_length and line.cell_length + len(GAP) + item.cell_length > width:
                lines.append(line)
                line = Content("")
            line = item if not line.cell_length else Content.assemble(line, GAP, item)
        lines.append(line)
        self.update(Content("\n").join(lines))
