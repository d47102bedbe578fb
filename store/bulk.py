"""Batch operations: many drafts in one transaction. Used by imports, the demo and benchmarks."""

from __future__ import annotations

import sqlalchemy as sa

from memvet.store.admission import validate_draft
from memvet.store.core import CAND, StoreCore
from memvet.store.lifecycle import check_candidate
from memvet.store.records import AdmissionResult, CandidateDraft, Edits


class BulkMixin(StoreCore):
    def admit_many(self, drafts: list[CandidateDraft], *, actor: str = "import") -> list[AdmissionResult]:
        """Admit drafts in one transaction, with the same rules as `admit`."""
        for d in drafts:
            validate_draft(d)
        with self._write() as conn:
            return [self._admit(conn, d, actor) for d in drafts]  # type: ignore[attr-defined]

    def import_memories(self, drafts: list[CandidateDraft], *, actor: str) -> list[str]:
        """An operator's import: each draft is admitted and approved by `actor` in one
        transaction, through the candidate states (pending → reserved → committed). Drafts that
        hit a tombstone or a duplicate are skipped. Returns the new memory ids."""
        for d in drafts:
            validate_draft(d)
        check_candidate("pending", "reserved")
        check_candidate("reserved", "committed")
        created = []
        with self._write() as conn:
            for d in drafts:
                result = self._admit(conn, d, actor)  # type: ignore[attr-defined]
                if result.outcome != "queued":
                    continue
                row = conn.execute(sa.select(CAND).where(CAND.c.id == result.candidate_id)).one()
                memory = self._insert_memory(conn, self.candidate_from_row(row), Edits(), actor)  # type: ignore[attr-defined]
                conn.execute(CAND.update().where(CAND.c.id == row.id).values(
                    status="committed", memory_id=memory.id, decided_by=actor[:200],
                    decided_at=self.now(), updated_at=self.now()))
                self._audit(conn, actor, "candidate.committed", "candidate", row.id)
                created.append(memory.id)
        return created
