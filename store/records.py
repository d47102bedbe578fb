"""Plain read models and inputs of the store API: the one place to import them from.

Everything the store returns is one of these frozen dataclasses: detached from any session,
safe to hand across threads (the inspector's workers, the daemon's threads). They are defined by
what they describe: record_common.py (time format, scope, reader, evidence), candidate_records.py
(the queue: drafts, candidates, details, edits), memory_records.py (memories, transitions,
tombstones, `valid_at`), ledger_records.py (audit, checkpoints, status); the vocabulary's
value sets come from vocabulary.py.
"""

from __future__ import annotations

from memvet.store.candidate_records import AdmissionResult as AdmissionResult
from memvet.store.candidate_records import Candidate as Candidate
from memvet.store.candidate_records import CandidateDetail as CandidateDetail
from memvet.store.candidate_records import CandidateDraft as CandidateDraft
from memvet.store.candidate_records import Edits as Edits
from memvet.store.candidate_records import Lease as Lease
from memvet.store.ledger_records import AuditEvent as AuditEvent
from memvet.store.ledger_records import AuditReport as AuditReport
from memvet.store.ledger_records import Checkpoint as Checkpoint
from memvet.store.ledger_records import StoreStatus as StoreStatus
from memvet.store.memory_records import Change as Change
from memvet.store.memory_records import Memory as Memory
from memvet.store.memory_records import Tombstone as Tombstone
from memvet.store.memory_records import Transition as Transition
from memvet.store.memory_records import valid_at as valid_at
from memvet.store.record_common import ADOPTED as ADOPTED
from memvet.store.record_common import AUTO_APPROVER_PREFIX as AUTO_APPROVER_PREFIX
from memvet.store.record_common import EXCERPT_LIMIT as EXCERPT_LIMIT
from memvet.store.record_common import Evidence as Evidence
from memvet.store.record_common import Reader as Reader
from memvet.store.record_common import Scope as Scope
from memvet.store.record_common import iso as iso
from memvet.store.vocabulary import CANDIDATE_STATUSES as CANDIDATE_STATUSES
from memvet.store.vocabulary import KINDS as KINDS
from memvet.store.vocabulary import MEMORY_STATUSES as MEMORY_STATUSES
from memvet.store.vocabulary import NEVER_VALID as NEVER_VALID
from memvet.store.vocabulary import POLARITIES as POLARITIES
from memvet.store.vocabulary import RETIRE_REASONS as RETIRE_REASONS
from memvet.store.vocabulary import SOURCE_TYPES as SOURCE_TYPES
