"""The closed vocabularies' values as plain strings: each word written once, here. vocabulary.py
builds its StrEnums from these classes (a member *is* its value); the no-daemon hook reads them
directly (context_pack.py, fast_read.py), because creating nine enum classes costs it ~1.3 ms
(issue 15) and a plain class costs nothing. Code outside the hook path names the StrEnum members.

Each class here is a namespace, not a type: `MemoryStatus.ACTIVE` is the str "active", so a typo
in a member name is still an AttributeError, never a silent no-match.
"""

from __future__ import annotations


class Kind:
    PREFERENCE = "preference"
    CONSTRAINT = "constraint"
    DECISION = "decision"
    FACT = "fact"
    PROCEDURE = "procedure"


class SourceType:
    EXPLICIT_USER = "explicit_user"
    OPERATOR = "operator"
    MODEL_INFERENCE = "model_inference"
    IMPORT = "import"


class CandidateStatus:
    PENDING = "pending"
    RESERVED = "reserved"
    STALE = "stale"
    COMMITTED = "committed"
    REJECTED = "rejected"
    EXPIRED = "expired"


class MemoryStatus:
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETIRED = "retired"
    DISPUTED = "disputed"


class RetireReason:
    FALSE_WRITE = "false_write"
    OPERATOR = "operator"
    EXPIRED = "expired"
    TTL = "ttl"
    FORGET = "forget"


class Polarity:
    ASSERT = "assert"
    DENY = "deny"


class TombstoneReason:
    REJECTED = "rejected"
    FALSE_WRITE = "false_write"
    FORGET = "forget"
    TEAM = "team"


class AdmissionOutcome:
    QUEUED = "queued"
    MERGED = "merged"
    KNOWN = "known"
    TOMBSTONED = "tombstoned"
    REPEAT = "repeat"
    DROPPED = "dropped"


class ImportFate:
    IMPORTED = "imported"
    TOMBSTONED = "tombstoned"
    DUPLICATE = "duplicate"
    KNOWN = "known"


# A memory in force or in question: what a slot, a duplicate check and a supersede consider.
LIVE_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.DISPUTED)
