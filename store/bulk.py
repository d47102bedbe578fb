"""An operator's import (`memvet memories import`): many drafts admitted and approved in one
transaction, all or nothing. Each draft passes the gate every write passes (admission.admissible:
controls cleaned, secrets redacted, validated), then admission's own batch (tombstones, pending
duplicates, active memories); the audit chain gets each row's state events, as every write, and
one `memories.imported` event for the operator's act as a whole."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import sqlalchemy as sa
from memvet.store.admission import Admission, admissible
from memvet.store.audit import append_events
from memvet.store.context import StoreContext
from memvet.store.core import CAND, MEM, TRANS
from memvet.store.errors import UsageError
from memvet.store.lifecycle import check_candidate, check_memory
from memvet.store.memory_creation import memory_id_for
from memvet.store.records import CandidateDraft
from memvet.store.rows import RowCodec
from memvet.store.sealing import resealed_many, seal
from memvet.store.slots import derive_subject
from memvet.store.term_reindex import reindex_stale
from memvet.store.vocabulary import AdmissionOutcome, CandidateStatus, ImportFate, MemoryStatus

CHUNK = 5000  # drafts admitted and written per slice of one import's transaction
IMPORT_CACHE_KIB = (
    65536  # SQLite page cache while importing: a dozen indexes per row miss the 2 MB default
)
FLIP = (
    CAND.update()
    .where(CAND.c.id == sa.bindparam("cid"), CAND.c.status == CandidateStatus.PENDING)
    .values(
        status=CandidateStatus.COMMITTED,
        memory_id=sa.bindparam("mid"),
        decided_by=sa.bindparam("actor"),
        decided_at=sa.bindparam("now"),
        updated_at=sa.bindparam("now"),
        row_mac=sa.bindparam("mac"),
    )
)


@dataclass(frozen=True)
class ImportOutcome:
    """One draft's fate: `imported` (memory_id set), `tombstoned`, `duplicate` (already pending),
    `known` (already an active memory)."""

    outcome: str
    memory_id: str | None = None
    other_id: str | None = None  # the pending candidate or active memory it matched


class BadDrafts(UsageError):
    """Drafts the gate refused, by position: nothing was imported."""

    code = "invalid_import"

    def __init__(self, problems: list[tuple[int, str]]) -> None:
        shown = "; ".join(f"#{i + 1}: {why}" for i, why in problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        super().__init__(f"{len(problems)} draft(s) refused, nothing imported: {shown}{more}")
        self.problems = problems


def admitted_or_problems(drafts: list[CandidateDraft]) -> tuple[list, list[tuple[int, str]]]:
    """Every draft through admission's gate; the refused ones as (position, reason)."""
    ready, problems = [], []
    for i, draft in enumerate(drafts):
        try:
            ready.append(admissible(draft))
        except (UsageError, ValueError) as exc:  # UnicodeError is a ValueError
            problems.append((i, getattr(exc, "message", None) or type(exc).__name__))
    return ready, problems


