"""Taking a decision back (issue 13): what the inspector's `u` and a CLI twin call.

* Undoing an approval returns the candidate to `pending`, exactly as it was before, and puts
  back every memory the approval superseded (active again, validity reopened). The memory the
  approval created is removed with its transitions: a candidate has one memory row (its id is
  derived from the candidate's), so a later approval of the same candidate must be able to write
  it again. What happened stays in the audit ledger: the commit, and `memory.approval_undone`.
* Undoing a false write or a forget restores the memory and lifts the tombstone that action
  wrote (audited as `tombstone.lifted`); a plain restore would leave the tombstone in force.

Each runs in one transaction with its audit events (invariant 4).
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from memvet.store.audit import append_events
from memvet.store.context import StoreContext
from memvet.store.core import CAND, MEM, TOMB, TRANS, VERS
from memvet.store.errors import IllegalTransitionError, NotFoundError
from memvet.store.lifecycle import check_candidate, check_memory
from memvet.store.memory_lifecycle import MemoryLifecycle
from memvet.store.records import Candidate, Change
from memvet.store.rows import RowCodec
from memvet.store.sealing import resealed
from memvet.store.slot_decisions import Slots
from memvet.store.tombstones import Tombstones
from memvet.store.vocabulary import CandidateStatus, MemoryStatus, RetireReason
from sqlalchemy import Connection

UNDOABLE_RETIREMENTS = (RetireReason.FALSE_WRITE, RetireReason.FORGET)


class Undo:
    def __init__(
        self,
        ctx: StoreContext,
        rows: RowCodec,
        lifecycle: MemoryLifecycle,
        slots: Slots,
        tombstones: Tombstones,
    ) -> None:
        self.ctx, self.rows, self.lifecycle, self.slots = ctx, rows, lifecycle, slots
        self.tombstones = tombstones

    def undo_approval(self, candidate_id: str, *, actor: str) -> tuple[Candidate, list[str]]:
        """committed → pending; returns the candidate and the ids of the memories put back."""
        with self.ctx.write() as conn:
            cand = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).first()
            if cand is None:
                raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
            check_candidate(cand.status, CandidateStatus.PENDING)
            memory = conn.execute(sa.select(MEM).where(MEM.c.id == cand.memory_id)).first()
            if memory is None:
                raise NotFoundError(f"candidate {candidate_id} has no memory", id=candidate_id)
            if memory.status not in (MemoryStatus.ACTIVE, MemoryStatus.DISPUTED):
                raise IllegalTransitionError(
                    f"memory {memory.id} is {memory.status} now: the approval can no longer be "
                    "undone as a whole",
                    entity="memory",
                    from_status=memory.status,
                    to_status="(undone)",
                )
            txn = secrets.token_hex(12)
            restored = [
                self.reopen(conn, row, actor, txn)
                for row in conn.execute(
                    sa.select(MEM).where(
                        MEM.c.superseded_by_id == memory.id, MEM.c.status == MemoryStatus.SUPERSEDED
                    )
                ).all()
            ]
            conn.execute(TRANS.delete().where(TRANS.c.memory_id == memory.id))
            conn.execute(VERS.delete().where(VERS.c.memory_id == memory.id))  # its edits too
            conn.execute(MEM.delete().where(MEM.c.id == memory.id))
            self.slots.refresh(conn, memory)  # a rival it left unsettled may be settled now
            now = self.ctx.now()
            values = {
                "status": CandidateStatus.PENDING,
                "memory_id": None,
                "decided_by": None,
                "decided_at": None,
                "updated_at": now,
            }
            conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id)
                .values(
                    **values,
                    row_mac=resealed(conn, self.ctx.cipher, CAND, candidate_id, values, row=cand),
                )
            )
            # Removed on purpose: the chain records it as gone, so `audit verify` knows.
            append_events(
                conn,
                self.ctx.cipher,
                [(now, actor, "memory.approval_undone", "memory", memory.id, None)],
                gone=frozenset({("memory", memory.id)}),
            )
            self.ctx.audit(conn, actor, "candidate.approval_undone", "candidate", candidate_id)
            fresh = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).one()
            return self.rows.candidate(fresh), restored

    def reopen(
        self, conn: Connection, row: sa.Row, actor: str, txn: str, reason: str = "approval_undone"
    ) -> str:
        """A memory the undone approval (or edit) had superseded: active again, its validity
        reopened."""
        check_memory(row.status, MemoryStatus.ACTIVE)
        values = {
            "status": MemoryStatus.ACTIVE,
            "valid_to": None,
            "superseded_by_id": None,
            "updated_at": self.ctx.now(),
            "conflict_state": "none",
        }
        values = {k: v for k, v in values.items() if k in MEM.c}
        conn.execute(
            MEM.update()
            .where(MEM.c.id == row.id)
            .values(**values, row_mac=resealed(conn, self.ctx.cipher, MEM, row.id, values, row=row))
        )
        # The supersession stays in the history, no longer as the replay key of a supersede: a
        # later approval of the same candidate supersedes it again.
        undone = f"supersede:{row.superseded_by_id}"
        conn.execute(
            TRANS.update()
            .where(TRANS.c.memory_id == row.id, TRANS.c.txn_id == undone)
            .values(txn_id=f"{undone}:undone:{txn}")
        )
        self.lifecycle.append_transition(
            conn,
            row.id,
            row.status,
            MemoryStatus.ACTIVE,
            row.valid_to,
            None,
            actor,
            reason,
            txn,
        )
        self.ctx.audit(conn, actor, "memory.unsuperseded", "memory", row.id)
        return row.id

    def undo_retirement(self, memory_id: str, *, actor: str) -> Change:
        """A false write or forget taken back: the memory is active again, its tombstone lifted."""
        with self.ctx.write() as conn:
            row = conn.execute(sa.select(MEM).where(MEM.c.id == memory_id)).first()
            if row is None:
                raise NotFoundError(f"no memory {memory_id}", id=memory_id)
            if row.status != MemoryStatus.RETIRED or row.retired_reason not in UNDOABLE_RETIREMENTS:
                raise IllegalTransitionError(
                    f"memory {memory_id} is {row.status} ({row.retired_reason or 'no reason'}),"
                    " not false-written or forgotten",
                    entity="memory",
                    from_status=row.status,
                    to_status=MemoryStatus.ACTIVE,
                )
            self.lifecycle.apply(
                conn, row, MemoryStatus.ACTIVE, actor, "restore", secrets.token_hex(12)
            )
            self.slots.refresh(conn, row)
            now = self.ctx.now()
            for tomb in conn.execute(
                sa.select(TOMB).where(
                    TOMB.c.content_key == row.content_key,
                    TOMB.c.source_id == memory_id,
                    TOMB.c.lifted_at.is_(None),
                )
            ).all():
                self.tombstones.lift_in(conn, tomb, now, actor)
            self.ctx.audit(conn, actor, f"memory.{row.retired_reason}_undone", "memory", memory_id)
            fresh = conn.execute(sa.select(MEM).where(MEM.c.id == memory_id)).one()
            return Change(self.rows.memory(fresh))
