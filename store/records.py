"""Plain read models and inputs of the store API.

Everything the store returns is one of these frozen dataclasses: detached from any session,
safe to hand across threads (the inspector's workers, the daemon's threads).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from memvet.store.scope import in_force
from memvet.store.vocabulary import CANDIDATE_STATUSES as CANDIDATE_STATUSES
from memvet.store.vocabulary import KINDS as KINDS
from memvet.store.vocabulary import MEMORY_STATUSES as MEMORY_STATUSES
from memvet.store.vocabulary import POLARITIES as POLARITIES
from memvet.store.vocabulary import RETIRE_REASONS as RETIRE_REASONS
from memvet.store.vocabulary import SOURCE_TYPES as SOURCE_TYPES

ADOPTED = "adopted"  # the reason an adopted proposal carries (daemon/extraction/adoption.py)
EXCERPT_LIMIT = 280  # characters; evidence excerpts are cut to this before encryption
# Approvers that are not a person (selective mode's "policy:selective"): their memories are
# auto-admitted, never called reviewed. fast_read.AUTO_SQL is the twin of this test in SQL.
AUTO_APPROVER_PREFIX = "policy:"


NEVER_VALID = ("false_write", "forget")  # retired so: never an answer, not even in history


def valid_at(memory: Memory, at: datetime) -> bool:
    """The one rule of valid time, for `recall --as-of` and `memories list --as-of` alike: valid
    from when the user said it (the evidence time) until a correction said otherwise, a retirement
    or its TTL; a false write or a forget was never valid. Record time (`--recorded-as-of`) first
    rebuilds status and validity as recorded then (memories.py), then applies the same rule."""
    return memory.retired_reason not in NEVER_VALID and in_force(memory, at)


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, as interfaces.md asks."""
    if value is None:
        return None
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class Scope:
    """Where a record applies. workspace None means user-global."""

    user: str
    workspace: str | None = None
    agent: str | None = None
    session: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return asdict(self)


@dataclass(frozen=True)
class Reader:
    """Who is reading: a user in a workspace (None: only user-global). all_scopes is the operator's view."""

    user: str
    workspace: str | None = None
    all_scopes: bool = False


@dataclass(frozen=True)
class Evidence:
    path: str
    line: int
    message_id: str | None
    timestamp: datetime | None
    excerpt: str
    session: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "message_id": self.message_id,
            "timestamp": iso(self.timestamp),
            "excerpt": self.excerpt,
            "session": self.session,
        }


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
    polarity: str = "assert"
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
    polarity: str = "assert"
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


@dataclass(frozen=True)
class AuditEvent:
    seq: int
    at: datetime
    actor: str
    action: str
    entity_type: str
    entity_id: str
    preview: str | None


@dataclass(frozen=True)
class AuditReport:
    ok: bool
    events: int
    first_bad_seq: int | None = None
    problem: str | None = None
    entity: str | None = None  # the record whose state does not match the chain ("memory m_…")


@dataclass(frozen=True)
class Checkpoint:
    """How far the daemon has read one transcript file. Only whole lines count."""

    path: str
    host: str
    device: int
    inode: int
    fingerprint: str
    offset: int
    line_no: int
    size_seen: int = 0
    updated_at: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # parser state (session id, cwd, version)


@dataclass(frozen=True)
class StoreStatus:
    schema_version: int
    key_provider: str
    counts: dict[str, int]
    memory_counts: dict[str, int]
    files_tracked: int
    last_ingest_at: datetime | None
    sweeps: dict[str, str]


@dataclass(frozen=True)
class Change:
    """The result of a memory lifecycle action. replayed: the transaction id was seen before and
    nothing changed (an idempotent no-op)."""

    memory: Memory
    replayed: bool = False
