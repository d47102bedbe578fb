"""memvet's store: the only integration point between the daemon, the inspector and the hosts.

Import from here only: `from memvet.store import open_store, Store, Scope, ...`.
This module imports lazily so that light callers (the hook fast path) do not pay for SQLModel.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs the hook's fast path ~4 ms

if TYPE_CHECKING:
    from memvet.store.candidates import QueueFilter
    from memvet.store.errors import (
        AlreadyDecidedError,
        ConflictError,
        DuplicateError,
        IllegalTransitionError,
        IntegrityError,
        KeyMissingError,
        KeyringLockedError,
        KeyWrongError,
        LeaseMismatchError,
        MemvetError,
        NoStoreError,
        NotFoundError,
        ReservationHeldError,
        SchemaMismatchError,
        StoreUnavailableError,
        TombstonedError,
        UsageError,
    )
    from memvet.store.memory_edit import MemoryEdits
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
    from memvet.store.store import Store, open_store

# Every public name is resolved on first use: the hook's fast path imports submodules of this
# package and must not pay for building the record dataclasses or SQLModel.
_ERRORS = (
    "AlreadyDecidedError ConflictError DuplicateError IllegalTransitionError IntegrityError "
    "KeyMissingError KeyringLockedError KeyWrongError LeaseMismatchError MemvetError "
    "NoStoreError NotFoundError ReservationHeldError SchemaMismatchError StoreUnavailableError "
    "TombstonedError UsageError"
).split()
_RECORDS = (
    "CANDIDATE_STATUSES EXCERPT_LIMIT KINDS MEMORY_STATUSES SOURCE_TYPES AdmissionResult "
    "AuditEvent AuditReport Candidate CandidateDetail CandidateDraft Change Checkpoint "
    "Edits Evidence Lease Memory Reader Scope StoreStatus Tombstone Transition iso"
).split()
_LAZY = {
    **dict.fromkeys(_ERRORS, "memvet.store.errors"),
    **dict.fromkeys(_RECORDS, "memvet.store.records"),
    "Store": "memvet.store.store",
    "open_store": "memvet.store.store",
    "QueueFilter": "memvet.store.candidates",
    "MemoryEdits": "memvet.store.memory_edit",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'memvet.store' has no attribute {name!r}")


__all__ = [
    "CANDIDATE_STATUSES",
    "EXCERPT_LIMIT",
    "KINDS",
    "MEMORY_STATUSES",
    "SOURCE_TYPES",
    "AdmissionResult",
    "AlreadyDecidedError",
    "AuditEvent",
    "AuditReport",
    "Candidate",
    "CandidateDetail",
    "CandidateDraft",
    "Change",
    "Checkpoint",
    "ConflictError",
    "DuplicateError",
    "Edits",
    "Evidence",
    "IllegalTransitionError",
    "IntegrityError",
    "KeyMissingError",
    "KeyWrongError",
    "KeyringLockedError",
    "Lease",
    "LeaseMismatchError",
    "Memory",
    "MemoryEdits",
    "MemvetError",
    "NoStoreError",
    "NotFoundError",
    "QueueFilter",
    "Reader",
    "ReservationHeldError",
    "SchemaMismatchError",
    "Scope",
    "Store",
    "StoreStatus",
    "StoreUnavailableError",
    "Tombstone",
    "TombstonedError",
    "Transition",
    "UsageError",
    "iso",
    "open_store",
]
