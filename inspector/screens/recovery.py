"""Reservations whose approver stopped before committing (stale), and the ones held right now.
A stale one is never retried by itself: the operator commits (idempotent: safe even if the
memory was in fact written), releases it back to the queue, or rejects it."""

from __future__ import annotations

from memvet.inspector.formatting import age, clean, one_line
from memvet.inspector.jobs import Changes, attempt
from memvet.inspector.messages import DetailLoaded, RecoveryFinished, StaleLoaded
from memvet.inspector.screens.confirm_dialog import ConfirmDialog
from memvet.inspector.screens.record_screen import RecordScreen
from memvet.inspector.widgets.candidate_view import CandidateView, state_note
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.inspector.widgets.line_table import LineTable
from memvet.inspector.widgets.record_table import RecordTable
from memvet.inspector.widgets.screen_tabs import ScreenTabs
from memvet.store import Candidate, QueueFilter
from memvet.store.vocabulary import CandidateStatus
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container

COLUMNS = (
    ("state", "state", 5),
    ("statement", "statement", 30),
    ("holder", "held by", 22),
    ("since", "since", 5),
)
DONE = {"commit": "committed", "release": "released to the queue", "reject": "rejected"}


class RecoveryScreen(RecordScreen):
    WIDE = 140
    BINDINGS = [
        Binding("c", "recover('commit')", "Commit", id="recovery-commit"),
        Binding("l", "recover('release')", "Release", id="recovery-release"),
        Binding("r", "recover('reject')", "Reject", id="recovery-reject"),
        Binding("tab", "app.focus_next", "Pane", id="recovery-pane"),
    ]

    def __init__(self) -> None:
        super().__init__(id="recovery")
        self.records: dict[str, Candidate] = {}
        self.dirty = False

    def compose(self) -> ComposeResult:
        yield ScreenTabs("recovery")
        with Container(classes="body"):
            yield RecordTable(
                COLUMNS, flex="statement", right=frozenset({"since"}), id="recovery-table"
            )
            yield CandidateView(id="recovery-detail", classes="detail")
        yield KeyFooter()

    def load_records(self) -> None:
        self.reload()

    def reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="recovery", exit_on_error=False)
    def _load(self) -> None:
        flt = QueueFilter(statuses=(CandidateStatus.STALE, CandidateStatus.RESERVED))
        outcome = attempt(self.store.list_candidates, self.reader, flt, limit=1000)
        self.post_message(StaleLoaded(outcome.value if outcome.ok else []))

    @on(StaleLoaded)
    def _loaded(self, message: StaleLoaded) -> None:
        self.records = {c.id: c for c in message.candidates}
        now = self.app.now()
        rows = []
        for c in message.candidates:
            holder = c.lease.owner if c.lease else "unknown"
            since = age(now, c.lease.reserved_at) if c.lease else "-"
            state = "stale" if c.status == CandidateStatus.STALE else "held"
            rows.append(
                (
                    c.id,
                    [state, one_line(c.statement, 240), clean(holder), since],
                    "warn" if state == "stale" else "muted",
                )
            )
        self.table.set_rows(rows)
        stale = sum(c.status == CandidateStatus.STALE for c in message.candidates)
        self.query_one(ScreenTabs).set_status(
            f"{stale:,} stale · {len(message.candidates) - stale:,} held now"
        )
        self._show_current()

    @on(LineTable.Highlighted, "#recovery-table")
    def _show_current(self) -> None:
        key = self.table.current_key
        view = self.query_one(CandidateView)
        if key is None:
            view.message("No stale reservations: every approval finished or was released.")
            return
        self._detail(key)

    @work(thread=True, exclusive=True, group="recovery-detail", exit_on_error=False)
    def _detail(self, key: str) -> None:
        outcome = attempt(self.store.candidate_detail, key)
        self.post_message(DetailLoaded(key, outcome.value, outcome.error))

    @on(DetailLoaded)
    def _detail_loaded(self, message: DetailLoaded) -> None:
        if message.candidate_id != self.table.current_key:
            return
        view = self.query_one(CandidateView)
        if message.detail is None:
            view.message(f"Cannot load it: {message.error}", "$error")
            return
        view.show(message.detail, self.app.now(), state_note(message.detail.candidate, None, None))

    def action_recover(self, action: str) -> None:
        key = self.table.current_key
        if key is None:
            return
        record = self.records[key]
        if record.status != CandidateStatus.STALE:
            self.notify(
                "Only a stale reservation can be settled here; this one is still held "
                f"by {record.lease.owner if record.lease else 'someone'}.",
                severity="warning",
            )
            return
        if action != "reject":
            self._recover(key, action)
            return
        self.ask(
            ConfirmDialog(
                "Reject this stale candidate?",
                one_line(record.statement, 200),
                "Reject",
                danger=True,
            ),
            lambda _: self._recover(key, "reject"),
        )

    @work(thread=True, group="store", exit_on_error=False)
    def _recover(self, key: str, action: str) -> None:
        app = self.app
        outcome = attempt(self.store.recover, key, action, actor=app.owner)
        self.post_message(RecoveryFinished(key, action, outcome))

    @on(RecoveryFinished)
    def _recovered(self, message: RecoveryFinished) -> None:
        if message.outcome.ok:
            self.notify(f"Stale reservation {DONE[message.action]}.")
        else:
            self.notify(f"Could not {message.action}: {message.outcome.error}", severity="error")
        self.reload()
        self.app.check_store()

    def on_store_changed(self, changes: Changes) -> None:
        if not changes.candidates:
            return
        if self.is_current:
            self.reload()
        else:
            self.dirty = True  # reloaded when this screen is shown again

    def on_screen_resume(self) -> None:
        if self.dirty:
            self.dirty = False
            self.reload()