@contextmanager
def _page_cache(conn: sa.Connection) -> Iterator[None]:
    """A large page cache for one import, then the connection's own again (it is pooled)."""
    previous = int(conn.exec_driver_sql("PRAGMA cache_size").scalar_one())
    conn.exec_driver_sql(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
    try:
        yield
    finally:
        conn.exec_driver_sql(f"PRAGMA cache_size = {previous}")


class BulkImport:
    def __init__(self, ctx: StoreContext, rows: RowCodec, admission: Admission) -> None:
        self.ctx, self.rows, self.admission = ctx, rows, admission

    def import_memories(self, drafts: list[CandidateDraft], *, actor: str) -> list[str]:
        """import_batch, returning only the new memory ids."""
        return [o.memory_id for o in self.import_batch(drafts, actor=actor) if o.memory_id]

    def import_batch(
        self, drafts: list[CandidateDraft], *, actor: str, note: str = "import"
    ) -> list[ImportOutcome]:
        """Each draft is admitted and approved by `actor` (pending → reserved → committed, in one
        transaction, as one operator decision). Drafts that hit a tombstone, a pending duplicate
        or an active memory are skipped (their outcome says which). A draft the gate refuses
        raises BadDrafts naming them all, before anything is written."""
        drafts, problems = admitted_or_problems(drafts)
        if problems:
            raise BadDrafts(problems)
        check_candidate(CandidateStatus.PENDING, CandidateStatus.RESERVED)
        check_candidate(CandidateStatus.RESERVED, CandidateStatus.COMMITTED)
        check_memory(None, MemoryStatus.ACTIVE)
        now, outcomes = self.ctx.now(), []
        with self.ctx.write() as conn, _page_cache(conn):  # one transaction: all or nothing
            for first in range(0, len(drafts), CHUNK):
                outcomes += self._import_chunk(conn, drafts[first : first + CHUNK], actor, now)
                reindex_stale(
                    conn, self.ctx.cipher
                )  # each slice's postings, with the cache still large
            counts = {o: sum(x.outcome == o for x in outcomes) for o in ImportFate}
            append_events(
                conn,
                self.ctx.cipher,
                [
                    (
                        now,
                        actor,
                        "memories.imported",
                        "import",
                        f"{note}:{now:%Y%m%dT%H%M%S}",
                        " ".join(f"{k}={v}" for k, v in counts.items()),
                    )
                ],
            )
        return outcomes

    def _import_chunk(
        self, conn: sa.Connection, drafts: list[CandidateDraft], actor: str, now
    ) -> list[ImportOutcome]:  # noqa: ANN001
        """One slice of an import, inside its transaction (bounded memory at 100k drafts)."""
        c = self.ctx.cipher
        memories, transitions, flips, events, outcomes = [], [], [], [], []
        results = self.admission.admit_batch(conn, drafts, actor)
        for draft, result in zip(drafts, results, strict=True):
            if result.outcome != AdmissionOutcome.QUEUED:
                outcomes.append(
                    ImportOutcome(
                        ImportFate.DUPLICATE
                        if result.outcome == AdmissionOutcome.MERGED
                        else result.outcome,
                        other_id=result.candidate_id or result.memory_id,
                    )
                )
                continue
            assert result.candidate_id is not None  # a queued draft always names its candidate
            mid = memory_id_for(result.candidate_id)
            values = dict(
                id=mid,
                candidate_id=result.candidate_id,
                status=MemoryStatus.ACTIVE,
                kind=draft.kind,
                source_type=draft.source_type,
                host=draft.host,
                content_key=result.content_key,
                polarity=draft.polarity,
                confidence=draft.confidence,
                importance=draft.importance,
                approved_by=actor[:200],
                valid_from=now,
                valid_to=None,
                recorded_at=now,
                updated_at=now,
                supersedes_id=None,
                statement_ct=c.encrypt("memories", "statement", mid, draft.statement),
                usage_boundary_ct=c.encrypt(
                    "memories", "usage_boundary", mid, draft.usage_boundary
                ),
                **self.rows.scope_columns("memories", mid, draft.scope),
                **self.rows.subject_columns(
                    "memories",
                    mid,
                    derive_subject(draft.statement, draft.kind),
                    draft.scope.workspace,
                    draft.scope.user,
                ),
            )
            memories.append({**values, "row_mac": seal(c, "memories", values)})
            transitions.append(
                dict(
                    memory_id=mid,
                    from_status=None,
                    to_status=MemoryStatus.ACTIVE,
                    valid_to_before=None,
                    valid_to_after=None,
                    actor=actor[:200],
                    reason="imported",
                    txn_id=f"commit:{result.candidate_id}",
                    at=now,
                )
            )
            flips.append({"cid": result.candidate_id, "mid": mid, "actor": actor[:200], "now": now})
            events.append((now, actor, "memory.imported", "memory", mid, draft.statement))
            events.append(
                (now, actor, "candidate.committed", "candidate", result.candidate_id, None)
            )
            outcomes.append(ImportOutcome(ImportFate.IMPORTED, memory_id=mid))
        if memories:
            conn.execute(MEM.insert(), memories)
            conn.execute(TRANS.insert(), transitions)
            macs = resealed_many(
                conn, c, CAND, [f["cid"] for f in flips], {"status": CandidateStatus.COMMITTED}
            )
            conn.execute(FLIP, [{**f, "mac": macs[f["cid"]]} for f in flips])
        append_events(conn, c, events)
        return outcomes
