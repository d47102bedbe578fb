"""Shown instead of the inspector when the store cannot be opened: what went wrong and the one
command that fixes it. The inspector never migrates or repairs anything itself."""

from __future__ import annotations

from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.store import MemvetError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

FIXES = {
    "schema_mismatch": "Run `memvet migrate` (or start the daemon with `memvet up`, which "
    "upgrades the store), then open the inspector again.",
    "key_missing": "The store's key is not where it was recorded. Run `memvet key status` to "
    "see which provider should hold it.",
    "key_wrong": "The key found does not open this store. Run `memvet key status`; restore the "
    "key the store was created with.",
    "keyring_locked": "Unlock your keyring (log in to the desktop session), then try again.",
    "integrity": "A record failed authentication. Run `memvet audit verify` to find it.",
}
DEFAULT_FIX = "Run `memvet status` for details."


def fix_for(error: MemvetError) -> str:
    return FIXES.get(error.code, DEFAULT_FIX)


class StoreErrorScreen(Screen[None]):
    BINDINGS = [Binding("q", "quit", "Quit", id="error-quit")]

    def __init__(self, error: MemvetError) -> None:
        super().__init__(id="store-error")
        self.error = error

    def compose(self) -> ComposeResult:
        with Vertical(classes="error-panel"):
            yield Static(Content.styled("memvet cannot open the store", "$error bold"))
            yield Static(Content(self.error.message), classes="error-message")
            yield Static(
                Content.assemble(("What to do: ", "bold"), fix_for(self.error)), classes="error-fix"
            )
            yield Static(
                Content.styled(f"error code: {self.error.code} · press q to quit", "$text-muted")
            )
        yield KeyFooter()

    def action_quit(self) -> None:
        self.app.exit(return_code=self.error.exit_code)
