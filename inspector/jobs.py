"""What the inspector's thread workers run: store calls that return plain data and never raise.

No Textual here. Screens call these from `@work(thread=True, ...)` methods and post the results
as messages; errors come back as an `Outcome` that says what happened and, for a reservation
held elsewhere, who holds it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from memvet.inspector.filters import SortOrder
from memvet.store import (
    AuditEvent,
    AuditReport,
    Candidate,
    Edits,
    Memory,
    MemvetError,
    NotFoundError,
    QueueFilter,
    Reader,
    Store,
    Tombstone,
)
from memvet.store.cli_conflicts import correction_note
from memvet.store.vocabulary import RetireReason

if TYPE_CHECKING:
    from memvet.store.slot_decisions import SlotConflicts

FEED_BATCH = 2000
TOMBSTONING = (RetireReason.FALSE_WRITE, RetireReason.FORGET)  # retirements that tombstone


@dataclass(frozen=True)
class Outcome:
    ok: bool
    value: Any = None
    error: str | None = None
    code: str | None = None
    holder: str | None = None
    status: str | None = None


def attempt(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
    """Run one store call; any failure becomes an Outcome instead of an exception."""
    try:
        return Outcome(True, fn(*args, **kwargs))
    except MemvetError as exc:
        holder = exc.details.get("holder")
        status = exc.details.get("status")
        return Outcome(
            False,
            error=exc.message,
            code=exc.code,
            holder=str(holder) if holder else None,
            status=str(status) if status else None,
        )
    except Exception as exc:  # a bug or a broken disk: shown on the row, never a crash
        return Outcome(False, error=f"{type(exc).__name__}: {exc}", code="unexpected")


@dataclass(frozen=True)
class QueuePage:
    rows: list[Candidate]
    exhausted: bool
    total: int | None = None


def load_queue_page(
    store: Store,
    reader: Reader,
    flt: QueueFilter,
    order: SortOrder,
    after: tuple | None,
    limit: int,
    with_total: bool,
) -> QueuePage:
    rows = store.list_candidates(
        reader,
        flt,
        limit=limit,
        after=after,
        sort=order.store_sort,
        newest_first=order.newest_first,
    )
    total = store.count_candidates(reader, flt) if with_total else None
    return QueuePage(rows, len(rows) < limit, total)


def fetch_candidates(store: Store, ids: Iterable[str]) -> tuple[list[Candidate], list[str]]:
    """The current state of each candidate; ids that no longer exist come back as missing."""
    found, missing = [], []
    for cid in ids:
        try:
            found.append(store.get_candidate_record(cid))
        except NotFoundError:
            missing.append(cid)
    return found, missing


@dataclass(frozen=True)
class Changes:
    """Audit events since the last look, grouped by what they touched."""

    head: int
    events: tuple[AuditEvent, ...] = ()
    candidates: frozenset[str] = field(default_factory=frozenset)
    memories: frozenset[str] = field(default_factory=frozenset)
    tombstones: bool = False

    @property
    def empty(self) -> bool:
        return not self.events


def read_changes(store: Store, after_seq: int) -> Changes:
    events: list[AuditEvent] = []
    head = after_seq
    while True:
        batch = store.audit_events_after(head, FEED_BATCH)
        events.extend(batch)
        if len(batch) < FEED_BATCH:
            break
        head = batch[-1].seq
    if events:
        head = events[-1].seq
    return Changes(
        head,
        tuple(events),
        frozenset(e.entity_id for e in events if e.entity_type == "candidate"),
        frozenset(e.entity_id for e in events if e.entity_type == "memory"),
        any(e.entity_type == "tombstone" for e in events),
    )


def decide(
    store: Store,
    action: str,
    candidate_id: str,
    *,
    actor: str,
    edits: Edits | None = None,
    reason: str | None = None,
) -> Outcome:
    """approve (reserve → commit, released with the error kept on failure) or reject.

    An approval that has not chosen between superseding and keeping both is refused when the
    candidate conflicts with an active memory (the outcome carries the detail, code
    "conflict"): a quick key press must not create two contradicting memories unasked."""
    if action == "reject":
        return attempt(store.reject, candidate_id, actor=actor, reason=reason or None)
    edits = edits or Edits()
    undecided = edits.conflict is None and edits.supersede is None and edits.supersede_id is None
    if undecided:
        edits = replace(edits, conflict="ask")  # refused before reserving, re-checked in the commit
    found: list[SlotConflicts] = []  # the approval's one look at the slot (no look of our own)
    look = found.append if undecided else None
    done = attempt(store.approve, candidate_id, actor=actor, edits=edits, checked=look)
    if done.code == "conflict":  # show the rivals, ask (a rival may have arrived meanwhile)
        checked = attempt(store.candidate_detail, candidate_id)
        error = (
            "it conflicts with memories of its slot: press s to supersede, keep both or dispute"
            if undecided
            else done.error
        )
        return Outcome(False, checked.value, code="conflict", error=error)
    note = correction_note(found[0] if found else None)
    return replace(done, status=note) if done.ok and note else done


@dataclass(frozen=True)
class Decision:
    """One decision of this session, kept so `u` on the screen it was made on can take it back.
    `statement` is the text as committed (after an edit), for the toasts."""

    # approve | reject (queue); edit | false_write | forget | dispute | resolve | restore
    action: str
    candidate_id: str | None
    statement: str
    memory_id: str | None = None
    screen: str = "queue"
    reason: str | None = None  # restore: the retirement it took back


def undo(store: Store, decision: Decision, *, actor: str) -> Outcome:
    """Take one decision back (store/undo.py): a reject goes back to pending, tombstone lifted;
    an approval goes back to pending with every memory it superseded put back; a false write or
    forget is restored with its tombstone lifted; a dispute is resolved (and the reverse); a
    restore retires the memory again as it was."""
    action, mid = decision.action, decision.memory_id
    if action == "reject":
        return attempt(store.undo_reject, decision.candidate_id, actor=actor)
    if action == "approve":
        return attempt(store.undo_approval, decision.candidate_id, actor=actor)
    if action in ("false_write", "forget"):
        return attempt(store.undo_retirement, mid, actor=actor)
    if action == "edit":  # the version the edit replaced is the memory again
        return attempt(store.undo_edit, mid, actor=actor)
    if action == "dispute":
        return attempt(store.resolve_dispute, mid, actor=actor)
    if action == "resolve":
        return attempt(store.dispute, mid, actor=actor)
    if decision.reason == RetireReason.FALSE_WRITE:  # these two have their own store methods
        return attempt(store.false_write, mid, actor=actor)
    if decision.reason == RetireReason.FORGET:
        return attempt(store.forget, mid, actor=actor)
    return attempt(store.retire, mid, actor=actor, reason=decision.reason or RetireReason.OPERATOR)


def change_memory(
    store: Store, memory_id: str, action: str, *, actor: str, reason: str | None = None
) -> Outcome:
    if action == "false_write":
        return attempt(store.false_write, memory_id, actor=actor, reason=reason or None)
    if action == "forget":
        return attempt(store.forget, memory_id, actor=actor)
    if action == "dispute":
        return attempt(store.dispute, memory_id, actor=actor)
    if action == "restore":  # a forget or false write also lifts its tombstone (undo.py)
        memory = attempt(store.get_memory, memory_id)
        if memory.ok and memory.value.retired_reason in TOMBSTONING:
            return attempt(store.undo_retirement, memory_id, actor=actor)
        return attempt(store.restore, memory_id, actor=actor)
    return attempt(store.resolve_dispute, memory_id, actor=actor)


@dataclass(frozen=True)
class AuditView:
    report: AuditReport
    events: list[AuditEvent]


def load_audit(store: Store, limit: int) -> AuditView:
    return AuditView(store.verify_audit(), store.audit_events(limit))


def load_tombstones(store: Store, include_lifted: bool) -> list[Tombstone]:
    return store.list_tombstones(include_lifted=include_lifted)


def load_memory_history(store: Store, memory_id: str) -> tuple[Memory, list]:
    return store.get_memory(memory_id), store.transitions(memory_id)
