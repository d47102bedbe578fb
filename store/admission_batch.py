"""The rows one admission batch writes: new candidates with their evidence, merges into pending
candidates, tombstone hits and audit events, gathered while the batch is decided and written at
its end with executemany (admission.py decides; this module only builds and writes rows)."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime

import sqlalchemy as sa
from memvet.store.audit import append_events
from memvet.store.context import StoreContext
from memvet.store.core import CAND, EVID, TOMB
from memvet.store.evidence_identity import identity_key
from memvet.store.records import EXCERPT_LIMIT, CandidateDraft, Evidence
from memvet.store.rows import RowCodec
from memvet.store.sealing import seal
from memvet.store.slots import derive_subject
from memvet.store.vocabulary import CandidateStatus
from sqlalchemy import Connection

TOMB_COUNT = (
    TOMB.update()
    .where(TOMB.c.content_key == sa.bindparam("key"))
    .values(seen_again=TOMB.c.seen_again + sa.bindparam("n"), last_seen_at=sa.bindparam("now"))
)
MERGE = (
    CAND.update()
    .where(CAND.c.id == sa.bindparam("cid"))
    .values(
        evidence_count=CAND.c.evidence_count + sa.bindparam("n"), updated_at=sa.bindparam("now")
    )
)


@dataclass
class AdmissionBatch:
    """Rows gathered for one batch, written at the end with executemany."""

    ctx: StoreContext
    rows: RowCodec
    now: datetime
    candidates: list[dict] = field(default_factory=list)
    evidence: list[dict] = field(default_factory=list)
    tomb_hits: dict[str, int] = field(default_factory=dict)
    merges: dict[str, int] = field(default_factory=dict)
    events: list[tuple] = field(default_factory=list)

    def event(
        self, actor: str, action: str, entity_type: str, entity_id: str, preview: str | None = None
    ) -> None:
        self.events.append((self.now, actor, action, entity_type, entity_id, preview))

    def tombstone_hit(self, content_key: str) -> None:
        self.tomb_hits[content_key] = self.tomb_hits.get(content_key, 0) + 1

    def merge(self, candidate_id: str, ev: Evidence | None, identity: str | None) -> None:
        self.merges[candidate_id] = self.merges.get(candidate_id, 0) + 1
        self.add_evidence(candidate_id, ev, identity)

    def add_candidate(self, draft: CandidateDraft, key: str, supersedes: str | None) -> str:
        """A new pending candidate (and its evidence); returns its id."""
        cid, now = self.ctx.new_id("c_"), self.now
        c = self.ctx.cipher
        values = dict(
            id=cid,
            status=CandidateStatus.PENDING,
            kind=draft.kind,
            source_type=draft.source_type,
            host=draft.host,
            content_key=key,
            polarity=draft.polarity,
            confidence=draft.confidence,
            importance=draft.importance,
            evidence_count=1,
            created_at=now,
            updated_at=now,
            supersedes_id=supersedes,
            statement_ct=c.encrypt("candidates", "statement", cid, draft.statement),
            reasons_ct=c.encrypt("candidates", "reasons", cid, json.dumps(list(draft.reasons))),
            usage_boundary_ct=c.encrypt("candidates", "usage_boundary", cid, draft.usage_boundary),
            **self.rows.scope_columns("candidates", cid, draft.scope),
            **self.rows.subject_columns(
                "candidates",
                cid,
                derive_subject(draft.statement, draft.kind),
                draft.scope.workspace,
                draft.scope.user,
            ),
        )
        self.candidates.append({**values, "row_mac": seal(c, "candidates", values)})
        self.add_evidence(cid, draft.evidence, identity_key(c, draft.evidence, key))
        return cid

    def add_evidence(self, candidate_id: str, ev: Evidence | None, identity: str | None) -> None:
        if ev is None:
            return
        c, rid, now = self.ctx.cipher, "e_" + secrets.token_hex(8), self.now
        self.evidence.append(
            {
                "id": rid,
                "candidate_id": candidate_id,
                "line": ev.line,
                "timestamp": ev.timestamp,
                "identity_key": identity,
                "created_at": now,
                "path_ct": c.encrypt("evidence", "path", rid, ev.path),
                "message_id_ct": c.encrypt("evidence", "message_id", rid, ev.message_id),
                "session_ct": c.encrypt("evidence", "session", rid, ev.session),
                "excerpt_ct": c.encrypt("evidence", "excerpt", rid, ev.excerpt[:EXCERPT_LIMIT]),
            }
        )

    def write(self, conn: Connection) -> None:
        now = self.now
        if self.candidates:
            conn.execute(CAND.insert(), self.candidates)
        if self.evidence:
            conn.execute(EVID.insert(), self.evidence)
        if self.merges:
            conn.execute(MERGE, [{"cid": k, "n": n, "now": now} for k, n in self.merges.items()])
        if self.tomb_hits:
            conn.execute(
                TOMB_COUNT, [{"key": k, "n": n, "now": now} for k, n in self.tomb_hits.items()]
            )
        append_events(conn, self.ctx.cipher, self.events)
