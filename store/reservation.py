"""The approval reservation protocol: reserve (compare-and-set) → commit (idempotent) or
release on failure; stale leases are settled only by an operator. Reject compare-and-sets too."""

from __future__ import annotations

import os
import secrets
import socket
from datetime import timedelta

import sqlalchemy as sa
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
from memvet.store.lifecycle import check_candidate
from memvet.store.models import MemoryTransitionRow, TombstoneRow
from memvet.store.records import KINDS, POLARITIES, Candidate, Edits, Lease, Memory
from memvet.store.sealing import resealed, seal
from memvet.store.slot_decisions import subject_for
from memvet.store.text_safety import sanitise, sanitise_optional
from memvet.store.tombstones import TombstoneMixin
from sqlalchemy import Connection

TRANS = MemoryTransitionRow.__table__
TOMB = TombstoneRow.__table__
DEFAULT_LEASE = timedelta(minutes=2)


def default_owner(tool: str) -> str:
    return f"{tool} pid {os.getpid()} on {socket.gethostname()}"


def memory_id_for(candidate_id: str) -> str:
    """Derived from the candidate, so a second commit of one candidate cannot make a second memory."""
    return "m_" + candidate_id.removeprefix("c_")


class ReservationMixin(TombstoneMixin):
    def reserve(self, candidate_id: str, *, owner: str, ttl: timedelta = DEFAULT_LEASE) -> Lease:
        now = self.now()
        lease = Lease(
            owner=owner, token=secrets.token_hex(16), reserved_at=now, expires_at=now + ttl
        )
        with self._write() as conn:
            mac = resealed(conn, self.cipher, CAND, candidate_id, {"status": "reserved"})
            done = conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id, CAND.c.status == "pending")
                .values(
                    status="reserved",
                    lease_token=lease.token,
                    lease_owner=owner[:200],
                    reserved_at=now,
                    lease_expires_at=lease.expires_at,
                    updated_at=now,
                    row_mac=mac,
                )
            ).rowcount
            if not done:
                self._explain_not_pending(conn, candidate_id)
            self._audit(conn, owner, "candidate.reserved", "candidate", candidate_id)
        return lease

    def _explain_not_pending(self, conn: Connection, candidate_id: str) -> None:
        row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).first()
        if row is None:
            raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
        if row.status in ("reserved", "stale"):
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
        with self._write() as conn:
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).first()
            if row is None:
                raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
            if row.status == "committed":
                existing = conn.execute(sa.select(MEM).where(MEM.c.id == row.memory_id)).one()
                return self.memory_from_row(existing)
            expected = "stale" if recovery else "reserved"
            if row.status != expected:
                raise IllegalTransitionError(
                    f"candidate {candidate_id} is {row.status}, not {expected}",
                    id=candidate_id,
                    from_status=row.status,
                    to_status="committed",
                )
            if not recovery and row.lease_token != lease_token:
                raise LeaseMismatchError(
                    f"the lease on {candidate_id} is held by {row.lease_owner}",
                    id=candidate_id,
                    holder=row.lease_owner,
                )
            check_candidate(row.status, "committed")
            memory = self._insert_memory(conn, self.candidate_from_row(row), edits, actor)
            conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id)
                .values(
                    status="committed",
                    memory_id=memory.id,
                    lease_token=None,
                    decided_by=actor[:200],
                    decided_at=self.now(),
                    updated_at=self.now(),
                    last_error_ct=None,
                    row_mac=resealed(
                        conn, self.cipher, CAND, candidate_id, {"status": "committed"}, row=row
                    ),
                )
            )
            self._audit(
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
        with self._write() as conn:
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).first()
            if row is None:
                raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
            check_candidate(row.status, "pending")
            held = "stale" if recovery else "reserved"  # never a decided candidate (undo's job)
            if row.status != held:
                raise IllegalTransitionError(
                    f"candidate {candidate_id} is {row.status}, not {held}",
                    id=candidate_id,
                    from_status=row.status,
                    to_status="pending",
                    status=row.status,
                )
            if row.status == "reserved" and row.lease_token != lease_token:
                raise LeaseMismatchError(
                    f"the lease on {candidate_id} is held by {row.lease_owner}",
                    id=candidate_id,
                    holder=row.lease_owner,
                )
            conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id, CAND.c.status == row.status)
                .values(
                    status="pending",
                    lease_token=None,
                    lease_owner=None,
                    reserved_at=None,
                    lease_expires_at=None,
                    updated_at=self.now(),
                    row_mac=resealed(
                        conn, self.cipher, CAND, candidate_id, {"status": "pending"}, row=row
                    ),
                    last_error_ct=self.cipher.encrypt(
                        "candidates", "last_error", candidate_id, error[:500]
                    ),
                )
            )
            self._audit(conn, actor, "candidate.released", "candidate", candidate_id)

    def approve(
        self,
        candidate_id: str,
        *,
        actor: str,
        edits: Edits | None = None,
        ttl: timedelta = DEFAULT_LEASE,
    ) -> Memory:
        """Reserve, commit, and release with the error kept if anything fails in between.
        With `edits.conflict == "ask"` a conflict is refused before anything is reserved (and
        again inside the commit, which is what decides)."""
        if edits is not None and edits.conflict == "ask":
            self.check_conflicts(candidate_id, edits)  # type: ignore[attr-defined]
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

    def reject(
        self, candidate_id: str, *, actor: str, reason: str | None = None, recovery: bool = False
    ) -> Candidate:
        """Compare-and-set pending (or stale, in recovery) → rejected, and tombstone the content."""
        source = "stale" if recovery else "pending"
        now = self.now()
        with self._write() as conn:
            mac = resealed(conn, self.cipher, CAND, candidate_id, {"status": "rejected"})
            done = conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id, CAND.c.status == source)
                .values(
                    status="rejected",
                    lease_token=None,
                    decided_by=actor[:200],
                    decided_at=now,
                    row_mac=mac,
                    updated_at=now,
                    decision_note_ct=self.cipher.encrypt(
                        "candidates", "decision_note", candidate_id, sanitise_optional(reason)
                    ),
                )
            ).rowcount
            if not done:
                self._explain_not_pending(conn, candidate_id)
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).one()
            cand = self.candidate_from_row(row)
            self._tombstone(
                conn, row.content_key, "rejected", candidate_id, cand.statement, cand.scope
            )
            self._audit(conn, actor, "candidate.rejected", "candidate", candidate_id)
            return cand

    def undo_reject(self, candidate_id: str, *, actor: str) -> Candidate:
        """rejected → pending, lifting the tombstone the reject wrote."""
        now = self.now()
        with self._write() as conn:
            mac = resealed(conn, self.cipher, CAND, candidate_id, {"status": "pending"})
            done = conn.execute(
                CAND.update()
                .where(CAND.c.id == candidate_id, CAND.c.status == "rejected")
                .values(
                    status="pending", decided_by=None, decided_at=None, updated_at=now, row_mac=mac
                )
            ).rowcount
            if not done:
                self._explain_not_pending(conn, candidate_id)
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).one()
            tomb = conn.execute(
                sa.select(TOMB).where(
                    TOMB.c.content_key == row.content_key, TOMB.c.source_id == candidate_id
                )
            ).first()
            if tomb is not None:
                conn.execute(
                    TOMB.update()
                    .where(TOMB.c.content_key == tomb.content_key)
                    .values(
                        lifted_at=now,
                        row_mac=resealed(
                            conn, self.cipher, TOMB, tomb.content_key, {"lifted_at": now}, row=tomb
                        ),
                    )
                )
                self._audit(conn, actor, "tombstone.lifted", "tombstone", tomb.content_key[:16])
            self._audit(conn, actor, "candidate.unrejected", "candidate", candidate_id)
            return self.candidate_from_row(row)

    def recover(self, candidate_id: str, action: str, *, actor: str) -> Candidate | Memory:
        """Settle a stale reservation: commit, release or reject. A lease that ran out is
        recorded as stale first, so no daemon sweep is needed for it."""
        if action not in ("commit", "release", "reject"):
            raise UsageError(f"unknown recovery action {action!r}: commit, release or reject")
        self.mark_stale_leases(  # type: ignore[attr-defined]
            self.now(),
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
            return self.get_candidate_record(candidate_id)
        if action == "reject":
            return self.reject(candidate_id, actor=actor, reason="stale lease", recovery=True)
        raise UsageError(f"unknown recovery action {action!r}: commit, release or reject")

    def get_candidate_record(self, candidate_id: str) -> Candidate:
        with self._read() as conn:
            row = conn.execute(sa.select(CAND).where(CAND.c.id == candidate_id)).first()
        if row is None:
            raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
        return self.candidate_from_row(row)

    # --- memory creation ----------------------------------------------------------------------
    def _insert_memory(self, conn: Connection, cand: Candidate, edits: Edits, actor: str) -> Memory:
        now = self.now()
        mid = memory_id_for(cand.id)
        # An edited statement is new text: it passes the same gate as admission.
        statement = (sanitise(edits.statement) if edits.statement else cand.statement).strip()
        if not statement:
            raise UsageError("the edited statement is empty")
        kind = edits.kind or cand.kind
        if kind not in KINDS:
            raise UsageError(f"unknown kind {kind!r}")
        polarity = edits.polarity or cand.polarity
        if polarity not in POLARITIES:
            raise UsageError(f"unknown polarity {polarity!r}: assert or deny")
        workspace = None if edits.make_global else (edits.workspace or cand.scope.workspace)
        scope = type(cand.scope)(
            user=cand.scope.user, workspace=workspace, session=cand.scope.session
        )
        key = self.cipher.content_key(scope.user, scope.workspace, None, kind, statement)
        self.refuse_over_tombstone(
            conn,
            scope,
            statement,
            candidate_id=cand.id,
            force=edits.force_over_tombstone,
            actor=actor,
        )
        subject = subject_for(cand, edits, statement, kind)
        valid_from = edits.valid_from or self.statement_time(conn, cand)  # type: ignore[attr-defined]
        found = self.slot_conflicts(  # type: ignore[attr-defined]
            conn,
            cand,
            statement=statement,
            kind=kind,
            polarity=polarity,
            subject=subject,
            workspace=workspace,
            exclude=mid,
        )
        supersede = None if edits.supersede is False else (edits.supersede_id or cand.supersedes_id)
        if edits.conflict in ("keep_both", "dispute"):
            supersede = None
        elif edits.conflict == "supersede":
            supersede = next(iter(edits.supersede_ids or found.preselect), None)
        c = self.cipher
        values = dict(
            id=mid,
            candidate_id=cand.id,
            status="active",
            kind=kind,
            source_type=cand.source_type,
            host=cand.host,
            content_key=key,
            polarity=polarity,
            confidence=cand.confidence,
            importance=cand.importance,
            approved_by=actor[:200],
            valid_from=valid_from,
            valid_to=edits.valid_to,
            recorded_at=now,
            updated_at=now,
            supersedes_id=supersede,
            statement_ct=c.encrypt("memories", "statement", mid, statement),
            usage_boundary_ct=c.encrypt(
                "memories",
                "usage_boundary",
                mid,
                sanitise_optional(edits.usage_boundary) or cand.usage_boundary,
            ),
            **self._scope_columns("memories", mid, scope),
            **self._subject_columns("memories", mid, subject, scope.workspace, scope.user),
        )
        conn.execute(MEM.insert(), {**values, "row_mac": seal(c, "memories", values)})
        self._append_transition(
            conn, mid, None, "active", None, edits.valid_to, actor, "approved", f"commit:{cand.id}"
        )
        if supersede and edits.conflict != "supersede":
            self._supersede(conn, supersede, mid, actor, valid_to=valid_from)  # type: ignore[attr-defined]
            found = found.without(supersede)
        self.settle_slot(conn, mid, found, edits, actor, valid_from)  # type: ignore[attr-defined]
        self._audit(conn, actor, "memory.created", "memory", mid, statement)
        row = conn.execute(sa.select(MEM).where(MEM.c.id == mid)).one()
        return self.memory_from_row(row)

    def _append_transition(
        self,
        conn: Connection,
        memory_id: str,
        from_status: str | None,
        to_status: str,
        valid_to_before,
        valid_to_after,
        actor: str,  # noqa: ANN001
        reason: str | None,
        txn_id: str,
    ) -> None:
        conn.execute(
            TRANS.insert(),
            dict(
                memory_id=memory_id,
                from_status=from_status,
                to_status=to_status,
                valid_to_before=valid_to_before,
                valid_to_after=valid_to_after,
                actor=actor[:200],
                reason=reason,
                txn_id=txn_id,
                at=self.now(),
            ),
        )
