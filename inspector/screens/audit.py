"""The audit ledger: whether the hash chain is intact (verify_audit walks all of it) and the
most recent events, newest first."""

from __future__ import annotations

from memvet.inspector.formatting import clean, one_line, when
from memvet.inspector.jobs import Changes, attempt, load_audit
from memvet.inspector.messages import AuditLoaded
from memvet.inspector.screens.record_screen import RecordScreen
from memvet.inspector.widgets.key_footer import KeyFooter
from memvet.inspector.widgets.record_table import RecordTable
from memvet.inspector.widgets.screen_tabs import ScreenTabs
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.content import Content
from textual.widgets import Static

EVENTS_SHOWN = 200
COLUMNS = (
    ("seq", "seq", 6),
    ("at", "at", 17),
    ("action", "action", 20),
    ("actor", "actor", 14),
    ("entity", "entity", 16),
)


class AuditScreen(RecordScreen):
    BINDINGS = [Binding("v", "verify", "Verify", id="audit-verify")]

    def __init__(self) -> None:
        super().__init__(id="audit")
        self.dirty = False

    def compose(self) -> ComposeResult:
        yield ScreenTabs("audit")
        yield Static("Verifying the chain…", id="audit-chain")
        with Container(classes="body"):
            yield RecordTable(COLUMNS, flex="entity", id="audit-table")
        yield KeyFooter()

    def load_records(self) -> None:
        self.action_verify()

    def action_verify(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="audit", exit_on_error=False)
    def _load(self) -> None:
        outcome = attempt(load_audit, self.store, EVENTS_SHOWN)
        self.post_message(AuditLoaded(outcome.value, outcome.error))

    @on(AuditLoaded)
    def _loaded(self, message: AuditLoaded) -> None:
        chain = self.query_one("#audit-chain", Static)
        if message.view is None:
            chain.update(Content.styled(f"Cannot read the ledger: {message.error}", "$error"))
            return
        report = message.view.report
        if report.ok:
            chain.update(
                Content.styled(
                    f"✓ chain intact · {report.events:,} events verified", "$success bold"
                )
            )
        else:
            chain.update(
                Content.styled(
                    f"✗ chain broken at event {report.first_bad_seq}: {report.problem} · "
                    "run `memvet audit verify` for the exit status",
                    "$error bold",
                )
            )
        self.table.set_rows(
            (
                str(e.seq),
                [
                    str(e.seq),
                    when(e.at),
                    e.action,
                    one_line(e.actor, 40),
                    _entity(e.entity_type, e.entity_id),
                ],
                None,
            )
            for e in message.view.events
        )
        self.query_one(ScreenTabs).set_status(
            f"{len(message.view.events):,} most recent of {report.events:,}"
        )

    def on_store_changed(self, changes: Changes) -> None:
        # Verifying walks the whole chain: do it for the screen in view, later for the others.
        if self.is_current:
            self._load()
        else:
            self.dirty = True

    def on_screen_resume(self) -> None:
        if self.dirty:
            self.dirty = False
            self._load()


def _entity(entity_type: str, entity_id: str) -> str:
    # A tombstone's id is a prefix of its keyed content hash: meaningless on screen.
    return entity_type if entity_type == "tombstone" else f"{entity_type} {clean(entity_id)}"
