"""Rows to read models and back: decrypting and authenticating a candidate or memory row, and
the encrypted columns (scope, subject) every write of one computes. One codec per Store, shared
by its parts."""

from __future__ import annotations

import json

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.leases import shown_status
from memvet.store.records import Candidate, Lease, Memory, Scope
from memvet.store.sealing import check as check_seal


class RowCodec:
    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx

    def dec(self, table: str, column: str, row_id: str, blob: bytes | None) -> str | None:
        return self.ctx.cipher.decrypt(table, column, row_id, blob)

    def scope_of(self, table: str, row: sa.Row) -> Scope:
        rid = row.id
        return Scope(
            user=self.dec(table, "user", rid, row.user_ct) or "",
            workspace=self.dec(table, "workspace", rid, row.workspace_ct),
            agent=None,
            session=self.dec(table, "session", rid, row.session_ct),
        )

    def candidate(self, row: sa.Row) -> Candidate:
        rid = row.id
        check_seal(self.ctx.cipher, "candidates", row)
        reasons = self.dec("candidates", "reasons", rid, row.reasons_ct)
        lease = None
        if row.lease_token and row.reserved_at and row.lease_expires_at:
            lease = Lease(
                row.lease_owner or "unknown", row.lease_token, row.reserved_at, row.lease_expires_at
            )
        return Candidate(
            id=rid,
            status=shown_status(row.status, row.lease_expires_at, self.ctx.now()),
            kind=row.kind,
            source_type=row.source_type,
            host=row.host,
            statement=self.dec("candidates", "statement", rid, row.statement_ct) or "",
            scope=self.scope_of("candidates", row),
            confidence=row.confidence,
            reasons=tuple(json.loads(reasons)) if reasons else (),
            evidence_count=row.evidence_count,
            created_at=row.created_at,
            updated_at=row.updated_at,
            polarity=row.polarity,
            importance=row.importance,
            usage_boundary=self.dec("candidates", "usage_boundary", rid, row.usage_boundary_ct),
            lease=lease,
            last_error=self.dec("candidates", "last_error", rid, row.last_error_ct),
            memory_id=row.memory_id,
            supersedes_id=row.supersedes_id,
            decided_by=row.decided_by,
            decided_at=row.decided_at,
            subject=self.subject("candidates", row),
        )

    def memory(self, row: sa.Row) -> Memory:
        rid = row.id
        check_seal(self.ctx.cipher, "memories", row)
        return Memory(
            id=rid,
            statement=self.dec("memories", "statement", rid, row.statement_ct) or "",
            kind=row.kind,
            status=row.status,
            scope=self.scope_of("memories", row),
            source_type=row.source_type,
            host=row.host,
            candidate_id=row.candidate_id,
            valid_from=row.valid_from,
            valid_to=row.valid_to,
            recorded_at=row.recorded_at,
            confidence=row.confidence,
            importance=row.importance,
            polarity=row.polarity,
            approved_by=row.approved_by,
            usage_boundary=self.dec("memories", "usage_boundary", rid, row.usage_boundary_ct),
            supersedes_id=row.supersedes_id,
            superseded_by_id=row.superseded_by_id,
            conflict_state=row.conflict_state,
            retired_reason=row.retired_reason,
            expires_at=row.expires_at,
            updated_at=row.updated_at,
            subject=self.subject("memories", row),
            compatible_key=row.compatible_key,
        )

    def subject(self, table: str, row: sa.Row) -> str:
        """The stored subject, or for a row written before subjects existed, the derived one."""
        stored = self.dec(table, "subject", row.id, row.subject_ct)
        if stored:
            return stored
        from memvet.store.slots import derive_subject

        return derive_subject(
            self.dec(table, "statement", row.id, row.statement_ct) or "", row.kind
        )

    # --- the encrypted columns of a write ---------------------------------------------------------
    def subject_columns(
        self, table: str, row_id: str, subject: str, workspace: str | None, user: str
    ) -> dict[str, object]:
        """Encrypted subject and its blind index, keyed by scope: one slot, one index value."""
        from memvet.store.slots import normalise_subject

        return {
            "subject_ct": self.ctx.cipher.encrypt(table, "subject", row_id, subject),
            "subject_bidx": self.slot_index(normalise_subject(subject), workspace, user),
        }

    def slot_index(self, normal_subject: str, workspace: str | None, user: str) -> str | None:
        return self.ctx.cipher.blind_index(
            "subject", f"{user}\x1f{workspace or ''}\x1f{normal_subject}"
        )

    def scope_columns(self, table: str, row_id: str, scope: Scope) -> dict[str, object]:
        c = self.ctx.cipher
        return {
            "user_bidx": c.blind_index("user", scope.user),
            "workspace_bidx": c.blind_index("workspace", scope.workspace),
            "user_ct": c.encrypt(table, "user", row_id, scope.user),
            "workspace_ct": c.encrypt(table, "workspace", row_id, scope.workspace),
            "session_ct": c.encrypt(table, "session", row_id, scope.session),
        }
