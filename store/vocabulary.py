"""The store's closed vocabularies: kinds, source types, statuses, retire reasons, polarities,
admission and import outcomes. Each is a StrEnum whose values are the strings stored in the
database and printed in JSON (a member *is* that string: `CandidateStatus.PENDING == "pending"`),
so neither changes. The plain tuples beside them are what the command frame offers as argparse
choices without importing the read models (records.py re-exports them)."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    PREFERENCE = "preference"
    CONSTRAINT = "constraint"
    DECISION = "decision"
    FACT = "fact"
    PROCEDURE = "procedure"


class SourceType(StrEnum):
    EXPLICIT_USER = "explicit_user"
    OPERATOR = "operator"
    MODEL_INFERENCE = "model_inference"
    IMPORT = "import"


class CandidateStatus(StrEnum):
    PENDING = "pending"
    RESERVED = "reserved"
    STALE = "stale"
    COMMITTED = "committed"
    REJECTED = "rejected"
    EXPIRED = "expired"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETIRED = "retired"
    DISPUTED = "disputed"


class RetireReason(StrEnum):
    FALSE_WRITE = "false_write"
    OPERATOR = "operator"
    EXPIRED = "expired"
    TTL = "ttl"
    FORGET = "forget"


class Polarity(StrEnum):
    ASSERT = "assert"
    DENY = "deny"


class TombstoneReason(StrEnum):
    """Why a statement is blocked (tombstones.reason)."""

    REJECTED = "rejected"
    FALSE_WRITE = "false_write"
    FORGET = "forget"
    TEAM = "team"  # the team's tombstone, mirrored by sync


class AdmissionOutcome(StrEnum):
    """What admitting one draft did (AdmissionResult.outcome)."""

    QUEUED = "queued"
    MERGED = "merged"  # into a pending candidate with the same content, or the same rule
    KNOWN = "known"  # already an active memory
    TOMBSTONED = "tombstoned"
    REPEAT = "repeat"  # the same transcript line read again
    DROPPED = "dropped"  # could not be stored (ingest only)


class ImportFate(StrEnum):
    """One draft's fate in an operator's import (bulk.ImportOutcome.outcome)."""

    IMPORTED = "imported"
    TOMBSTONED = "tombstoned"
    DUPLICATE = "duplicate"  # already pending
    KNOWN = "known"  # already an active memory


KINDS = tuple(k.value for k in Kind)
SOURCE_TYPES = tuple(s.value for s in SourceType)
CANDIDATE_STATUSES = tuple(s.value for s in CandidateStatus)
MEMORY_STATUSES = tuple(s.value for s in MemoryStatus)
RETIRE_REASONS = tuple(r.value for r in RetireReason)
POLARITIES = tuple(p.value for p in Polarity)
# A candidate still in the queue (not decided): what admission merges into.
OPEN_STATUSES = (CandidateStatus.PENDING, CandidateStatus.RESERVED, CandidateStatus.STALE)
# Open and not held by a live lease: what `queue list` shows unless asked, what may be shared.
REVIEWABLE_STATUSES = (CandidateStatus.PENDING, CandidateStatus.STALE)
# A memory in force or in question: what a slot, a duplicate check and a supersede consider.
LIVE_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.DISPUTED)
# Retired so: never an answer, not even in history.
NEVER_VALID = (RetireReason.FALSE_WRITE, RetireReason.FORGET)
