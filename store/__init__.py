"""memvet's store: the only integration point between the daemon, the inspector and the hosts.

Import from here only: `from memvet.store import open_store, Store, Scope, ...`.
This module imports lazily so that light callers (the hook fast path) do not pay for SQLModel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memvet.store.errors import (
    AlreadyDecidedError,
    DuplicateError,
    IllegalTransitionError,
    IntegrityError,
    KeyMissingError,
    KeyringLockedError,
    KeyWrongError,
    LeaseMismatchError,
    MemvetError,
    NotFoundError,
    ReservationHeldError,
    SchemaMismatchError,
    StoreUnavailableError,
    TombstonedError,
    UsageError,
)
from memvet.store.records import (
    CANDIDATE_STATUSES,
    EXCERPT_LIMIT,
    KINDS,
    MEMORY_STATUSES,
    SOURCE_TYPES,
    AdmissionResult,
    AuditEvent,
    AuditReport,
    Candidate,
    CandidateDetail,
    CandidateDraft,
    Change,
    Checkpoint,
    Edits,
    Evidence,
    Lease,
    Memory,
    Reader,
    Scope,
    StoreStatus,
    Tombstone,
    Transition,
    iso,
)

if TYPE_CHECKING:
    from memvet.store.candidates import QueueFilter
    from memvet.store.store import Store, open_store

_LAZY = {"Store": "memvet.store.store", "open_store": "memvet.store.store",
         "QueueFilter": "memvet.store.candidates"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)


__all__ = [
    "CANDIDATE_STATUSES", "EXCERPT_LIMIT", "KINDS", "MEMORY_STATUSES", "SOURCE_TYPES",
    "AdmissionResult", "AlreadyDecidedError", "AuditEvent", "AuditReport", "Candidate",
    "CandidateDetail", "CandidateDraft", "Change", "Checkpoint", "DuplicateError", "Edits",
    "Evidence", "IllegalTransitionError", "IntegrityError", "KeyMissingError",
    "KeyWrongError", "KeyringLockedError", "Lease", "LeaseMismatchError", "Memory",
    "MemvetError", "NotFoundError", "QueueFilter", "Reader", "ReservationHeldError",
    "SchemaMismatchError", "Scope", "Store", "StoreStatus", "StoreUnavailableError",
    "Tombstone", "TombstonedError", "Transition", "UsageError", "iso", "open_store",
]
