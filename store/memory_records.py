"""A memory's records: the memory, its lifecycle transitions, what a lifecycle action returns,
the tombstone a rejection or retirement leaves, and `valid_at`, the one rule of valid time.
records.py re-exports them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memvet.store.record_common import AUTO_APPROVER_PREFIX, Scope, iso
from memvet.store.scope import in_force
from memvet.store.vocabulary import NEVER_VALID


def valid_at(memory: Memory, at: datetime) -> bool:
    """The one rule of valid time, for `recall --as-of` and `memories list --as-of` alike: valid
    from when the user said it (the evidence time) until a correction said otherwise, a retirement
    or its TTL; a false write or a forget was never valid. Record time (`--recorded-as-of`) first
    rebuilds status and validity as recorded then (memories.py), then applies the same rule."""
    return memory.retired_reason not in NEVER_VALID and in_force(memory, at)


@dataclass(frozen=True)
class Transition:
    memory_id: str
    from_status: str | None
    to_status: str
    valid_to_before: datetime | None
    valid_to_after: datetime | None
    actor: str
    reason: str | None
    txn_id: str
    at: datetime

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.from_status,
            "to": self.to_status,
            "actor": self.actor,
            "reason": self.reason,
            "txn_id": self.txn_id,
            "at": iso(self.at),
            "valid_to_before": iso(self.valid_to_before),
            "valid_to_after": iso(self.valid_to_after),
        }


@dataclass(frozen=True)
class Memory:
    id: str
    statement: str
    kind: str
    status: str
    scope: Scope
    source_type: str
    host: str | None
    candidate_id: str
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    confidence: float
    importance: int
    polarity: str
    approved_by: str
    usage_boundary: str | None = None
    supersedes_id: str | None = None
    superseded_by_id: str | None = None
    conflict_state: str = "none"
    retired_reason: str | None = None
    expires_at: datetime | None = None
    updated_at: datetime | None = None
    subject: str = ""  # the slot it fills (slots.py)
    compatible_key: str | None = None  # memories of one slot kept both share this mark

    @property
    def auto_admitted(self) -> bool:
        """Committed by the admission policy, not by a person who read it."""
        return self.approved_by.startswith(AUTO_APPROVER_PREFIX)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "statement": self.statement,
            "kind": self.kind,
            "status": self.status,
            "subject": self.subject,
            "compatible_key": self.compatible_key,
            "scope": self.scope.to_json(),
            "source_type": self.source_type,
            "host": self.host,
            "candidate_id": self.candidate_id,
            "valid_from": iso(self.valid_from),
            "valid_to": iso(self.valid_to),
            "recorded_at": iso(self.recorded_at),
            "confidence": round(self.confidence, 3),
            "importance": self.importance,
            "polarity": self.polarity,
            "approved_by": self.approved_by,
            "usage_boundary": self.usage_boundary,
            "supersedes_id": self.supersedes_id,
            "superseded_by_id": self.superseded_by_id,
            "conflict_state": self.conflict_state,
            "retired_reason": self.retired_reason,
            "expires_at": iso(self.expires_at),
        }


@dataclass(frozen=True)
class Tombstone:
    content_key: str
    reason: str
    created_at: datetime
    seen_again: int
    preview: str
    source_id: str | None
    lifted_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "content_key": self.content_key,
            "reason": self.reason,
            "created_at": iso(self.created_at),
            "seen_again": self.seen_again,
            "preview": self.preview,
            "source_id": self.source_id,
            "lifted_at": iso(self.lifted_at),
        }


@dataclass(frozen=True)
class Change:
    """The result of a memory lifecycle action. replayed: the transaction id was seen before and
    nothing changed (an idempotent no-op)."""

    memory: Memory
    replayed: bool = False
    restored: tuple[str, ...] = ()  # memories it made active again (an undone edit's supersessions)
