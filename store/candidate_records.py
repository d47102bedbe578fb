"""The queue's records: the draft an extractor or `memvet propose` hands to admission, what
admission answers, a candidate and its lease, the detail a reviewer decides on, and the edits an
approval applies. records.py re-exports them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memvet.store.record_common import ADOPTED, Evidence, Scope, iso
from memvet.store.vocabulary import Polarity

if TYPE_CHECKING:
    from memvet.store.memory_records import Memory, Tombstone


@dataclass(frozen=True)
class CandidateDraft:
    """What an extractor or `memvet propose` hands to admission."""

    statement: str
    kind: str
    source_type: str
    scope: Scope
    host: str | None = None
    confidence: float = 0.5
    reasons: tuple[str, ...] = ()
    evidence: Evidence | None = None
    polarity: str = Polarity.ASSERT
    importance: int = 1
    usage_boundary: str | None = None
    supersedes_hint: str | None = None  # text of what a correction replaces ("switched from X")

    def to_json(self) -> dict[str, Any]:
        return {
            "statement": self.statement,
            "kind": self.kind,
            "source_type": self.source_type,
            "confidence": round(self.confidence, 3),
            "reasons": list(self.reasons),
            "scope": self.scope.to_json(),
            "host": self.host,
            "polarity": self.polarity,
            "adopted": ADOPTED in self.reasons,  # built from an assistant proposal the user kept
            "evidence": self.evidence.to_json() if self.evidence else None,
        }


@dataclass(frozen=True)
class Lease:
    owner: str  # "inspector pid 4242 on laptop", set by the approver
    token: str
    reserved_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class Candidate:
    id: str
    status: str
    statement: str
    kind: str
    source_type: str
    host: str | None
    scope: Scope
    confidence: float
    reasons: tuple[str, ...]
    evidence_count: int
    created_at: datetime
    updated_at: datetime
    polarity: str = Polarity.ASSERT
    importance: int = 1
    usage_boundary: str | None = None
    lease: Lease | None = None
    last_error: str | None = None
    memory_id: str | None = None
    supersedes_id: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    subject: str = ""  # the slot it fills (slots.py); derived at admission, editable at approval

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "statement": self.statement,
            "kind": self.kind,
            "subject": self.subject,
            "source_type": self.source_type,
            "host": self.host,
            "scope": self.scope.to_json(),
            "confidence": round(self.confidence, 3),
            "reasons": list(self.reasons),
            "adopted": ADOPTED in self.reasons,
            "evidence_count": self.evidence_count,
            "created_at": iso(self.created_at),
            "updated_at": iso(self.updated_at),
            "polarity": self.polarity,
            "memory_id": self.memory_id,
            "supersedes_id": self.supersedes_id,
            "last_error": self.last_error,
            "lease": None
            if self.lease is None
            else {
                "owner": self.lease.owner,
                "reserved_at": iso(self.lease.reserved_at),
                "expires_at": iso(self.lease.expires_at),
            },
        }


@dataclass(frozen=True)
class CandidateDetail:
    """One candidate with everything the reviewer needs to decide."""

    candidate: Candidate
    evidence: tuple[Evidence, ...]
    conflicts: tuple[Memory, ...]  # rival memories: its slot's, and what a correction replaces
    supersedes: Memory | None  # the memory a correction would replace
    tombstone: Tombstone | None  # a (lifted or active) tombstone on the same content
    slot: tuple[Memory, ...] = ()  # every active or disputed memory of its slot in its scope
    preselect: tuple[str, ...] = ()  # what approving supersedes unless the operator says else
    correction: bool = False  # it says it replaces something ("moved from X to Y")

    def to_json(self) -> dict[str, Any]:
        return {
            **self.candidate.to_json(),
            "evidence": [e.to_json() for e in self.evidence],
            "conflicts": [m.to_json() for m in self.conflicts],
            "slot": [m.id for m in self.slot],
            "preselect": list(self.preselect),
            "correction": self.correction,
            "supersedes": self.supersedes.to_json() if self.supersedes else None,
            "tombstone": self.tombstone.to_json() if self.tombstone else None,
        }


@dataclass(frozen=True)
class AdmissionResult:
    """outcome: queued | merged | tombstoned | known (already an active memory) | dropped."""

    outcome: str
    candidate_id: str | None = None
    memory_id: str | None = None
    content_key: str | None = None
    tombstone: str | None = None  # the content key of the tombstone a `tombstoned` draft hit


@dataclass(frozen=True)
class Edits:
    """Operator edits applied at approval. None leaves the candidate's value."""

    statement: str | None = None
    kind: str | None = None
    workspace: str | None = None
    make_global: bool = False
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    usage_boundary: str | None = None
    supersede: bool | None = None  # None: follow the candidate's link; False: keep both
    supersede_id: str | None = None  # the conflicting active memory the operator chose to replace
    polarity: str | None = None  # "assert" or "deny": the extractor can misread a negation
    subject: str | None = None  # the slot it fills, as the operator corrected it
    # The decision on the slot's rival memories (slots.py): None leaves them as they are (recall
    # then answers UNKNOWN for the slot); "ask" refuses with ConflictError; "supersede" replaces
    # supersede_ids (or, empty, every rival); "keep_both" marks them compatible; "dispute"
    # takes all of them out of recall until settled.
    conflict: str | None = None
    supersede_ids: tuple[str, ...] = ()
    force_over_tombstone: bool = False  # commit although a tombstone blocks it (audited)
