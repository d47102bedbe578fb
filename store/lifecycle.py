"""The candidate and memory state machines as explicit transition tables.

The store checks every status change against these tables; an illegal one raises
IllegalTransitionError with the stable code `illegal_transition`.
"""

from __future__ import annotations

from memvet.store.errors import IllegalTransitionError
from memvet.store.vocabulary import CandidateStatus as Cand
from memvet.store.vocabulary import MemoryStatus as Mem

# (from, to) -> what may cause it
CANDIDATE_TRANSITIONS: dict[tuple[str, str], str] = {
    (Cand.PENDING, Cand.RESERVED): "approve: compare-and-set, lease taken",
    (Cand.RESERVED, Cand.COMMITTED): "durable write, same transaction as the memory row",
    (Cand.RESERVED, Cand.PENDING): "the write failed: reservation released, error kept",
    (Cand.RESERVED, Cand.STALE): "sweep: the lease expired",
    (Cand.STALE, Cand.COMMITTED): "operator recovery: commit (idempotent)",
    (Cand.STALE, Cand.PENDING): "operator recovery: release",
    (Cand.STALE, Cand.REJECTED): "operator recovery: reject",
    (Cand.PENDING, Cand.REJECTED): "reject: compare-and-set, tombstone written",
    (Cand.PENDING, Cand.EXPIRED): "sweep: older than the configured age",
    (Cand.REJECTED, Cand.PENDING): "operator undo of a reject: tombstone lifted",
    (Cand.COMMITTED, Cand.PENDING): "operator undo of an approval (undo.py)",
}

MEMORY_TRANSITIONS: dict[tuple[str | None, str], str] = {
    (None, Mem.ACTIVE): "commit of an approved candidate",
    (Mem.ACTIVE, Mem.SUPERSEDED): "a newer memory replaces it",
    (Mem.ACTIVE, Mem.RETIRED): "false write, forget, operator, expiry or TTL",
    (Mem.ACTIVE, Mem.DISPUTED): "an unresolved conflict",
    (Mem.DISPUTED, Mem.ACTIVE): "the dispute was resolved",
    (Mem.DISPUTED, Mem.RETIRED): "false write or forget while disputed",
    (Mem.DISPUTED, Mem.SUPERSEDED): "a newer memory settles the dispute",
    (Mem.RETIRED, Mem.ACTIVE): "operator restore",
    (Mem.SUPERSEDED, Mem.ACTIVE): "the approval that superseded it was undone (undo.py)",
}


def check_candidate(from_status: str, to_status: str) -> None:
    if (from_status, to_status) not in CANDIDATE_TRANSITIONS:
        raise IllegalTransitionError(
            f"a candidate cannot go from {from_status} to {to_status}",
            entity="candidate",
            from_status=from_status,
            to_status=to_status,
        )


def check_memory(from_status: str | None, to_status: str) -> None:
    if (from_status, to_status) not in MEMORY_TRANSITIONS:
        raise IllegalTransitionError(
            f"a memory cannot go from {from_status} to {to_status}",
            entity="memory",
            from_status=from_status,
            to_status=to_status,
        )


def candidate_targets(from_status: str) -> set[str]:
    return {to for (frm, to) in CANDIDATE_TRANSITIONS if frm == from_status}


def memory_targets(from_status: str | None) -> set[str]:
    return {to for (frm, to) in MEMORY_TRANSITIONS if frm == from_status}
