"""Admission: tombstones first, then merge into a pending duplicate, then queue.

One batch path serves everything (a single `memvet propose`, a daemon batch, an import): the
content keys of the batch are looked up with a few IN queries and the rows are written with
executemany, so a 5,000-draft import costs a handful of statements, not 10 per draft. The
daemon's `ingest` also advances the file checkpoint in the same transaction (exactly-once)."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field

import sqlalchemy as sa
from memvet.store.audit import append_events
from memvet.store.checkpoints import Checkpoints
from memvet.store.context import StoreContext
from memvet.store.core import CAND, MEM
from memvet.store.errors import IntegrityError, UsageError
from memvet.store.evidence_identity import held_identities, identity_key
from memvet.store.models import EvidenceRow, TombstoneRow
from memvet.store.near_duplicates import NearDuplicates
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
from memvet.store.rows import RowCodec
from memvet.store.sealing import check as check_seal
from memvet.store.sealing import seal
from memvet.store.slots import derive_subject
from memvet.store.subjects import content_words, overlap
from memvet.store.text_safety import sanitise_draft
from memvet.store.tombstones import Tombstones
from memvet.store.vocabulary import AdmissionOutcome, CandidateStatus, MemoryStatus
from sqlalchemy import Connection

EVID = EvidenceRow.__table__
TOMB = TombstoneRow.__table__
SUPERSEDE_THRESHOLD = 0.5
CHUNK = 500  # keys per IN query: well under every database's parameter limit

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


def admissible(draft: CandidateDraft) -> CandidateDraft:
    """The draft as the store keeps it (controls cleaned, secrets redacted), validated. Every
    write path goes through this, so nothing reaches the store unsanitised."""
    draft = sanitise_draft(draft)
    validate_draft(draft)
    return draft


@dataclass
class _Batch:
    """Rows gathered for one batch, written at the end with executemany."""

    candidates: list[dict] = field(default_factory=list)
    evidence: list[dict] = field(default_factory=list)
    tomb_hits: dict[str, int] = field(default_factory=dict)
    merges: dict[str, int] = field(default_factory=dict)
    events: list[tuple] = field(default_factory=list)


class Admission:
    """The queue's way in: tombstones first, then a pending duplicate, then a new candidate."""

    def __init__(
        self,
        ctx: StoreContext,
        rows: RowCodec,
        tombstones: Tombstones,
        near: NearDuplicates,
        checkpoints: Checkpoints,
    ) -> None:
        self.ctx, self.rows, self.tombstones = ctx, rows, tombstones
        self.near, self.checkpoints = near, checkpoints

    def content_key(self, draft: CandidateDraft) -> str:
        # The agent part is the memory's agent restriction; memories apply to every agent in v1.
        return self.ctx.cipher.content_key(
            draft.scope.user, draft.scope.workspace, None, draft.kind, draft.statement
        )

    def admit(self, draft: CandidateDraft, *, actor: str = "daemon") -> AdmissionResult:
        """Admit one draft on its own (what `memvet propose` and MCP's memory_propose use)."""
        return self.admit_many([draft], actor=actor)[0]

    def admit_many(
        self, drafts: list[CandidateDraft], *, actor: str = "import"
    ) -> list[AdmissionResult]:
        """Admit drafts in one transaction, with the same rules as `admit`."""
        drafts = [admissible(d) for d in drafts]
        with self.ctx.write() as conn:
            return self.admit_batch(conn, drafts, actor)

    def ingest(
        self, checkpoint: Checkpoint, drafts: list[CandidateDraft], *, actor: str = "daemon"
    ) -> list[AdmissionResult]:
        """Admit a batch read from one file and advance its checkpoint, all in one transaction.
        A draft that cannot be stored is `dropped` (its result says so), never a failed batch:
        the checkpoint still passes its line."""
        ready: list[CandidateDraft] = []
        dropped: set[int] = set()
        for i, draft in enumerate(drafts):
            try:
                ready.append(admissible(draft))
            except (UsageError, ValueError):  # UnicodeError is a ValueError
                dropped.add(i)
        with self.ctx.write() as conn:
            admitted = iter(self.admit_batch(conn, ready, actor, near=True))
            self.checkpoints.save_in(conn, checkpoint)
        return [
            AdmissionResult(AdmissionOutcome.DROPPED) if i in dropped else next(admitted)
            for i in range(len(drafts))
        ]

    def _existing(self, conn: Connection, keys: list[str]) -> tuple[dict, dict]:
        pending, known = {}, {}
        for i in range(0, len(keys), CHUNK):
            part = keys[i : i + CHUNK]
            pending |= {
                r.content_key: r.id
                for r in conn.execute(
                    sa.select(CAND.c.content_key, CAND.c.id).where(
                        CAND.c.content_key.in_(part),
                        CAND.c.status.in_(
                            (
                                CandidateStatus.PENDING,
                                CandidateStatus.RESERVED,
                                CandidateStatus.STALE,
                            )
                        ),
                    )
                )
            }
            known |= {
                r.content_key: r.id
                for r in conn.execute(
                    sa.select(MEM.c.content_key, MEM.c.id).where(
                        MEM.c.content_key.in_(part),
                        MEM.c.status.in_((MemoryStatus.ACTIVE, MemoryStatus.DISPUTED)),
                    )
                )
            }
        return pending, known

    def admit_batch(
        self, conn: Connection, drafts: list[CandidateDraft], actor: str, *, near: bool = False
    ) -> list[AdmissionResult]:
        """`near`: a restatement of a pending candidate merges into it (the daemon's sessions;
        what an operator types or imports is queued as typed)."""
        if not drafts:
            return []
        keys = [self.content_key(d) for d in drafts]
        # Tombstones by statement, whatever the kind, at this scope or a wider or narrower one.
        tombs = self.tombstones.hits(conn, [(d.scope, d.statement) for d in drafts])
        pending, known = self._existing(conn, sorted(set(keys)))
        idents = [
            identity_key(self.ctx.cipher, d.evidence, k) for d, k in zip(drafts, keys, strict=True)
        ]
        held = held_identities(conn, [i for i in idents if i is not None])
        now, batch, results = self.ctx.now(), _Batch(), []
        fresh: set[str] = set()  # candidates queued by this batch (written at its end)
        for draft, key, tomb, ident in zip(drafts, keys, tombs, idents, strict=True):
            if ident is not None and ident in held:  # the same line read again: absorbed
                results.append(AdmissionResult(AdmissionOutcome.REPEAT, content_key=key))
                continue
            if ident is not None:
                held.add(ident)
            if tomb is not None:
                hit = tomb.content_key
                batch.tomb_hits[hit] = batch.tomb_hits.get(hit, 0) + 1
                batch.events.append(
                    (now, actor, "admission.tombstoned", "tombstone", hit[:16], None)
                )
                results.append(
                    AdmissionResult(AdmissionOutcome.TOMBSTONED, content_key=key, tombstone=hit)
                )
            elif key in pending:
                cid = pending[key]
                batch.merges[cid] = batch.merges.get(cid, 0) + 1
                self._evidence_row(batch, cid, draft.evidence, now, ident)
                batch.events.append((now, actor, "candidate.merged", "candidate", cid, None))
                results.append(
                    AdmissionResult(AdmissionOutcome.MERGED, candidate_id=cid, content_key=key)
                )
            elif key in known:
                batch.events.append((now, actor, "admission.known", "memory", known[key], None))
                results.append(
                    AdmissionResult(AdmissionOutcome.KNOWN, memory_id=known[key], content_key=key)
                )
            elif near and (found := self.near.restated(conn, draft, fresh)) is not None:
                cid, row = found  # the same rule in other words: one candidate, both evidences
                merged_key = self.near.narrow_to(conn, row, draft) if row is not None else key
                batch.merges[cid] = batch.merges.get(cid, 0) + 1
                self._evidence_row(batch, cid, draft.evidence, now, ident)
                batch.events.append((now, actor, "candidate.merged_near", "candidate", cid, None))
                results.append(
                    AdmissionResult(
                        AdmissionOutcome.MERGED, candidate_id=cid, content_key=merged_key
                    )
                )
            else:
                cid = self._candidate_row(conn, batch, draft, key, now)
                pending[key] = cid  # a repeat later in this batch merges into it
                if near:
                    fresh.add(cid)
                    self.near.remember(cid, draft)
                batch.events.append(
                    (now, actor, "candidate.queued", "candidate", cid, draft.statement)
                )
                results.append(
                    AdmissionResult(AdmissionOutcome.QUEUED, candidate_id=cid, content_key=key)
                )
        self._write_batch(conn, batch, now)
        return results

    def _candidate_row(
        self, conn: Connection, batch: _Batch, draft: CandidateDraft, key: str, now
    ) -> str:  # noqa: ANN001
        cid = self.ctx.new_id("c_")
        supersedes = (
            self._find_superseded(conn, draft) if draft.supersedes_hint is not None else None
        )
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
        batch.candidates.append({**values, "row_mac": seal(c, "candidates", values)})
        self._evidence_row(batch, cid, draft.evidence, now, identity_key(c, draft.evidence, key))
        return cid

    def _evidence_row(
        self,
        batch: _Batch,
        candidate_id: str,
        ev: Evidence | None,
        now,  # noqa: ANN001
        identity: str | None,
    ) -> None:
        if ev is None:
            return
        c, rid = self.ctx.cipher, "e_" + secrets.token_hex(8)
        batch.evidence.append(
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

    def _write_batch(self, conn: Connection, batch: _Batch, now) -> None:  # noqa: ANN001
        if batch.candidates:
            conn.execute(CAND.insert(), batch.candidates)
        if batch.evidence:
            conn.execute(EVID.insert(), batch.evidence)
        if batch.merges:
            conn.execute(MERGE, [{"cid": k, "n": n, "now": now} for k, n in batch.merges.items()])
        if batch.tomb_hits:
            conn.execute(
                TOMB_COUNT, [{"key": k, "n": n, "now": now} for k, n in batch.tomb_hits.items()]
            )
        append_events(conn, self.ctx.cipher, batch.events)

    def _find_superseded(self, conn: Connection, draft: CandidateDraft) -> str | None:
        """A correction links to the active memory in its scope that it most plausibly replaces."""
        reader = self.ctx.reader_for(draft.scope.workspace)
        words = content_words(draft.supersedes_hint or draft.statement)
        scored = []
        rows = conn.execute(
            sa.select(MEM).where(
                MEM.c.status == MemoryStatus.ACTIVE, self.ctx.scope_clause(MEM, reader)
            )
        )
        for row in rows:
            try:
                check_seal(self.ctx.cipher, "memories", row)
                text = self.rows.dec("memories", "statement", row.id, row.statement_ct) or ""
            except IntegrityError:  # skipped, as every read skips a row that fails
                self.ctx.note_unreadable("memories", row.id)
                continue
            score = overlap(words, content_words(text)) + (0.1 if row.kind == draft.kind else 0.0)
            if score > SUPERSEDE_THRESHOLD:
                scored.append((score, row.valid_from, text, row.id))
        # A tie goes to the latest said, then to the statement's text: never to row order, which
        # follows approval order (random id tails), so the same story links the same memory.
        scored.sort(key=lambda s: s[2])
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        return scored[0][3] if scored else None
