"""Editing an approved memory (issue 13: "confirm, edit or retire from the keyboard").

An edit changes an active memory's statement, subject, kind, polarity or validity in place, in
one transaction with its transition and audit event. The new text passes the same gate as
admission (controls out, secrets redacted); a live tombstone on it refuses the edit as it refuses
a commit (unless forced, audited); another live memory already saying it refuses it. Its content
key, subject index and row MAC are recomputed, and the term index re-reads it (the m007 triggers
queue a changed statement or subject). A change of what it says is decided against its slot as
an approval is (slot_decisions.settle): a rival asks, unless the operator chose supersede, keep
both or dispute.

What the edit replaced is kept whole, encrypted as one field, in `memory_versions`: `undo` puts
the last version back (audited), with every memory that edit superseded, and marks that version
undone. An edit made from a version that
is no longer current (someone else edited it meanwhile) is refused, never merged.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from datetime import datetime
from typing import NoReturn

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import CAND, MEM, VERS
from memvet.store.errors import (
    ConflictError,
    DuplicateError,
    IllegalTransitionError,
    NotFoundError,
    TombstonedError,
    UsageError,
)
from memvet.store.memory_creation import gated_statement, known_kind_and_polarity
from memvet.store.memory_lifecycle import MemoryLifecycle
from memvet.store.memory_versions import Version
from memvet.store.records import Candidate, Change, Edits, Memory
from memvet.store.rows import RowCodec
from memvet.store.sealing import resealed
from memvet.store.slot_decisions import LIVE, SlotConflicts, Slots
from memvet.store.slots import clean_subject, derive_subject, normalise_subject
from memvet.store.text_safety import sanitise
from memvet.store.tombstones import Tombstones
from memvet.store.undo import Undo
from memvet.store.vocabulary import MemoryStatus
from sqlalchemy import Connection


@dataclass(frozen=True)
class MemoryEdits:
    """What an edit changes; None keeps the memory's value. `reopen`: no "valid until" any more.
    `conflict`/`supersede_ids`: the decision on rivals in its slot, as Edits has them."""

    statement: str | None = None
    subject: str | None = None
    kind: str | None = None
    polarity: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    reopen: bool = False
    conflict: str | None = None
    supersede_ids: tuple[str, ...] = ()
    force_over_tombstone: bool = False


class MemoryEditor:
    def __init__(
        self,
        ctx: StoreContext,
        rows: RowCodec,
        lifecycle: MemoryLifecycle,
        slots: Slots,
        tombstones: Tombstones,
        approvals: Undo,
    ) -> None:
        self.ctx, self.rows, self.lifecycle = ctx, rows, lifecycle
        self.slots, self.tombstones = slots, tombstones
        self.approvals = approvals  # undo.py: reopening what a supersession closed

    def edit(
        self,
        memory_id: str,
        edits: MemoryEdits,
        *,
        actor: str,
        based_on: Memory | None = None,
    ) -> Change:
        """Apply `edits` to an active memory. `based_on`: the memory as the editor saw it; when
        it has changed since, the edit is refused (ConflictError `edited_meanwhile`)."""
        with self.ctx.write() as conn:
            row, current = self._active(conn, memory_id, "edited")
            before = Version.of(current)
            if based_on is not None and Version.of(based_on) != before:
                raise ConflictError(
                    f"memory {memory_id} was changed since it was opened; it now says: "
                    f"{current.statement[:120]!r}. Look at it again and edit that",
                    code="edited_meanwhile",
                    id=memory_id,
                )
            after = self._applied(before, edits)
            if after == before:
                raise UsageError("the edit changes nothing")
            txn = secrets.token_hex(12)
            if after.statement != before.statement:
                self._refuse_tombstoned(conn, current, after, edits.force_over_tombstone, actor)
            found = self._found(conn, current, after) if after.says() != before.says() else None
            self._write(conn, row, current, after, actor, "edited", txn)
            replaced: list[str] = []
            if found is not None:
                decision = Edits(conflict=edits.conflict, supersede_ids=edits.supersede_ids)
                was = self._superseded_by(conn, memory_id)
                self.slots.settle(conn, memory_id, found, decision, actor, after.valid_from)
                replaced = sorted(self._superseded_by(conn, memory_id) - was)
            conn.execute(VERS.insert(), self._version_row(conn, memory_id, before, replaced, actor))
            return self._finish(conn, row, actor, "memory.edited", after.statement)

    def conflicts(self, memory_id: str, edits: MemoryEdits) -> SlotConflicts:
        """The slot and rivals the edit would meet, as `edit` decides them; writes nothing (what
        the inspector's supersede dialog shows before the operator chooses)."""
        with self.ctx.read() as conn:
            _, current = self._active(conn, memory_id, "edited")
            after = self._applied(Version.of(current), edits)
            found = self._found(conn, current, after)
        return found if after.says() != Version.of(current).says() else replace(found, rivals=())

    def undo(self, memory_id: str, *, actor: str) -> Change:
        """The last edit taken back: the version it replaced is the memory again (audited), and
        every memory that edit superseded is active again with its validity reopened — unless it
        changed since (restored, edited or retired by someone): that one is left as it is.
        `Change.restored` names the ones put back. An edit that disputed its rivals left the
        memory disputed: settle the dispute first (undo refuses a memory that is not active)."""
        with self.ctx.write() as conn:
            last = conn.execute(
                sa.select(VERS)
                .where(VERS.c.memory_id == memory_id, VERS.c.undone_at.is_(None))
                .order_by(VERS.c.id.desc())
                .limit(1)
            ).first()
            if last is None:
                if conn.execute(sa.select(MEM.c.id).where(MEM.c.id == memory_id)).first() is None:
                    _missing(memory_id)
                raise IllegalTransitionError(
                    f"memory {memory_id} has no edit to undo",
                    entity="memory",
                    from_status="edited",
                    to_status="(undone)",
                )
            row, current = self._active(conn, memory_id, "taken back to an earlier version")
            plain = self.rows.dec("memory_versions", "previous", last.id, last.previous_ct) or ""
            earlier = Version.from_json(plain)
            if earlier.statement != current.statement:
                self._refuse_tombstoned(conn, current, earlier, False, actor)
            self._write(conn, row, current, earlier, actor, "edit_undone", secrets.token_hex(12))
            conn.execute(VERS.update().where(VERS.c.id == last.id).values(undone_at=self.ctx.now()))
            undo_txn = secrets.token_hex(12)
            restored: list[str] = []
            for replaced in json.loads(plain).get("superseded", []):  # what the edit replaced
                other = conn.execute(sa.select(MEM).where(MEM.c.id == replaced)).first()
                if (
                    other is not None
                    and other.superseded_by_id == memory_id
                    and (other.status == MemoryStatus.SUPERSEDED)
                ):
                    self.approvals.reopen(conn, other, actor, undo_txn, "edit_undone")
                    restored.append(other.id)
            if earlier.says() != Version.of(current).says():
                found = self._found(conn, current, earlier)
                # Nobody is asked on an undo: a rival that appeared meanwhile leaves the slot
                # undecided (recall answers UNKNOWN for it) until the operator settles it.
                self.slots.settle(conn, memory_id, found, Edits(), actor, earlier.valid_from)
            done = self._finish(conn, row, actor, "memory.edit_undone", earlier.statement)
            return replace(done, restored=tuple(restored))

    def versions(self, memory_id: str) -> list[tuple[datetime, str, bool, Version]]:
        """Every version an edit replaced, oldest first: (edited at, by, undone, the version)."""
        with self.ctx.read() as conn:
            rows = conn.execute(
                sa.select(VERS).where(VERS.c.memory_id == memory_id).order_by(VERS.c.id)
            ).all()
        return [
            (
                r.edited_at,
                r.actor,
                r.undone_at is not None,
                Version.from_json(
                    self.rows.dec("memory_versions", "previous", r.id, r.previous_ct) or ""
                ),
            )
            for r in rows
        ]

    # --- the steps ------------------------------------------------------------------------------
    def _active(self, conn: Connection, memory_id: str, verb: str) -> tuple[sa.Row, Memory]:
        row = conn.execute(sa.select(MEM).where(MEM.c.id == memory_id)).first()
        if row is None:
            _missing(memory_id)
        current = self.rows.memory(row)  # a row altered without the key stops here
        if current.status != MemoryStatus.ACTIVE:
            raise IllegalTransitionError(
                f"memory {memory_id} is {current.status}: only an active memory is {verb}"
                + (" (restore it first)" if current.status == MemoryStatus.RETIRED else ""),
                entity="memory",
                from_status=current.status,
                to_status=MemoryStatus.ACTIVE,
            )
        return row, current

    def _applied(self, before: Version, edits: MemoryEdits) -> Version:
        statement = before.statement
        if edits.statement is not None:
            statement = gated_statement(edits.statement)
        kind, polarity = known_kind_and_polarity(
            edits.kind or before.kind, edits.polarity or before.polarity
        )
        typed = clean_subject(sanitise(edits.subject)) if edits.subject else ""
        if typed:
            subject = typed
        elif statement == before.statement and kind == before.kind:
            subject = before.subject
        else:
            subject = derive_subject(statement, kind)
        valid_from = edits.valid_from or before.valid_from
        valid_to = None if edits.reopen else (edits.valid_to or before.valid_to)
        if valid_to is not None and valid_to <= valid_from:
            raise UsageError(
                f"valid until ({valid_to:%Y-%m-%d %H:%M}) must be after valid from "
                f"({valid_from:%Y-%m-%d %H:%M})"
            )
        return Version(statement, subject, kind, polarity, valid_from, valid_to)

    def _refuse_tombstoned(
        self, conn: Connection, current: Memory, text: Version, force: bool, actor: str
    ) -> None:
        tomb = self.tombstones.blocking(conn, current.scope, text.statement)
        if tomb is None:
            return
        name = tomb.content_key[:16]
        if force:
            self.ctx.audit(
                conn, actor, "tombstone.overridden", "tombstone", name, f"edit of {current.id}"
            )
            return
        raise TombstonedError(
            f"the statement matches tombstone {name} ({tomb.reason} "
            f"{tomb.created_at:%Y-%m-%d}): it was turned down before; "
            f"`memvet memories edit {current.id} … --force-over-tombstone` writes it anyway",
            id=current.id,
            tombstone=name,
            reason=tomb.reason,
        )

    def _found(self, conn: Connection, current: Memory, to: Version) -> SlotConflicts:
        """The slot decision of approval (slot_decisions.py) for the memory as `to` says it."""
        return self.slots.conflicts(
            conn,
            self._candidate(conn, current),
            statement=to.statement,
            kind=to.kind,
            polarity=to.polarity,
            subject=to.subject,
            workspace=current.scope.workspace,
            exclude=current.id,
        )

    def _candidate(self, conn: Connection, current: Memory) -> Candidate:
        """The memory's own candidate, its correction link dropped: that decision is made."""
        row = conn.execute(sa.select(CAND).where(CAND.c.id == current.candidate_id)).one()
        return replace(self.rows.candidate(row), supersedes_id=None)

    def _write(
        self,
        conn: Connection,
        row: sa.Row,
        current: Memory,
        to: Version,
        actor: str,
        reason: str,
        txn: str,
    ) -> None:
        scope, c = current.scope, self.ctx.cipher
        key = c.content_key(scope.user, scope.workspace, None, to.kind, to.statement)
        twin = conn.execute(
            sa.select(MEM.c.id).where(
                MEM.c.content_key == key, MEM.c.id != row.id, MEM.c.status.in_(LIVE)
            )
        ).first()
        if twin is not None:
            raise DuplicateError(
                f"memory {twin.id} already says this; forget this one instead", id=twin.id
            )
        values: dict[str, object] = {
            "statement_ct": c.encrypt("memories", "statement", row.id, to.statement),
            "kind": to.kind,
            "polarity": to.polarity,
            "content_key": key,
            "valid_from": to.valid_from,
            "valid_to": to.valid_to,
            "updated_at": self.ctx.now(),
            **self.rows.subject_columns(
                "memories", row.id, to.subject, scope.workspace, scope.user
            ),
        }
        if normalise_subject(to.subject) != normalise_subject(current.subject):
            values["compatible_key"] = None  # kept-both belonged to the slot it left
        values["row_mac"] = resealed(conn, c, MEM, row.id, values, row=row)
        conn.execute(MEM.update().where(MEM.c.id == row.id).values(**values))
        self.lifecycle.append_transition(
            conn,
            row.id,
            MemoryStatus.ACTIVE,
            MemoryStatus.ACTIVE,
            current.valid_to,
            to.valid_to,
            actor,
            reason,
            txn,
        )

    def _superseded_by(self, conn: Connection, memory_id: str) -> set[str]:
        return set(
            conn.execute(
                sa.select(MEM.c.id).where(
                    MEM.c.superseded_by_id == memory_id, MEM.c.status == MemoryStatus.SUPERSEDED
                )
            ).scalars()
        )

    def _version_row(
        self,
        conn: Connection,
        memory_id: str,
        before: Version,
        replaced: list[str],
        actor: str,
    ) -> dict[str, object]:
        count = conn.execute(
            sa.select(sa.func.count()).select_from(VERS).where(VERS.c.memory_id == memory_id)
        ).scalar_one()
        vid = f"{memory_id}~{count + 1:04d}"
        return {
            "id": vid,
            "memory_id": memory_id,
            "edited_at": self.ctx.now(),
            "actor": actor[:200],
            "undone_at": None,
            "previous_ct": self.ctx.cipher.encrypt(
                "memory_versions", "previous", vid, before.to_json(superseded=replaced)
            ),
        }

    def _finish(
        self, conn: Connection, before_row: sa.Row, actor: str, action: str, statement: str
    ) -> Change:
        # The slot it left and the one it joined: an undecided conflict that is gone is cleared.
        self.slots.refresh(conn, before_row)
        fresh = conn.execute(sa.select(MEM).where(MEM.c.id == before_row.id)).one()
        self.slots.refresh(conn, fresh)
        self.ctx.audit(conn, actor, action, "memory", before_row.id, statement)
        fresh = conn.execute(sa.select(MEM).where(MEM.c.id == before_row.id)).one()
        return Change(self.rows.memory(fresh))


def _missing(memory_id: str) -> NoReturn:
    raise NotFoundError(f"no memory {memory_id}", id=memory_id)
