"""Messages the inspector's workers post: plain data, named as facts.

Workers run in threads and touch no widget; they post one of these and a handler on the
screen (in the UI thread) applies it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memvet.inspector.jobs import AuditView, Changes, Decision, Outcome, QueuePage
from memvet.store import Candidate, CandidateDetail, Memory, Tombstone, Transition
from textual.message import Message


@dataclass
class StoreChanged(Message):
    """Someone (the daemon, the CLI, another inspector, or us) wrote to the store."""

    changes: Changes


@dataclass
class QueuePageLoaded(Message):
    generation: int
    page: QueuePage | None
    first: bool
    error: str | None = None


@dataclass
class QueueCounted(Message):
    generation: int
    total: int


@dataclass
class CandidatesRefreshed(Message):
    """The current state of candidates the change feed said were touched."""

    generation: int
    candidates: list[Candidate]
    missing: list[str]


@dataclass
class DetailLoaded(Message):
    candidate_id: str
    detail: CandidateDetail | None
    error: str | None = None


@dataclass
class DecisionFinished(Message):
    """An approve or reject came back from the store: only now is it shown as done."""

    action: str
    candidate_id: str
    statement: str
    outcome: Outcome


@dataclass
class UndoFinished(Message):
    decision: Decision
    outcome: Outcome


@dataclass
class MemoriesLoaded(Message):
    generation: int
    memories: list[Memory]
    as_of: datetime | None
    recorded: bool
    error: str | None = None
    partial: bool = False  # only the memories the change feed named, not the whole view
    review: frozenset[str] | None = None  # ids due for a "still true?" look (None: not read)


@dataclass
class HistoryLoaded(Message):
    memory_id: str
    memory: Memory | None
    transitions: list[Transition]
    error: str | None = None


@dataclass
class MemoryChanged(Message):
    memory_id: str
    action: str
    outcome: Outcome
    reason: str | None = None  # restore: the retirement reason it took back


@dataclass
class StaleLoaded(Message):
    candidates: list[Candidate]


@dataclass
class RecoveryFinished(Message):
    candidate_id: str
    action: str
    outcome: Outcome


@dataclass
class TombstonesLoaded(Message):
    tombstones: list[Tombstone]


@dataclass
class TombstoneLifted(Message):
    content_key: str
    outcome: Outcome


@dataclass
class AuditLoaded(Message):
    view: AuditView | None
    error: str | None = None


@dataclass
class TeamOffered(Message):
    """A memory offered to the team (`memvet memories share ID`) came back from the store."""

    memory: Memory
    outcome: Outcome


@dataclass
class CandidateOffered(Message):
    """A queue candidate offered to the team (`T` on the queue) came back from the store."""

    candidate: Candidate
    outcome: Outcome
