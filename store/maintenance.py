"""What the daemon's sweeps call: plain idempotent operations taking the time from the caller.

Each returns how many records it changed; each change is audited in its own transaction."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

import sqlalchemy as sa
from memvet.store.audit import T as AUDIT
from memvet.store.audit import events_after, recent_events, verify_chain
from memvet.store.context import StoreContext
from memvet.store.core import CAND, MEM, TOMB
from memvet.store.errors import IntegrityError
from memvet.store.integrity import sqlite_check, verify_state
from memvet.store.leases import expired_clause
from memvet.store.lifecycle import check_candidate
from memvet.store.memories import Memories
from memvet.store.models import SweepRunRow
from memvet.store.records import AuditEvent, AuditReport
from memvet.store.row_mac import SEALED
from memvet.store.rows import RowCodec
from memvet.store.sealing import RowSealError, resealed
from memvet.store.tombstones import Tombstones
from memvet.store.vocabulary import CandidateStatus, MemoryStatus, RetireReason, SourceType

SWEEPS = SweepRunRow.__table__
DECAY_FLOOR = 0.05


class Maintenance:
    def __init__(
        self, ctx: StoreContext, rows: RowCodec, memories: Memories, tombstones: Tombstones
    ) -> None:
        self.ctx, self.rows, self.memories, self.tombstones = ctx, rows, memories, tombstones

    def mark_stale_leases(
        self, now: datetime, *, only: str | None = None, actor: str = "sweep"
    ) -> int:
        """reserved → stale once the lease has expired (the approver died). Never retried.
        `only`: just that candidate (recovery settles one without waiting for the sweep)."""
        check_candidate(CandidateStatus.RESERVED, CandidateStatus.STALE)
        with self.ctx.write() as conn:
            query = sa.select(CAND.c.id).where(expired_clause(CAND, now))
            if only is not None:
                query = query.where(CAND.c.id == only)
            ids = [r.id for r in conn.execute(query)]
            for cid in list(ids):  # a copy: rows that fail are dropped from `ids`
                mac = self._sweep_mac(conn, cid, CandidateStatus.STALE)
                if mac is None:
                    ids.remove(cid)
                    continue
                conn.execute(
                    CAND.update()
                    .where(CAND.c.id == cid, CAND.c.status == CandidateStatus.RESERVED)
                    .values(status=CandidateStatus.STALE, updated_at=now, row_mac=mac)
                )
                self.ctx.audit(conn, actor, "candidate.stale", "candidate", cid)
        return len(ids)

    def expire_candidates(self, now: datetime, max_age: timedelta) -> int:
        check_candidate(CandidateStatus.PENDING, CandidateStatus.EXPIRED)
        cutoff = now - max_age
        with self.ctx.write() as conn:
            ids = [
                r.id
                for r in conn.execute(
                    sa.select(CAND.c.id).where(
                        CAND.c.status == CandidateStatus.PENDING, CAND.c.updated_at < cutoff
                    )
                )
            ]
            for cid in list(ids):  # a copy: rows that fail are dropped from `ids`
                mac = self._sweep_mac(conn, cid, CandidateStatus.EXPIRED)
                if mac is None:
                    ids.remove(cid)
                    continue
                conn.execute(
                    CAND.update()
                    .where(CAND.c.id == cid, CAND.c.status == CandidateStatus.PENDING)
                    .values(
                        status=CandidateStatus.EXPIRED,
                        updated_at=now,
                        decided_by="sweep",
                        decided_at=now,
                        row_mac=mac,
                    )
                )
                self.ctx.audit(conn, "sweep", "candidate.expired", "candidate", cid)
        return len(ids)

    def _sweep_mac(self, conn: sa.Connection, cid: str, status: str) -> str | None:
        """A sweep passes over a row that fails its check (reported), never stops on it."""
        try:
            return resealed(conn, self.ctx.cipher, CAND, cid, {"status": status})
        except RowSealError:
            self.ctx.note_unreadable("candidates", cid)
            return None

    def retire_due_memories(self, now: datetime) -> int:
        """Memories past their validity (valid_to) or their TTL (expires_at) are retired."""
        with self.ctx.read() as conn:
            due = conn.execute(
                sa.select(MEM.c.id, MEM.c.expires_at).where(
                    MEM.c.status == MemoryStatus.ACTIVE,
                    sa.or_(MEM.c.valid_to <= now, MEM.c.expires_at <= now),
                )
            ).all()
        for row in due:
            reason = (
                RetireReason.TTL
                if row.expires_at is not None and row.expires_at <= now
                else RetireReason.EXPIRED
            )
            try:
                self.memories.retire(
                    row.id,
                    actor="sweep",
                    reason=reason,
                    txn_id=f"sweep:{reason}:{row.id}",
                )
            except RowSealError:
                self.ctx.note_unreadable("memories", row.id)
        return len(due)

    def decay_confidence(self, now: datetime, half_life: timedelta) -> int:
        """Model-inferred memories lose confidence with age; operator-approved statements of the
        user (explicit_user, operator, import) are immune. Recomputed from the approval-time
        confidence, so running it twice changes nothing."""
        changed = 0
        with self.ctx.write() as conn:
            rows = conn.execute(
                sa.select(
                    MEM.c.id,
                    MEM.c.recorded_at,
                    MEM.c.confidence,
                    CAND.c.confidence.label("initial"),
                )
                .join(CAND, CAND.c.id == MEM.c.candidate_id)
                .where(
                    MEM.c.status == MemoryStatus.ACTIVE,
                    MEM.c.source_type == SourceType.MODEL_INFERENCE,
                )
            ).all()
            for row in rows:
                age = max((now - row.recorded_at).total_seconds(), 0.0)
                value = max(row.initial * 0.5 ** (age / half_life.total_seconds()), DECAY_FLOOR)
                if abs(value - row.confidence) > 1e-6:
                    conn.execute(MEM.update().where(MEM.c.id == row.id).values(confidence=value))
                    changed += 1
            if changed:
                self.ctx.audit(conn, "sweep", "memory.decayed", "memory", f"{changed} memories")
        return changed

    def verify_audit(self) -> AuditReport:
        """The file (SQLite's quick check), the hash chain and its head, then every row
        against the state the chain last recorded for it."""
        states: dict = {}
        with self.ctx.read() as conn:
            problems = sqlite_check(conn)
            if problems:
                return AuditReport(
                    False,
                    0,
                    None,
                    f"the database file is damaged (SQLite: {'; '.join(problems)[:300]})",
                )
            report = verify_chain(conn, self.ctx.cipher, states)
            if not report.ok:
                return report
            return verify_state(conn, self.ctx.cipher, states, report.events) or report

    def integrity_scan(self, *, deep: bool = False) -> dict[str, object]:
        """For `memvet doctor`: SQLite's check of the file and every row that fails its row MAC
        or a ciphertext (ids only)."""
        with self.ctx.read() as conn:
            problems = sqlite_check(conn, deep=deep)
            bad: list[str] = []
            for table, decode in (
                (CAND, self.rows.candidate),
                (MEM, self.rows.memory),
                (TOMB, self.tombstones.from_row),
            ):
                for row in conn.execute(sa.select(table)):
                    try:
                        decode(row)
                    except IntegrityError:
                        bad.append(str(row._mapping[SEALED[table.name][0]]))
        return {"sqlite": problems, "unreadable": {"count": len(bad), "ids": bad}}

    def audit_events(self, limit: int = 100) -> list[AuditEvent]:
        with self.ctx.read() as conn:
            return recent_events(conn, self.ctx.cipher, limit)

    def audit_events_after(self, seq: int, limit: int = 1000) -> list[AuditEvent]:
        """What changed since event `seq`, oldest first (the inspector's live queue reads this)."""
        with self.ctx.read() as conn:
            return events_after(conn, self.ctx.cipher, seq, limit)

    def audit_head(self) -> int:
        """The sequence number of the newest audit event (0 for an empty ledger)."""
        with self.ctx.read() as conn:
            return int(conn.execute(sa.select(sa.func.max(AUDIT.c.seq))).scalar() or 0)

    def record_sweep(self, job_id: str, at: datetime, result: str = "") -> None:
        with self.ctx.write() as conn:
            done = conn.execute(
                SWEEPS.update()
                .where(SWEEPS.c.job_id == job_id)
                .values(last_success_at=at, last_result=result[:256])
            ).rowcount
            if not done:
                conn.execute(
                    SWEEPS.insert().values(
                        job_id=job_id, last_success_at=at, last_result=result[:256]
                    )
                )

    def sweep_runs(self) -> dict[str, datetime]:
        with self.ctx.read() as conn:
            return {r.job_id: r.last_success_at for r in conn.execute(sa.select(SWEEPS))}


def new_txn_id() -> str:
    return secrets.token_hex(12)
