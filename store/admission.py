"""Admission: tombstones first, then merge into a pending duplicate, then queue.

One batch path serves everything (a single `memvet propose`, a daemon batch, an import): the
content keys of the batch are looked up with a few IN queries and the rows are written with
executemany, so a 5,000-draft import costs a handful of statements, not 10 per draft. The
daemon's `ingest` also advances the file checkpoint in the same transaction (exactly-once)."""

from __future__ import annotations

import sqlalchemy as sa
from memvet.store.admission_batch import AdmissionBatch
from memvet.store.checkpoints import Checkpoints
from memvet.store.context import StoreContext
from memvet.store.core import CAND, MEM
from memvet.store.errors import IntegrityError, UsageError
from memvet.store.evidence_identity import held_identities, identity_key
from memvet.store.near_duplicates import NearDuplicates
from memvet.store.records import (
    KINDS,
    POLARITIES,
    SOURCE_TYPES,
    AdmissionResult,
    CandidateDraft,
    Checkpoint,
)
from memvet.store.rows import RowCodec
from memvet.store.sealing import check as check_seal
from memvet.store.subjects import content_words, overlap
from memvet.store.text_safety import sanitise_draft
from memvet.store.tombstones import Tombstones
from memvet.store.vocabulary import AdmissionOutcome, CandidateStatus, MemoryStatus
from sqlalchemy import Connection

SUPERSEDE_THRESHOLD = 0.5
CHUNK = 500  # keys per IN query: well under every database's parameter limit


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
        batch, results = AdmissionBatch(self.ctx, self.rows, self.ctx.now()), []
        fresh: set[str] = set()  # candidates queued by this batch (written at its end)
        for draft, key, tomb, ident in zip(drafts, keys, tombs, idents, strict=True):
            if ident is not None and ident in held:  # the same line read again: absorbed
                results.append(AdmissionResult(AdmissionOutcome.REPEAT, content_key=key))
                continue
            if ident is not None:
                held.add(ident)
            if tomb is not None:
                hit = tomb.content_key
                batch.tombstone_hit(hit)
                batch.event(actor, "admission.tombstoned", "tombstone", hit[:16])
                results.append(
                    AdmissionResult(AdmissionOutcome.TOMBSTONED, content_key=key, tombstone=hit)
                )
            elif key in pending:
                cid = pending[key]
                batch.merge(cid, draft.evidence, ident)
                batch.event(actor, "candidate.merged", "candidate", cid)
                results.append(
                    AdmissionResult(AdmissionOutcome.MERGED, candidate_id=cid, content_key=key)
                )
            elif key in known:
                batch.event(actor, "admission.known", "memory", known[key])
                results.append(
                    AdmissionResult(AdmissionOutcome.KNOWN, memory_id=known[key], content_key=key)
                )
            elif near and (found := self.near.restated(conn, draft, fresh)) is not None:
                cid, row = found  # the same rule in other words: one candidate, both evidences
                merged_key = self.near.narrow_to(conn, row, draft) if row is not None else key
                batch.merge(cid, draft.evidence, ident)
                batch.event(actor, "candidate.merged_near", "candidate", cid)
                results.append(
                    AdmissionResult(
                        AdmissionOutcome.MERGED, candidate_id=cid, content_key=merged_key
                    )
                )
            else:
                supersedes = (
                    self._find_superseded(conn, draft)
                    if draft.supersedes_hint is not None
                    else None
                )
                cid = batch.add_candidate(draft, key, supersedes)
                pending[key] = cid  # a repeat later in this batch merges into it
                if near:
                    fresh.add(cid)
                    self.near.remember(cid, draft)
                batch.event(actor, "candidate.queued", "candidate", cid, draft.statement)
                results.append(
                    AdmissionResult(AdmissionOutcome.QUEUED, candidate_id=cid, content_key=key)
                )
        batch.write(conn)
        return results

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
