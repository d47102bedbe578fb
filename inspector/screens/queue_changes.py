"""How the queue changes after it was loaded: our own decisions (approve, edit, reject,
supersede-or-keep-both, several at once) and what the change feed says other writers did.

A mixin of QueueScreen, kept apart so each module stays readable. A decision marks its rows in
flight and moves the cursor on at once; only the store's answer removes a row or shows an
error on it. Handlers use Textual's naming convention (on_<message>), which works in mixins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memvet.inspector.formatting import one_line
from memvet.inspector.jobs import Changes, Decision, attempt, decide, fetch_candidates
from memvet.inspector.messages import CandidatesRefreshed, DecisionFinished
from memvet.inspector.screens.confirm_dialog import ConfirmDialog
from memvet.inspector.screens.edit_dialog import EditDialog
from memvet.inspector.screens.supersede_dialog import SupersedeDialog
from memvet.store import Candidate, Edits
from memvet.store.vocabulary import OPEN_STATUSES
from textual import work

if TYPE_CHECKING:
    from memvet.inspector.filters import QuerySpec, SortOrder
    from memvet.inspector.screens.review_screen import ReviewScreen as _Screen
    from memvet.inspector.widgets.queue_table import QueueTable
    from memvet.store import CandidateDetail
else:
    _Screen = object  # at run time a plain mixin; the type checker sees the screen it joins

BUSY = ("approving", "rejecting")
QUEUED = OPEN_STATUSES  # the statuses the queue shows


class QueueChanges(_Screen):
    # What QueueScreen (queue.py) holds and does, declared for the type checker.
    spec: QuerySpec
    order: SortOrder
    generation: int
    page_after: tuple | None
    exhausted: bool
    total: int | None
    details: dict[str, CandidateDetail]
    settled: set[str]
    shown_key: str | None
    if TYPE_CHECKING:

        @property
        def table(self) -> QueueTable: ...
        def show_current(self, force: bool = False) -> None: ...
        def _status(self) -> None: ...
        def _count(self, generation: int) -> object: ...

    # --- decisions -----------------------------------------------------------------------------
    def _targets(self) -> list[str]:
        table = self.table
        keys = [k for k in table.keys if k in table.selected] or [table.current_key]
        return [k for k in keys if k is not None and table.flags.get(k) not in BUSY]

    def action_approve(self) -> None:
        keys = self._targets()
        if len(keys) == 1 and self._conflicted(keys[0]):
            self._ask_supersede(keys[0], Edits())
        elif keys:
            self.start("approve", keys)

    def _conflicted(self, key: str) -> bool:
        detail = self.details.get(key)  # a correction asks too: what it replaces is a choice
        return detail is not None and bool(
            detail.conflicts or (detail.correction and detail.preselect)
        )

    def _ask_supersede(self, key: str, edits: Edits) -> None:
        detail = self.details.get(key)
        if detail is None:
            self.notify("Still loading this candidate's conflicts; try again.")
            return

        def chosen(result: Edits | None) -> None:
            if result is not None:
                self.start("approve", [key], edits=result)

        self.app.push_screen(SupersedeDialog(detail, edits), chosen)

    def action_supersede(self) -> None:
        key = self.table.current_key
        if key is None:
            return
        detail = self.details.get(key)
        if detail is not None and not detail.conflicts and detail.supersedes is None:
            self.notify("It conflicts with no memory of its slot: a approves it as it is.")
            return
        self._ask_supersede(key, Edits())

    def action_edit(self) -> None:
        key = self.table.current_key
        if key is None or key not in self.table.records:
            return

        def edited(edits: Edits | None) -> None:
            if edits is None or key not in self.table.records:
                return
            undecided = (
                edits.conflict is None and edits.supersede is None and (edits.supersede_id is None)
            )
            if self._conflicted(key) and undecided:
                self._ask_supersede(key, edits)
            else:
                self.start("approve", [key], edits=edits)

        record = self.table.records[key]
        self.app.push_screen(EditDialog(record, self.app.now()), edited)

    def action_reject(self) -> None:
        keys = self._targets()
        if not keys:
            return
        first = one_line(self.table.records[keys[0]].statement, 70)
        body = first if len(keys) == 1 else f"{first}\n…and {len(keys) - 1} more"
        title = "Reject this candidate?" if len(keys) == 1 else f"Reject {len(keys)} candidates?"

        def answered(reason: str | None) -> None:
            if reason is not None:
                self.start("reject", [k for k in keys if k in self.table.records], reason=reason)

        self.app.push_screen(
            ConfirmDialog(title, body, "Reject", reason_label="Reason (optional)"), answered
        )

    def start(
        self, action: str, keys: list[str], *, edits: Edits | None = None, reason: str | None = None
    ) -> None:
        """Mark the rows in flight and move on at once; the store's answer arrives later."""
        table = self.table
        keys = [k for k in keys if k in table.records]
        if not keys:
            return
        statements = {k: table.records[k].statement for k in keys}
        for key in keys:
            table.set_flag(key, "approving" if action == "approve" else "rejecting")
        table.clear_selection()
        if table.current_key in keys:
            table.move_cursor(row=table.next_free_after(table.cursor_row))
        self.show_current(force=True)
        self._status()
        # Paint the moved cursor before the store work starts competing for the interpreter.
        self.call_after_refresh(self._decide, action, statements, edits, reason)

    @work(thread=True, group="store", exit_on_error=False)
    def _decide(
        self, action: str, statements: dict[str, str], edits: Edits | None, reason: str | None
    ) -> None:
        app = self.app
        for key, statement in statements.items():
            outcome = decide(self.store, action, key, actor=app.owner, edits=edits, reason=reason)
            self.post_message(DecisionFinished(action, key, statement, outcome))

    def on_decision_finished(self, message: DecisionFinished) -> None:
        table, outcome, key = self.table, message.outcome, message.candidate_id
        what = one_line(message.statement, 48)
        verb = "Approved" if message.action == "approve" else "Rejected"
        if outcome.ok:
            memory_id = outcome.value.id if message.action == "approve" else None
            if message.action == "approve":  # the toast shows the statement as committed
                what = one_line(outcome.value.statement, 48)
            self.app.record_decision(
                Decision(
                    message.action,
                    key,
                    outcome.value.statement if memory_id else message.statement,
                    memory_id,
                )
            )
            table.drop(key)
            self.settled.add(key)
            self.total = None if self.total is None else max(self.total - 1, 0)
            self.app.confirm(f"{verb}: {what}")
            if outcome.status:  # a correction that replaced nothing says so
                self.notify(outcome.status, severity="warning")
        elif outcome.code in ("already_decided", "not_found"):
            table.drop(key)
            self.notify(
                f"Already decided elsewhere ({outcome.status or 'gone'}): {what}",
                severity="warning",
            )
        elif outcome.code == "conflict":
            self.details[key] = outcome.value  # `s` can ask at once
            table.set_flag(key, "error", outcome.error)
            self.notify(
                f"Not approved, it conflicts with an active memory: {what}", severity="warning"
            )
        elif outcome.code == "reservation_held":
            table.set_flag(
                key,
                "error",
                f"held by {outcome.holder} ({outcome.status}): another approver has it",
            )
            self.notify(f"Held by {outcome.holder}: {what}", severity="warning")
        else:
            kept = "; the reservation was released" if message.action == "approve" else ""
            table.set_flag(key, "error", f"{message.action} failed: {outcome.error}{kept}")
            self.notify(f"{message.action.title()} failed: {outcome.error}", severity="error")
        self._status()
        self.show_current(force=key == self.shown_key or self.shown_key not in table.records)
        self.app.check_store()

    # --- the change feed ---------------------------------------------------------------------------
    def on_store_changed(self, changes: Changes) -> None:
        busy = {k for k, f in self.table.flags.items() if f in BUSY}
        touched = changes.candidates - busy
        for key in touched:
            self.details.pop(key, None)
        if touched:
            self._refresh_rows(self.generation, sorted(touched))

    @work(thread=True, group="queue-feed", exit_on_error=False)
    def _refresh_rows(self, generation: int, keys: list[str]) -> None:
        outcome = attempt(fetch_candidates, self.store, keys)
        if outcome.ok:
            found, missing = outcome.value
            self.post_message(CandidatesRefreshed(generation, found, missing))

    def on_candidates_refreshed(self, message: CandidatesRefreshed) -> None:
        if message.generation != self.generation:
            return
        table, now = self.table, self.app.now()
        for key in message.missing:
            table.drop(key)
        user = self.store.user
        for c in message.candidates:
            if table.flags.get(c.id) in BUSY:
                continue
            if c.scope.user == user and self.spec.matches(c):
                if c.id in table.records or self._in_window(c):
                    known = table.records.get(c.id)
                    if known is not None and known.status != c.status:
                        table.set_flag(c.id, None)  # settled or taken since: the error is moot
                    table.put(c, now)
            else:
                table.drop(c.id)
        # Recount (every pending row: seconds at 500k) only for what others changed: our own
        # decisions are already counted out.
        ours = {c.id for c in message.candidates if c.id in self.settled and c.status not in QUEUED}
        self.settled -= ours
        if message.missing or len(ours) < len(message.candidates):
            self._count(self.generation)
        self.show_current(force=self.shown_key in {c.id for c in message.candidates})

    def _in_window(self, candidate: Candidate) -> bool:
        """Inside what has been paged in: later rows arrive with their page."""
        if self.exhausted or self.page_after is None:
            return self.exhausted
        key = self.order.key(candidate)
        return key > self.page_after if self.order.newest_first else key < self.page_after
