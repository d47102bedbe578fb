"""What recall decides (recall.py), as typed records: the knowledge state and its reason code,
the memories served, the contradictions found, the matches left out, and the rows a read had to
skip. `to_json()` is the `recall` document of interfaces.md (keys in that order), the one shape
`memvet recall --json`, the MCP tool and the daemon's recall route emit.

The recall path is import-light (recall_read.py): stdlib only, as records.py is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from memvet.store.record_common import iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any


class KnowledgeState(StrEnum):
    VERIFIED = "VERIFIED"
    VERIFIED_HISTORICAL = "VERIFIED_HISTORICAL"  # valid at an earlier `as_of`
    VERIFIED_NEGATIVE = "VERIFIED_NEGATIVE"  # the answer is a denial
    VERIFIED_WITH_NEGATIVE_BOUNDARY = "VERIFIED_WITH_NEGATIVE_BOUNDARY"  # a rule limits it
    UNKNOWN = "UNKNOWN"


class ReasonCode(StrEnum):
    """Why the state is UNKNOWN; also why a match was left out (Exclusion.reason)."""

    UNRESOLVED_CONFLICT = "unresolved_conflict"
    RETIRED_OR_EXPIRED = "retired_or_expired"
    CANDIDATE_OR_UNVERIFIED = "candidate_or_unverified"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"


class Role(StrEnum):
    """What a served memory is to the question."""

    ANSWER = "answer"
    BOUNDARY = "boundary"  # a rule that limits the answer


class Relation(StrEnum):
    """How a contradiction bears on the answer."""

    ANSWER = "answer"  # the contested answer itself, listed first in a conflict
    DISPUTED = "disputed"  # a memory of a disputed slot: never an answer
    DIFFERENT_VALUE = "different_value"
    OPPOSITE_POLARITY = "opposite_polarity"
    OVERRIDDEN = "overridden"  # a user-global value the workspace's own answer overrides
    PROHIBITION = "prohibition"  # a rule against something, on a related subject


class Severity(StrEnum):
    HARD = "hard"  # answers UNKNOWN/unresolved_conflict instead of picking a side
    SOFT = "soft"


@dataclass(frozen=True, slots=True)
class RecalledMemory:
    """One memory as recall lists it, with its relevance to the question."""

    id: str
    statement: str
    kind: str
    score: float  # relevance, rounded to 3 places
    polarity: str
    source_type: str
    status: str
    usage_boundary: str | None
    valid_from: datetime | None
    valid_to: datetime | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "statement": self.statement,
            "kind": self.kind,
            "score": self.score,
            "polarity": self.polarity,
            "source_type": self.source_type,
            "status": self.status,
            "usage_boundary": self.usage_boundary,
            "valid_from": iso(self.valid_from),
            "valid_to": iso(self.valid_to),
        }


@dataclass(frozen=True, slots=True)
class ServedMemory(RecalledMemory):
    """An answer, or a boundary served beside it."""

    role: Role

    def to_json(self) -> dict[str, Any]:
        return {**RecalledMemory.to_json(self), "role": self.role.value}


@dataclass(frozen=True, slots=True)
class Contradiction(RecalledMemory):
    """A memory that contradicts or limits `contradicts`. A disputed slot's memories, found
    without an answer, carry neither a score nor `contradicts`; the contested answer no score."""

    relation: Relation
    severity: Severity
    contradiction: float | None = None  # how strongly, rounded to 3 places
    contradicts: str | None = None  # the id of the memory it bears on

    def to_json(self) -> dict[str, Any]:
        out = {
            **RecalledMemory.to_json(self),
            "relation": self.relation.value,
            "severity": self.severity.value,
        }
        if self.contradiction is not None:
            out["contradiction"] = self.contradiction
        if self.contradicts is not None:
            out["contradicts"] = self.contradicts
        return out


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A match recall could not serve: a memory not in force, or a candidate not approved."""

    id: str
    status: str
    reason: ReasonCode

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "reason": self.reason.value}


@dataclass(frozen=True, slots=True)
class RecallDecision:
    state: KnowledgeState
    reason_code: ReasonCode | None  # set exactly when the state is UNKNOWN
    missing_conditions: tuple[str, ...]
    memories: tuple[ServedMemory, ...]
    contradictions: tuple[Contradiction, ...]
    as_of: datetime | None
    historical: bool
    query_terms: tuple[str, ...]  # sorted
    excluded: tuple[Exclusion, ...] = ()
    unreadable: dict[str, Any] | None = None  # {"count", "ids"}: rows that failed authentication

    def with_unreadable(self, skipped: dict[str, Any] | None) -> RecallDecision:
        """This decision, naming the rows its reads skipped (read_layer.unreadable_seen)."""
        return self if skipped is None else replace(self, unreadable=skipped)

    def to_json(self) -> dict[str, Any]:
        out = {
            "state": self.state.value,
            "reason_code": None if self.reason_code is None else self.reason_code.value,
            "missing_conditions": list(self.missing_conditions),
            "memories": [m.to_json() for m in self.memories],
            "contradictions": [c.to_json() for c in self.contradictions],
            "as_of": iso(self.as_of),
            "historical": self.historical,
            "query_terms": list(self.query_terms),
            "excluded": [e.to_json() for e in self.excluded],
        }
        if self.unreadable is not None:
            out["unreadable"] = self.unreadable
        return out
