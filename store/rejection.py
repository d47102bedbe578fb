"""Rejection: compare-and-set pending (or stale, in recovery) → rejected, tombstoning the content
so it is not queued again; and its undo, which lifts that tombstone."""

from __future__ import annotations

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import CAND, TOMB
from memvet.store.records import Candidate
from memvet.store.reservation import explain_not_pending
from memvet.store.rows import RowCodec
from memvet.store.sealing import resealed
from memvet.store.text_safety import sanitise_optional
from memvet.store.tombstones import Tombstones
from memvet.store.vocabulary import CandidateStatus, TombstoneReason


class Rejections:
    def __init__(self, ctx: StoreContext, rows: RowCodec, tombstones: Tombstones) -> None:
        self.ctx, self.rows, self.tombstones = ctx, rows, tombstones

    def reject(
        self, candidate_id: str, *, actor: str, reason: str | None = None, recovery: bool = False
    ) -> Candidate:
        """Compare-and-set pending (or stale, in recovery) → rejected, and tombstone the content."""
        source = CandidateStatus.STALE if recovery else CandidateStatus.PENDING
        now = self.ctx.now()
        with self.ctx.write() as conn:
            mac = resealed(
                conn, self.ctx.cipher, CAND, candidate_id, {"status": CandidateStatus.REJECTED}
            )
            done = conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id, CAND.c.status == source)
                .values(
                    status=CandidateStatus.REJECTED,
                    lease_token=None,
                    decided_by=actor[:200],
                    decided_at=now,
                    row_mac=mac,
                    updated_at=now,
                    decision_note_ct=self.ctx.cipher.encrypt(
                        "candidates", "decision_note", candidate_id, sanitise_optional(reason)
                    ),
                )
            ).rowcount
            if not done:
                explain_not_pending(conn, candidate_id)
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).one()
            cand = self.rows.candidate(row)
            self.tombstones.write(
                conn,
                row.content_key,
                TombstoneReason.REJECTED,
                candidate_id,
                cand.statement,
                cand.scope,
            )
            self.ctx.audit(conn, actor, "candidate.rejected", "candidate", candidate_id)
            return cand

    def undo_reject(self, candidate_id: str, *, actor: str) -> Candidate:
        """rejected → pending, lifting the tombstone the reject wrote."""
        now = self.ctx.now()
        with self.ctx.write() as conn:
            mac = resealed(
                conn, self.ctx.cipher, CAND, candidate_id, {"status": CandidateStatus.PENDING}
            )
            done = conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id, CAND.c.status == CandidateStatus.REJECTED)
                .values(
                    status=CandidateStatus.PENDING,
                    decided_by=None,
                    decided_at=None,
                    updated_at=now,
                    row_mac=mac,
                )
            ).rowcount
            if not done:
                explain_not_pending(conn, candidate_id)
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).one()
            tomb = conn.execute(
                sa.select(TOMB).where(
                    TOMB.c.content_key == row.content_key, TOMB.c.source_id == candidate_id
                )
            ).first()
            if tomb is not None:
                self.tombstones.lift_in(conn, tomb, now, actor)
            self.ctx.audit(conn, actor, "candidate.unrejected", "candidate", candidate_id)
            return self.rows.candidate(row)
