"""The ledger's and the daemon's bookkeeping records: audit events and the chain's verification
report, how far a transcript was read (`Checkpoint`), and the store's status.
records.py re-exports them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


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
