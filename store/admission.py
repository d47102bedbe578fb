"""Admission: tombstones first, then merge into a pending duplicate, then queue.

The daemon's ingest and `memvet propose` both come through here; ingest also advances the file
checkpoint in the same transaction as the candidates it produced (exactly-once ingestion).
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from memvet.store.core import CAND, MEM, StoreCore
from memvet.store.errors import UsageError
from memvet.store.models import EvidenceRow, TombstoneRow
from memvet.store.records import (
    EXCERPT_LIMIT,
    KINDS,
    POLARITIES,
    SOURCE_TYPES,
    AdmissionResult,
    CandidateDraft,
    Checkpoint,
    Evidence,
)
from memvet.store.subjects import content_words, overlap
from sqlalchemy import Connection

EVID = EvidenceRow.__table__
TOMB = TombstoneRow.__table__
SUPERSEDE_THRESHOLD = 0.5


def validate_draft(draft: CandidateDraft) -> None:
    if draft.kind not in KINDS:
        raise UsageError(f"unknown kind {draft.kind!r}; one of {', '.join(KINDS)}")
    if draft.source_type not in SOURCE_TYPES:
        raise UsageError(f"unknown source type {draft.source_type!r}")
    if draft.polarity not in POLARITIES:
        raise UsageError(f"unknown polarity {draft.polarity!r}")
    if not draft.statement.strip():
        raise UsageError("the statement is empty")
    if not 0.0 <= draft.confidence <= 1.0:
        raise UsageError("confidence must be between 0 and 1")


class AdmissionMixin(StoreCore):
    def content_key_of(self, draft: CandidateDraft) -> str:
        # The agent part is the memory's agent restriction; memories apply to every agent in v1.
        return self.cipher.content_key(draft.scope.user, draft.scope.workspace, None, draft.kind,
                                       draft.statement)

    def admit(self, draft: CandidateDraft, *, actor: str = "daemon") -> AdmissionResult:
        """Admit one draft on its own (what `memvet propose` and MCP's memory_propose use)."""
        validate_draft(draft)
        with self._write() as conn:
            return self._admit(conn, draft, actor)

    def ingest(self, checkpoint: Checkpoint, drafts: list[CandidateDraft], *,
               actor: str = "daemon") -> list[AdmissionResult]:
        """Admit a batch read from one file and advance its checkpoint, all in one transaction."""
        for draft in drafts:
            validate_draft(draft)
        with self._write() as conn:
            results = [self._admit(conn, d, actor) for d in drafts]
            self._save_checkpoint(conn, checkpoint)
        return results


    def _admit(self, conn: Connection, draft: CandidateDraft, actor: str) -> AdmissionResult:
        key = self.content_key_of(draft)
        now = self.now()
        tomb = conn.execute(sa.select(TOMB.c.content_key).where(
            TOMB.c.content_key == key, TOMB.c.lifted_at.is_(None))).first()
        if tomb:
            conn.execute(TOMB.update().where(TOMB.c.content_key == key).values(
                seen_again=TOMB.c.seen_again + 1, last_seen_at=now))
            self._audit(conn, actor, "admission.tombstoned", "tombstone", key[:16])
            return AdmissionResult("tombstoned", content_key=key)
        pending = conn.execute(sa.select(CAND.c.id).where(
            CAND.c.content_key == key, CAND.c.status.in_(("pending", "reserved", "stale")))).first()
        if pending:
            conn.execute(CAND.update().where(CAND.c.id == pending.id).values(
                evidence_count=CAND.c.evidence_count + 1, updated_at=now))
            self._add_evidence(conn, pending.id, draft.evidence)
            self._audit(conn, actor, "candidate.merged", "candidate", pending.id)
            return AdmissionResult("merged", candidate_id=pending.id, content_key=key)
        known = conn.execute(sa.select(MEM.c.id).where(
            MEM.c.content_key == key, MEM.c.status.in_(("active", "disputed")))).first()
        if known:
            self._audit(conn, actor, "admission.known", "memory", known.id)
            return AdmissionResult("known", memory_id=known.id, content_key=key)
        cid = self._new_id("c_")
        supersedes = self._find_superseded(conn, draft) if draft.supersedes_hint is not None else None
        c = self.cipher
        conn.execute(CAND.insert().values(
            id=cid, status="pending", kind=draft.kind, source_type=draft.source_type,
            host=draft.host, content_key=key, polarity=draft.polarity,
            confidence=draft.confidence, importance=draft.importance, evidence_count=1,
            created_at=now, updated_at=now, supersedes_id=supersedes,
            statement_ct=c.encrypt("candidates", "statement", cid, draft.statement),
            reasons_ct=c.encrypt("candidates", "reasons", cid, json.dumps(list(draft.reasons))),
            usage_boundary_ct=c.encrypt("candidates", "usage_boundary", cid, draft.usage_boundary),
            **self._scope_columns("candidates", cid, draft.scope)))
        self._add_evidence(conn, cid, draft.evidence)
        self._audit(conn, actor, "candidate.queued", "candidate", cid, draft.statement)
        return AdmissionResult("queued", candidate_id=cid, content_key=key)

    def _add_evidence(self, conn: Connection, candidate_id: str, ev: Evidence | None) -> None:
        if ev is None:
            return
        c = self.cipher
        rid = conn.execute(EVID.insert().values(
            candidate_id=candidate_id, line=ev.line, timestamp=ev.timestamp, created_at=self.now(),
            path_ct=b"", excerpt_ct=b"")).inserted_primary_key[0]
        # Encrypted after the insert so the row id can be bound into the associated data.
        row = str(rid)
        conn.execute(EVID.update().where(EVID.c.id == rid).values(
            path_ct=c.encrypt("evidence", "path", row, ev.path),
            message_id_ct=c.encrypt("evidence", "message_id", row, ev.message_id),
            session_ct=c.encrypt("evidence", "session", row, ev.session),
            excerpt_ct=c.encrypt("evidence", "excerpt", row, ev.excerpt[:EXCERPT_LIMIT])))

    def _find_superseded(self, conn: Connection, draft: CandidateDraft) -> str | None:
        """A correction links to the active memory in its scope that it most plausibly replaces."""
        reader = self.reader_for(draft.scope.workspace)
        words = content_words(draft.supersedes_hint or draft.statement)
        best, best_score = None, SUPERSEDE_THRESHOLD
        rows = conn.execute(sa.select(MEM).where(
            MEM.c.status == "active", self.scope_clause(MEM, reader)))
        for row in rows:
            text = self._dec("memories", "statement", row.id, row.statement_ct) or ""
            score = overlap(words, content_words(text)) + (0.1 if row.kind == draft.kind else 0.0)
            if score > best_score:
                best, best_score = row.id, score
        return best
