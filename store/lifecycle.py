"""The candidate and memory state machines as explicit transition tables.

The store checks every status change against these tables; an illegal one raises
IllegalTransitionError with the stable code `illegal_transition`.
"""

from __future__ import annotations

from memvet.store.errors import IllegalTransitionError

# (from, to) -> what may cause it
CANDIDATE_TRANSITIONS: dict[tuple[str, str], str] = {
    ("pending", "reserved"): "approve: compare-and-set, lease taken",
    ("reserved", "committed"): "durable write, same transaction as the memory row",
    ("reserved", "pending"): "the write failed: reservation released, error kept",
    ("reserved", "stale"): "sweep: the lease expired",
    ("stale", "committed"): "operator recovery: commit (idempotent)",
    ("stale", "pending"): "operator recovery: release",
    ("stale", "rejected"): "operator recovery: reject",
    ("pending", "rejected"): "reject: compare-and-set, tombstone written",
    ("pending", "expired"): "sweep: older than the configured age",
    ("rejected", "pending"): "operator undo of a reject: tombstone lifted",
    ("committed", "pending"): "operator undo of an approval (undo.py)",
}

MEMORY_TRANSITIONS: dict[tuple[str | None, str], str] = {
    (None, "active"): "commit of an approved candidate",
    ("active", "superseded"): "a newer memory replaces it",
    ("active", "retired"): "false write, forget, operator, expiry or TTL",
    ("active", "disputed"): "an unresolved conflict",
    ("disputed", "active"): "the dispute was resolved",
    ("disputed", "retired"): "false write or forget while disputed",
    ("disputed", "superseded"): "a newer memory settles the dispute",
    ("retired", "active"): "operator restore",
    ("superseded", "active"): "the approval that superseded it was undone (undo.py)",
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
