"""The approval reservation protocol: reserve (compare-and-set) → commit (idempotent) or
release on failure; stale leases are settled only by an operator. Reject compare-and-sets too
(rejection.py)."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import TYPE_CHECKING

import sqlalchemy as sa
from memvet.store.candidates import QueueReads
from memvet.store.context import StoreContext
from memvet.store.core import CAND, MEM
from memvet.store.errors import (
    AlreadyDecidedError,
    IllegalTransitionError,
    LeaseMismatchError,
    MemvetError,
    NotFoundError,
    ReservationHeldError,
    UsageError,
)
from memvet.store.leases import default_owner  # noqa: F401 - imported from here too
from memvet.store.lifecycle import check_candidate
from memvet.store.maintenance import Maintenance
from memvet.store.memory_creation import MemoryCreation
from memvet.store.records import Candidate, Edits, Lease, Memory
from memvet.store.rows import RowCodec
from memvet.store.sealing import resealed
from memvet.store.slot_decisions import SlotConflicts, Slots
from memvet.store.vocabulary import CandidateStatus
from sqlalchemy import Connection

if TYPE_CHECKING:
    from collections.abc import Callable

    from memvet.store.rejection import Rejections

DEFAULT_LEASE = timedelta(minutes=2)


def explain_not_pending(conn: Connection, candidate_id: str) -> None:
    """Why a compare-and-set from pending changed nothing: no such candidate, held, or decided."""
    row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).first()
    if row is None:
        raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
    if row.status in (CandidateStatus.RESERVED, CandidateStatus.STALE):
        raise ReservationHeldError(
            f"candidate {candidate_id} is held by {row.lease_owner} since "
            f"{row.reserved_at:%Y-%m-%d %H:%M:%S}Z ({row.status})",
            id=candidate_id,
            holder=row.lease_owner,
            status=row.status,
        )
    raise AlreadyDecidedError(
        f"candidate {candidate_id} is already {row.status}", id=candidate_id, status=row.status
    )


class Reservations:
    """Approval: reserve a pending candidate, commit it into a memory or release it; settle a
    stale reservation (`recover`). Rejection is rejection.py's."""

    def __init__(
        self,
        ctx: StoreContext,
        rows: RowCodec,
        queue: QueueReads,
        creation: MemoryCreation,
        slots: Slots,
        rejections: Rejections,
        maintenance: Maintenance,
    ) -> None:
        self.ctx, self.rows, self.queue, self.creation = ctx, rows, queue, creation
        self.slots, self.rejections, self.maintenance = slots, rejections, maintenance

    def reserve(self, candidate_id: str, *, owner: str, ttl: timedelta = DEFAULT_LEASE) -> Lease:
        now = self.ctx.now()
        lease = Lease(
            owner=owner, token=secrets.token_hex(16), reserved_at=now, expires_at=now + ttl
        )
        with self.ctx.write() as conn:
            mac = resealed(
                conn, self.ctx.cipher, CAND, candidate_id, {"status": CandidateStatus.RESERVED}
            )
            done = conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id, CAND.c.status == CandidateStatus.PENDING)
                .values(
                    status=CandidateStatus.RESERVED,
                    lease_token=lease.token,
                    lease_owner=owner[:200],
                    reserved_at=now,
                    lease_expires_at=lease.expires_at,
                    updated_at=now,
                    row_mac=mac,
                )
            ).rowcount
            if not done:
                explain_not_pending(conn, candidate_id)
            self.ctx.audit(conn, owner, "candidate.reserved", "candidate", candidate_id)
        return lease

    def commit(
        self,
        candidate_id: str,
        lease_token: str | None,
        *,
        actor: str,
        edits: Edits | None = None,
        recovery: bool = False,
    ) -> Memory:
        """Write the memory and flip the candidate, in one transaction. Idempotent: committing a
        candidate that is already committed returns its memory."""
        edits = edits or Edits()
        with self.ctx.write() as conn:
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).first()
            if row is None:
                raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
            if row.status == CandidateStatus.COMMITTED:
                existing = conn.execute(sa.select(MEM).where(MEM.c.id == row.memory_id)).one()
                return self.rows.memory(existing)
            expected = CandidateStatus.STALE if recovery else CandidateStatus.RESERVED
            if row.status != expected:
                raise IllegalTransitionError(
                    f"candidate {candidate_id} is {row.status}, not {expected}",
                    id=candidate_id,
                    from_status=row.status,
                    to_status=CandidateStatus.COMMITTED,
                )
            if not recovery and row.lease_token != lease_token:
                raise LeaseMismatchError(
                    f"the lease on {candidate_id} is held by {row.lease_owner}",
                    id=candidate_id,
                    holder=row.lease_owner,
                )
            check_candidate(row.status, CandidateStatus.COMMITTED)
            memory = self.creation.insert(conn, self.rows.candidate(row), edits, actor)
            conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id)
                .values(
                    status=CandidateStatus.COMMITTED,
                    memory_id=memory.id,
                    lease_token=None,
                    decided_by=actor[:200],
                    decided_at=self.ctx.now(),
                    updated_at=self.ctx.now(),
                    last_error_ct=None,
                    row_mac=resealed(
                        conn,
                        self.ctx.cipher,
                        CAND,
                        candidate_id,
                        {"status": CandidateStatus.COMMITTED},
                        row=row,
                    ),
                )
            )
            self.ctx.audit(
                conn, actor, "candidate.committed", "candidate", candidate_id, memory.statement
            )
            return memory

    def release(
        self,
        candidate_id: str,
        lease_token: str | None,
        *,
        error: str,
        actor: str,
        recovery: bool = False,
    ) -> None:
        with self.ctx.write() as conn:
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).first()
            if row is None:
                raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
            check_candidate(row.status, CandidateStatus.PENDING)
            held = (
                CandidateStatus.STALE if recovery else CandidateStatus.RESERVED
            )  # never a decided candidate (undo's job)
            if row.status != held:
                raise IllegalTransitionError(
                    f"candidate {candidate_id} is {row.status}, not {held}",
                    id=candidate_id,
                    from_status=row.status,
                    to_status=CandidateStatus.PENDING,
                    status=row.status,
                )
            if row.status == CandidateStatus.RESERVED and row.lease_token != lease_token:
                raise LeaseMismatchError(
                    f"the lease on {candidate_id} is held by {row.lease_owner}",
                    id=candidate_id,
                    holder=row.lease_owner,
                )
            conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id, CAND.c.status == row.status)
                .values(
                    status=CandidateStatus.PENDING,
                    lease_token=None,
                    lease_owner=None,
                    reserved_at=None,
                    lease_expires_at=None,
                    updated_at=self.ctx.now(),
                    row_mac=resealed(
                        conn,
                        self.ctx.cipher,
                        CAND,
                        candidate_id,
                        {"status": CandidateStatus.PENDING},
                        row=row,
                    ),
                    last_error_ct=self.ctx.cipher.encrypt(
                        "candidates", "last_error", candidate_id, error[:500]
                    ),
                )
            )
            self.ctx.audit(conn, actor, "candidate.released", "candidate", candidate_id)

    def approve(
        self,
        candidate_id: str,
        *,
        actor: str,
        edits: Edits | None = None,
        ttl: timedelta = DEFAULT_LEASE,
        checked: Callable[[SlotConflicts], object] | None = None,
    ) -> Memory:
        """Reserve, commit, and release with the error kept if anything fails in between.
        With `edits.conflict == "ask"` a conflict is refused before anything is reserved (and
        again inside the commit, which is what decides). `checked` is given the slot that look
        found (asked for it, the look is taken whatever the decision): the caller's note on a
        correction reads it instead of looking again."""
        if checked is not None or (edits is not None and edits.conflict == "ask"):
            found = self.slots.check(self.queue.get(candidate_id), edits or Edits())
            if checked is not None and found is not None:
                checked(found)
        lease = self.reserve(candidate_id, owner=actor, ttl=ttl)
        try:
            return self.commit(candidate_id, lease.token, actor=actor, edits=edits)
        except Exception as exc:
            reason = exc.message if isinstance(exc, MemvetError) else type(exc).__name__
            try:
                self.release(candidate_id, lease.token, error=reason, actor=actor)
            except MemvetError:
                pass  # the lease was taken over or settled meanwhile; nothing of ours to undo
            raise

    def recover(self, candidate_id: str, action: str, *, actor: str) -> Candidate | Memory:
        """Settle a stale reservation: commit, release or reject. A lease that ran out is
        recorded as stale first, so no daemon sweep is needed for it."""
        if action not in ("commit", "release", "reject"):
            raise UsageError(f"unknown recovery action {action!r}: commit, release or reject")
        self.maintenance.mark_stale_leases(
            self.ctx.now(),
            only=candidate_id,
            actor=actor,
        )
        if action == "commit":
            return self.commit(candidate_id, None, actor=actor, recovery=True)
        if action == "release":
            self.release(
                candidate_id,
                None,
                error="released by operator after a stale lease",
                actor=actor,
                recovery=True,
            )
            return self.queue.get(candidate_id)
        if action == "reject":
            return self.rejections.reject(
                candidate_id, actor=actor, reason="stale lease", recovery=True
            )
        raise UsageError(f"unknown recovery action {action!r}: commit, release or reject")
