"""The store's closed vocabularies: kinds, source types, statuses, retire reasons, polarities,
admission and import outcomes. Each is a StrEnum whose values are the strings stored in the
database and printed in JSON (a member *is* that string: `CandidateStatus.PENDING == "pending"`),
so neither changes. The plain tuples beside them are what the command frame offers as argparse
choices without importing the read models (records.py re-exports them).

The strings themselves are vocabulary_values.py's, which the no-daemon hook reads without any
enum machinery; tests/store/test_vocabulary_values.py checks each enum has exactly its plain
class's members."""

from __future__ import annotations

from enum import StrEnum

from memvet.store import vocabulary_values as words


class Kind(StrEnum):
    PREFERENCE = words.Kind.PREFERENCE
    CONSTRAINT = words.Kind.CONSTRAINT
    DECISION = words.Kind.DECISION
    FACT = words.Kind.FACT
    PROCEDURE = words.Kind.PROCEDURE


class SourceType(StrEnum):
    EXPLICIT_USER = words.SourceType.EXPLICIT_USER
    OPERATOR = words.SourceType.OPERATOR
    MODEL_INFERENCE = words.SourceType.MODEL_INFERENCE
    IMPORT = words.SourceType.IMPORT


class CandidateStatus(StrEnum):
    PENDING = words.CandidateStatus.PENDING
    RESERVED = words.CandidateStatus.RESERVED
    STALE = words.CandidateStatus.STALE
    COMMITTED = words.CandidateStatus.COMMITTED
    REJECTED = words.CandidateStatus.REJECTED
    EXPIRED = words.CandidateStatus.EXPIRED


class MemoryStatus(StrEnum):
    ACTIVE = words.MemoryStatus.ACTIVE
    SUPERSEDED = words.MemoryStatus.SUPERSEDED
    RETIRED = words.MemoryStatus.RETIRED
    DISPUTED = words.MemoryStatus.DISPUTED


class RetireReason(StrEnum):
    FALSE_WRITE = words.RetireReason.FALSE_WRITE
    OPERATOR = words.RetireReason.OPERATOR
    EXPIRED = words.RetireReason.EXPIRED
    TTL = words.RetireReason.TTL
    FORGET = words.RetireReason.FORGET


class Polarity(StrEnum):
    ASSERT = words.Polarity.ASSERT
    DENY = words.Polarity.DENY


class TombstoneReason(StrEnum):
    """Why a statement is blocked (tombstones.reason)."""

    REJECTED = words.TombstoneReason.REJECTED
    FALSE_WRITE = words.TombstoneReason.FALSE_WRITE
    FORGET = words.TombstoneReason.FORGET
    TEAM = words.TombstoneReason.TEAM  # the team's tombstone, mirrored by sync


class AdmissionOutcome(StrEnum):
    """What admitting one draft did (AdmissionResult.outcome)."""

    QUEUED = words.AdmissionOutcome.QUEUED
    # into a pending candidate with the same content, or the same rule
    MERGED = words.AdmissionOutcome.MERGED
    KNOWN = words.AdmissionOutcome.KNOWN  # already an active memory
    TOMBSTONED = words.AdmissionOutcome.TOMBSTONED
    REPEAT = words.AdmissionOutcome.REPEAT  # the same transcript line read again
    DROPPED = words.AdmissionOutcome.DROPPED  # could not be stored (ingest only)


class ImportFate(StrEnum):
    """One draft's fate in an operator's import (bulk.ImportOutcome.outcome)."""

    IMPORTED = words.ImportFate.IMPORTED
    TOMBSTONED = words.ImportFate.TOMBSTONED
    DUPLICATE = words.ImportFate.DUPLICATE  # already pending
    KNOWN = words.ImportFate.KNOWN  # already an active memory


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
LIVE_STATUSES = tuple(MemoryStatus(s) for s in words.LIVE_STATUSES)
# Retired so: never an answer, not even in history.
NEVER_VALID = (RetireReason.FALSE_WRITE, RetireReason.FORGET)
