"""Every key of every screen, with the binding id to remap it (keymap.toml in MEMVET_HOME).
Built from the bindings themselves, so it cannot drift from what the keys do."""

from __future__ import annotations

from memvet.inspector.widgets.key_footer import KeyFooter
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


def _sections() -> list[tuple[str, list[Binding]]]:
    # Imported here: the screens import nothing from this module, and the app imports this.
    from memvet.inspector.app import ReviewApp
    from memvet.inspector.screens.audit import AuditScreen
    from memvet.inspector.screens.memories import MemoriesScreen
    from memvet.inspector.screens.queue import QueueScreen
    from memvet.inspector.screens.recovery import RecoveryScreen
    from memvet.inspector.screens.tombstones import TombstonesScreen
    from memvet.inspector.widgets.line_table import LineTable

    def bindings(cls: type) -> list[Binding]:
        return [b for b in cls.BINDINGS if isinstance(b, Binding)]

    return [
        ("Everywhere", bindings(ReviewApp)),
        ("In every table", bindings(LineTable)),
        ("1 Queue", bindings(QueueScreen)),
        ("2 Memories", bindings(MemoriesScreen)),
        ("3 Recovery", bindings(RecoveryScreen)),
        ("4 Tombstones", bindings(TombstonesScreen)),
        ("5 Audit", bindings(AuditScreen)),
    ]


NOTES = (
    "Arrows, page up/down and the mouse work too. ctrl+p opens the command palette with every "
    "action of the current screen.",
    "Queue filter (/): host:codex kind:fact ws:/path/to/repo ws:global, other words match the "
    "statement. esc clears the selection, then the filter.",
    "A decision shows as ⋯ until the store confirms it; ✗ marks a row whose decision failed "
    "(the reason is in the detail pane); ⚑ is held by another approver; ◷ is stale (Recovery).",
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="help-close"),
        Binding("question_mark", "dismiss", "Close", key_display="?", id="help-close-key"),
    ]

    def compose(self) -> ComposeResult:
        keymap = getattr(self.app, "keymap_overrides", {})
        lines: list[Content] = []
        for title, bindings in _sections():
            lines.append(Content.styled(title, "bold $accent"))
            for b in bindings:
                key = keymap.get(b.id or "", b.key_display or b.key)
                lines.append(
                    Content.assemble(
                        f"  {key:<10}",
                        (f"{b.description:<14}", "bold"),
                        (f" {b.id}", "$text-muted"),
                    )
                )
        lines.append(Content(""))
        lines.extend(Content.styled(note, "$text-muted") for note in NOTES)
        with Vertical(classes="dialog dialog-wide help"):
            yield Static("Keys", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(Content("\n").join(lines))
            yield Static("esc or ? closes", classes="dialog-hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()
