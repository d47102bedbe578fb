"""The inspector: a keyboard-driven review app over the store.

`make_app` is the one factory the CLI, the tests and the benchmark use. The app holds what is
shared by its five screens (the store, the clock, who we are, this session's decisions) and the
change feed: it polls the store's ChangeSignal, reads the audit events written since the last
look, and publishes them to the screens, which update only what those events touched.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial

from memvet.inspector.formatting import one_line
from memvet.inspector.jobs import Changes, Decision, attempt, read_changes, undo
from memvet.inspector.messages import StoreChanged, UndoFinished
from memvet.inspector.palette import RecordSearch
from memvet.inspector.screens.audit import AuditScreen
from memvet.inspector.screens.help import HelpScreen
from memvet.inspector.screens.memories import MemoriesScreen
from memvet.inspector.screens.queue import QueueScreen
from memvet.inspector.screens.recovery import RecoveryScreen
from memvet.inspector.screens.store_error import StoreErrorScreen
from memvet.inspector.screens.tombstones import TombstonesScreen
from memvet.store import MemvetError, Store
from memvet.store.reservation import default_owner
from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.signal import Signal

Clock = Callable[[], datetime]
SCREENS_GROUP = Binding.Group("Screens", compact=True)
ALWAYS = {"quit", "help", "command_palette"}
CONFIRM_QUIET = 1.5  # seconds
UNDONE = {
    "false_write": "False write undone: active again, tombstone lifted",
    "forget": "Forget undone: active again, tombstone lifted",
    "dispute": "Dispute undone: active again",
    "resolve": "Resolve undone: disputed again",
    "restore": "Restore undone: retired again",
}


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class FeedRead(Message):
    version: int | None
    changes: Changes | None
    error: str | None = None


class ReviewApp(App[int]):
    CSS_PATH = "inspector.tcss"
    TITLE = "memvet"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {RecordSearch}  # the app's actions, and records by statement
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app-quit"),
        Binding("question_mark", "help", "Help", key_display="?", id="app-help"),
        Binding("u", "undo", "Undo", id="app-undo"),
        Binding("1", "switch_mode('queue')", "Queue", id="app-queue", group=SCREENS_GROUP),
        Binding("2", "switch_mode('memories')", "Memories", id="app-memories", group=SCREENS_GROUP),
        Binding("3", "switch_mode('recovery')", "Recovery", id="app-recovery", group=SCREENS_GROUP),
        Binding(
            "4", "switch_mode('tombstones')", "Tombstones", id="app-tombstones", group=SCREENS_GROUP
        ),
        Binding("5", "switch_mode('audit')", "Audit", id="app-audit", group=SCREENS_GROUP),
    ]
    MODES = {
        "queue": QueueScreen,
        "memories": MemoriesScreen,
        "recovery": RecoveryScreen,
        "tombstones": TombstonesScreen,
        "audit": AuditScreen,
    }

    def __init__(
        self,
        store: Store | None,
        *,
        clock: Clock = _utcnow,
        owner: str | None = None,
        theme: str = "textual-dark",
        poll_interval: float = 0.5,
        page_size: int = 200,
        keymap: Mapping[str, str] | None = None,
        note: str | None = None,
        error: MemvetError | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.clock = clock
        self.owner = owner or default_owner("inspector")
        self.reader = store.reader_for(None, all_scopes=True) if store is not None else None
        self.page_size = page_size
        self.poll_interval = poll_interval
        self.keymap_overrides = dict(keymap or {})
        self.startup_note = note
        self.startup_error = error
        self.initial_theme = theme
        self.decisions: list[Decision] = []
        self.store_changed: Signal[Changes] = Signal(self, "store-changed")
        self.feed_seq: int | None = None
        self._feed_version: int | None = None
        self._feed_busy = False
        self._feed_error: str | None = None
        self._signal = None
        self._last_confirm = -CONFIRM_QUIET
        self._signal_lock = threading.Lock()  # a feed thread may be reading it as we close it

    def now(self) -> datetime:
        value = self.clock()
        return value if value.tzinfo else value.replace(tzinfo=UTC)

    # --- start ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.theme = self.initial_theme
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)
        if self.store is None:
            error = self.startup_error or MemvetError("the store is unavailable")
            self.push_screen(StoreErrorScreen(error))
            return
        self._signal = self.store.change_signal()
        self._start_feed(self.store)

    @work(thread=True, group="feed", exit_on_error=False)
    def _start_feed(self, store: Store) -> None:
        outcome = attempt(store.audit_head)
        changes = Changes(outcome.value) if outcome.ok else None
        self.post_message(FeedRead(None, changes, outcome.error))

    def on_unmount(self) -> None:
        with self._signal_lock:
            if self._signal is not None:
                self._signal.close()
                self._signal = None

    # --- change feed ------------------------------------------------------------------------
    def check_store(self) -> None:
        """Look for changes now (also called on a timer, and after each of our own writes)."""
        if self._feed_busy or self.feed_seq is None or self.store is None:
            return
        self._feed_busy = True
        self._read_feed(self.store, self.feed_seq, self._feed_version)

    @work(thread=True, group="feed", exit_on_error=False)
    def _read_feed(self, store: Store, seq: int, seen_version: int | None) -> None:
        try:
            with self._signal_lock:
                if self._signal is None:
                    return
                version = self._signal.version()
            changes = None if version == seen_version else read_changes(store, seq)
            self.post_message(FeedRead(version, changes))
        except Exception as exc:  # the feed must never take the app down
            self.post_message(FeedRead(seen_version, None, f"{type(exc).__name__}: {exc}"))

    @on(FeedRead)
    def _feed_read(self, message: FeedRead) -> None:
        first = self.feed_seq is None
        self._feed_busy = False
        if message.error and message.error != self._feed_error:  # once, not every poll
            self.notify(f"cannot read the store: {message.error}", severity="error")
        self._feed_error = message.error
        if message.version is not None:
            self._feed_version = message.version
        if message.changes is None:
            if first:  # not even the ledger's head could be read: the store is not usable
                self.push_screen(
                    StoreErrorScreen(MemvetError(f"cannot read the store: {message.error}"))
                )
            return
        self.feed_seq = message.changes.head
        if first:
            self.set_interval(self.poll_interval, self.check_store)
            if self.startup_note:
                self.notify(self.startup_note, timeout=8)
            self.switch_mode("queue")
        elif not message.changes.empty:
            self.post_message(StoreChanged(message.changes))

    @on(StoreChanged)
    def _publish(self, message: StoreChanged) -> None:
        self.store_changed.publish(message.changes)

    # --- decisions of this session ------------------------------------------------------------
    def record_decision(self, decision: Decision) -> None:
        self.decisions.append(decision)

    def confirm(self, text: str) -> None:
        """A short success note; at review speed a toast per decision would pile up, so a new
        one within the quiet period is skipped (the row leaving the table says it already)."""
        now = time.monotonic()
        if now - self._last_confirm >= CONFIRM_QUIET:
            self.notify(text, timeout=CONFIRM_QUIET)
        self._last_confirm = now

    def action_undo(self) -> None:
        """The last decision made on this screen, never another screen's."""
        screen = self.current_mode
        mine = [i for i, d in enumerate(self.decisions) if d.screen == screen]
        if not mine:
            self.notify(f"Nothing to undo on the {screen.capitalize()} screen.")
            return
        assert self.store is not None  # check_action offers undo only with a store
        self._undo(self.store, self.decisions.pop(mine[-1]))

    @work(thread=True, group="store", exit_on_error=False)
    def _undo(self, store: Store, decision: Decision) -> None:
        self.post_message(UndoFinished(decision, undo(store, decision, actor=self.owner)))

    @on(UndoFinished)
    def _undone(self, message: UndoFinished) -> None:
        decision = message.decision
        what = one_line(decision.statement, 48)
        if not message.outcome.ok:
            self.notify(f"Could not undo: {message.outcome.error}", severity="error")
        elif decision.action == "reject":
            self.notify(f"Reject undone: back in the queue: {what}")
        elif decision.action == "edit":  # the text it has again, not the one taken back
            change = message.outcome.value
            back = one_line(change.memory.statement, 48)
            put = f"; {len(change.restored)} superseded memory put back" if change.restored else ""
            self.notify(f"Edit undone: it says again: {back}{put}")
        elif decision.action == "approve":
            _, restored = message.outcome.value
            back = f"; {len(restored)} superseded memory put back" if restored else ""
            self.notify(f"Approval undone: back in the queue{back}: {what}")
        else:
            self.notify(f"{UNDONE[decision.action]}: {what}")
        self.check_store()

    # --- keys, help and the command palette -------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.store is None and action not in ALWAYS:
            return False
        if isinstance(self.screen, ModalScreen) and action in ("switch_mode", "undo", "help"):
            return False  # a dialog is open: finish it first
        return True

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every action of the screen the palette was opened on, and of the app."""
        yield from super().get_system_commands(screen)
        seen = set()
        for node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not binding.description or not enabled or binding.action in seen:
                continue
            seen.add(binding.action)
            key = self.get_key_display(binding)
            yield SystemCommand(
                binding.description,
                f"{key} · {binding.id or binding.action}",
                partial(self.call_later, self.run_action, binding.action, node),
            )


def make_app(
    store: Store | None,
    *,
    clock: Clock = _utcnow,
    owner: str | None = None,
    theme: str = "textual-dark",
    poll_interval: float = 0.5,
    page_size: int = 200,
    keymap: Mapping[str, str] | None = None,
    note: str | None = None,
    error: MemvetError | None = None,
) -> ReviewApp:
    """The inspector on `store` (None with `error`: a screen that says what to run)."""
    return ReviewApp(
        store,
        clock=clock,
        owner=owner,
        theme=theme,
        poll_interval=poll_interval,
        page_size=page_size,
        keymap=keymap,
        note=note,
        error=error,
    )


__all__ = ["ReviewApp", "make_app"]
