"""Tombstones: contents that were rejected, false-written or forgotten, and are never queued
again (a repeat only counts as seen again). Lifting one lets the statement be proposed again;
the store audits it."""

from __future__ import annotations

from memvet.inspector.formatting import clean, one_line, when
from memvet.inspector.jobs import Changes, attempt, load_tombstones
from memvet.inspector.messages import TombstoneLifted, TombstonesLoaded
from memvet.inspector.screens.confirm_dialog import ConfirmDialog
from memvet.inspector.screens.record_screen import RecordScreen
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.inspector.widgets.line_table import LineTable
from memvet.inspector.widgets.record_table import RecordTable
from memvet.inspector.widgets.screen_tabs import ScreenTabs
from memvet.store import Tombstone
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.content import Content
from textual.widgets import Static

COLUMNS = (
    ("reason", "reason", 19),
    ("preview", "statement", 30),
    ("seen", "seen", 4),
    ("created", "created", 17),
)


class TombstonesScreen(RecordScreen):
    BINDINGS = [
        Binding("l", "lift", "Lift", id="tombstones-lift"),
        Binding("h", "toggle_lifted", "Lifted too", id="tombstones-lifted"),
    ]

    def __init__(self) -> None:
        super().__init__(id="tombstones")
        self.include_lifted = False
        self.dirty = False
        self.records: dict[str, Tombstone] = {}

    def compose(self) -> ComposeResult:
        yield ScreenTabs("tombstones")
        with Container(classes="body"):
            yield RecordTable(
                COLUMNS, flex="preview", right=frozenset({"seen"}), id="tombstones-table"
            )
            yield Static("", id="tombstones-detail", classes="detail short")
        yield KeyFooter()

    def load_records(self) -> None:
        self._load(self.include_lifted)

    @work(thread=True, exclusive=True, group="tombstones", exit_on_error=False)
    def _load(self, include_lifted: bool) -> None:
        outcome = attempt(load_tombstones, self.store, include_lifted)
        self.post_message(TombstonesLoaded(outcome.value if outcome.ok else []))

    @on(TombstonesLoaded)
    def _loaded(self, message: TombstonesLoaded) -> None:
        self.records = {t.content_key: t for t in message.tombstones}
        self.table.set_rows(
            (
                t.content_key,
                [
                    f"{t.reason} (lifted)" if t.lifted_at else t.reason,
                    one_line(t.preview, 240),
                    str(t.seen_again),
                    when(t.created_at),
                ],
                "muted" if t.lifted_at else "bad",
            )
            for t in message.tombstones
        )
        lifted = " (lifted ones too)" if self.include_lifted else ""
        self.query_one(ScreenTabs).set_status(f"{len(self.records):,} tombstones{lifted}")
        self._show_current()

    @on(LineTable.Highlighted, "#tombstones-table")
    def _show_current(self) -> None:
        key = self.table.current_key
        panel = self.query_one("#tombstones-detail", Static)
        if key is None:
            panel.update("No tombstones: nothing was rejected, false-written or forgotten yet.")
            return
        t = self.records[key]
        lifted = f" · lifted {when(t.lifted_at)}" if t.lifted_at else ""
        panel.update(
            Content("\n").join(
                [
                    Content.styled(clean(t.preview), "bold"),
                    Content.styled(
                        f"{t.reason} · from {t.source_id or '-'} · {when(t.created_at)} · "
                        f"seen again {t.seen_again}×{lifted}",
                        "$text-muted",
                    ),
                ]
            )
        )

    def action_lift(self) -> None:
        key = self.table.current_key
        if key is None:
            return
        t = self.records[key]
        if t.lifted_at is not None:
            self.notify("This tombstone was already lifted.")
            return
        body = f"{one_line(t.preview, 200)}\n\nThe statement may be proposed and queued again."
        self.ask(
            ConfirmDialog("Lift this tombstone?", body, "Lift", danger=True),
            lambda _: self._lift(key),
        )

    @work(thread=True, group="store", exit_on_error=False)
    def _lift(self, key: str) -> None:
        app = self.app
        outcome = attempt(self.store.lift_tombstone, key, actor=app.owner)
        self.post_message(TombstoneLifted(key, outcome))

    @on(TombstoneLifted)
    def _lifted(self, message: TombstoneLifted) -> None:
        if message.outcome.ok:
            self.notify("Tombstone lifted.")
        else:
            self.notify(f"Could not lift it: {message.outcome.error}", severity="error")
        self._load(self.include_lifted)
        self.app.check_store()

    def action_toggle_lifted(self) -> None:
        self.include_lifted = not self.include_lifted
        self._load(self.include_lifted)

    def on_store_changed(self, changes: Changes) -> None:
        if not changes.tombstones:
            return
        if self.is_current:
            self._load(self.include_lifted)
        else:
            self.dirty = True  # reloaded when this screen is shown again

    def on_screen_resume(self) -> None:
        if self.dirty:
            self.dirty = False
            self._load(self.include_lifted)
