"""An operator's import: many drafts admitted and approved in one transaction."""

from __future__ import annotations

import sqlalchemy as sa
from memvet.store.admission import admissible
from memvet.store.audit import append_events
from memvet.store.core import CAND, MEM, StoreCore
from memvet.store.lifecycle import check_candidate, check_memory
from memvet.store.models import MemoryTransitionRow
from memvet.store.records import CandidateDraft
from memvet.store.reservation import memory_id_for
from memvet.store.sealing import resealed_many, seal

TRANS = MemoryTransitionRow.__table__
FLIP = CAND.update().where(CAND.c.id == sa.bindparam("cid"), CAND.c.status == "pending").values(
    status="committed", memory_id=sa.bindparam("mid"), decided_by=sa.bindparam("actor"),
    decided_at=sa.bindparam("now"), updated_at=sa.bindparam("now"), row_mac=sa.bindparam("mac"))


class BulkMixin(StoreCore):
    def import_memories(self, drafts: list[CandidateDraft], *, actor: str) -> list[str]:
        """Each draft is admitted and approved by `actor` (pending → reserved → committed, in one
        transaction, as one operator decision). Drafts that hit a tombstone, a pending duplicate
        or an active memory are skipped. Returns the new memory ids."""
        drafts = [admissible(d) for d in drafts]
        check_candidate("pending", "reserved")
        check_candidate("reserved", "committed")
        check_memory(None, "active")
        now, c = self.now(), self.cipher
        memories, transitions, flips, events, created = [], [], [], [], []
        with self._write() as conn:
            results = self._admit_batch(conn, drafts, actor)  # type: ignore[attr-defined]
            for draft, result in zip(drafts, results, strict=True):
                if result.outcome != "queued":
                    continue
                mid = memory_id_for(result.candidate_id)
                values = dict(
                    id=mid, candidate_id=result.candidate_id, status="active", kind=draft.kind,
                    source_type=draft.source_type, host=draft.host,
                    content_key=result.content_key, polarity=draft.polarity,
                    confidence=draft.confidence, importance=draft.importance,
                    approved_by=actor[:200], valid_from=now, valid_to=None, recorded_at=now,
                    updated_at=now, supersedes_id=None,
                    statement_ct=c.encrypt("memories", "statement", mid, draft.statement),
                    usage_boundary_ct=c.encrypt("memories", "usage_boundary", mid,
                                                draft.usage_boundary),
                    **self._scope_columns("memories", mid, draft.scope))
                memories.append({**values, "row_mac": seal(c, "memories", values)})
                transitions.append(dict(memory_id=mid, from_status=None, to_status="active",
                                        valid_to_before=None, valid_to_after=None,
                                        actor=actor[:200], reason="imported",
                                        txn_id=f"commit:{result.candidate_id}", at=now))
                flips.append({"cid": result.candidate_id, "mid": mid, "actor": actor[:200],
                              "now": now})
                events.append((now, actor, "memory.imported", "memory", mid, draft.statement))
                events.append((now, actor, "candidate.committed", "candidate",
                               result.candidate_id, None))
                created.append(mid)
            if memories:
                conn.execute(MEM.insert(), memories)
                conn.execute(TRANS.insert(), transitions)
                macs = resealed_many(conn, c, CAND, [f["cid"] for f in flips],
                                     {"status": "committed"})
                conn.execute(FLIP, [{**f, "mac": macs[f["cid"]]} for f in flips])
                append_events(conn, c, events)
        return created
