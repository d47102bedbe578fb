"""Table models. Free text lives only in `*_ct` columns (AES-GCM ciphertext, see crypto.py);
fields filtered in SQL are keyed HMAC blind indexes (`*_bidx`). Nothing here is SQLite-only.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from memvet.store.vocabulary import Polarity
from sqlalchemy import Column, LargeBinary, Table, UniqueConstraint
from sqlmodel import Field, SQLModel


def _ct(nullable: bool = True):  # noqa: ANN202 - a column factory
    return Field(default=None, sa_column=Column(LargeBinary, nullable=nullable))


class Row(SQLModel):
    """Every table's base: tells the type checker what SQLModel adds at class creation (the
    table and its name), so `CandidateRow.__table__` is a `Table`. Nothing at run time."""

    # Pydantic's validator of a table model is built on its first use, not at import: rows
    # are made and loaded without validation (SQLModel's table construct, the ORM's loading),
    # so a command never pays for it (~15 % of building these classes). The tables are the same.
    model_config = {"defer_build": True}

    if TYPE_CHECKING:
        __table__: ClassVar[Table]
        __tablename__: ClassVar[str]  # pyright: ignore[reportIncompatibleVariableOverride]


class StoreMetaRow(Row, table=True):
    __tablename__ = "store_meta"
    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(max_length=512)


class KeyMaterialRow(Row, table=True):
    """The data key, wrapped by the key-encryption key held by the recorded provider."""

    __tablename__ = "key_material"
    dek_id: str = Field(primary_key=True, max_length=16)
    kek_version: int
    provider: str = Field(max_length=32)
    wrapped_dek: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime
    rotated_at: datetime | None = None


class CandidateRow(Row, table=True):
    __tablename__ = "candidates"
    id: str = Field(primary_key=True, max_length=40)
    status: str = Field(index=True, max_length=16)
    kind: str = Field(index=True, max_length=16)
    source_type: str = Field(max_length=24)
    host: str | None = Field(default=None, index=True, max_length=32)
    user_bidx: str = Field(index=True, max_length=64)
    workspace_bidx: str | None = Field(default=None, index=True, max_length=64)
    content_key: str = Field(index=True, max_length=64)
    polarity: str = Field(default=Polarity.ASSERT.value, max_length=8)
    confidence: float = 0.5
    importance: int = 1
    evidence_count: int = 1
    created_at: datetime = Field(index=True)
    updated_at: datetime
    lease_token: str | None = Field(default=None, max_length=40)
    lease_owner: str | None = Field(default=None, max_length=200)
    reserved_at: datetime | None = None
    lease_expires_at: datetime | None = Field(default=None, index=True)
    memory_id: str | None = Field(default=None, max_length=48)
    supersedes_id: str | None = Field(default=None, max_length=48)
    decided_by: str | None = Field(default=None, max_length=200)
    decided_at: datetime | None = None
    subject_bidx: str | None = Field(default=None, index=True, max_length=64)  # slots.py
    statement_ct: bytes | None = _ct(False)
    user_ct: bytes | None = _ct(False)
    workspace_ct: bytes | None = _ct()
    session_ct: bytes | None = _ct()
    reasons_ct: bytes | None = _ct()
    usage_boundary_ct: bytes | None = _ct()
    last_error_ct: bytes | None = _ct()
    decision_note_ct: bytes | None = _ct()
    subject_ct: bytes | None = _ct()
    row_mac: str | None = Field(default=None, max_length=64)  # row_mac.py


class EvidenceRow(Row, table=True):
    __tablename__ = "evidence"
    id: str = Field(primary_key=True, max_length=40)  # made by the writer: bound into the AAD
    candidate_id: str = Field(foreign_key="candidates.id", index=True, max_length=40)
    line: int = 0
    timestamp: datetime | None = None
    created_at: datetime
    path_ct: bytes | None = _ct(False)
    message_id_ct: bytes | None = _ct()
    session_ct: bytes | None = _ct()
    excerpt_ct: bytes | None = _ct(False)
    # (file identity, line, message id) of one statement, keyed (evidence_identity.py)
    identity_key: str | None = Field(default=None, index=True, max_length=64)


class MemoryRow(Row, table=True):
    __tablename__ = "memories"
    id: str = Field(primary_key=True, max_length=48)
    candidate_id: str = Field(foreign_key="candidates.id", unique=True, max_length=40)
    status: str = Field(index=True, max_length=16)
    kind: str = Field(max_length=16)
    source_type: str = Field(max_length=24)
    host: str | None = Field(default=None, max_length=32)
    user_bidx: str = Field(index=True, max_length=64)
    workspace_bidx: str | None = Field(default=None, index=True, max_length=64)
    content_key: str = Field(index=True, max_length=64)
    polarity: str = Field(default=Polarity.ASSERT.value, max_length=8)
    confidence: float = 1.0
    importance: int = 1
    approved_by: str = Field(max_length=200)
    valid_from: datetime
    valid_to: datetime | None = None
    recorded_at: datetime = Field(index=True)
    updated_at: datetime
    expires_at: datetime | None = None
    supersedes_id: str | None = Field(default=None, max_length=48)
    superseded_by_id: str | None = Field(default=None, max_length=48)
    conflict_state: str = Field(default="none", max_length=16)
    retired_reason: str | None = Field(default=None, max_length=16)
    subject_bidx: str | None = Field(default=None, index=True, max_length=64)  # slots.py
    compatible_key: str | None = Field(default=None, max_length=40)  # kept both: one mark
    statement_ct: bytes | None = _ct(False)
    user_ct: bytes | None = _ct(False)
    workspace_ct: bytes | None = _ct()
    session_ct: bytes | None = _ct()
    usage_boundary_ct: bytes | None = _ct()
    subject_ct: bytes | None = _ct()
    row_mac: str | None = Field(default=None, max_length=64)  # row_mac.py


class MemoryTransitionRow(Row, table=True):
    __tablename__ = "memory_transitions"
    __table_args__ = (UniqueConstraint("memory_id", "txn_id", name="uq_transition_txn"),)
    id: int | None = Field(default=None, primary_key=True)
    memory_id: str = Field(foreign_key="memories.id", index=True, max_length=48)
    from_status: str | None = Field(default=None, max_length=16)
    to_status: str = Field(max_length=16)
    valid_to_before: datetime | None = None
    valid_to_after: datetime | None = None
    actor: str = Field(max_length=200)
    reason: str | None = Field(default=None, max_length=32)
    txn_id: str = Field(max_length=64)
    at: datetime = Field(index=True)


class MemoryVersionRow(Row, table=True):
    """What an operator's edit of an approved memory replaced (memory_edit.py): the whole prior
    version encrypted as one field, so undo can put it back and nothing in it can be altered."""

    __tablename__ = "memory_versions"
    id: str = Field(primary_key=True, max_length=64)  # "<memory id>~0001": in edit order
    memory_id: str = Field(foreign_key="memories.id", index=True, max_length=48)
    edited_at: datetime
    actor: str = Field(max_length=200)
    undone_at: datetime | None = None
    previous_ct: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class TombstoneRow(Row, table=True):
    __tablename__ = "tombstones"
    content_key: str = Field(primary_key=True, max_length=64)
    reason: str = Field(max_length=16)
    source_id: str | None = Field(default=None, max_length=48)
    created_at: datetime
    seen_again: int = 0
    last_seen_at: datetime | None = None
    lifted_at: datetime | None = None
    preview_ct: bytes | None = _ct()
    row_mac: str | None = Field(default=None, max_length=64)  # row_mac.py
    # The statement whatever its kind or scope (crypto.statement_key) and the scope it was
    # rejected in (null: user-global): admission blocks it at that scope, wider and narrower.
    statement_key: str | None = Field(default=None, index=True, max_length=64)
    workspace_bidx: str | None = Field(default=None, max_length=64)


class FileCheckpointRow(Row, table=True):
    __tablename__ = "file_checkpoints"
    path_key: str = Field(primary_key=True, max_length=64)
    host: str = Field(max_length=32)
    device: int = 0
    inode: int = 0
    fingerprint: str = Field(max_length=64)
    offset: int = 0
    line_no: int = 0
    size_seen: int = 0
    updated_at: datetime
    path_ct: bytes | None = _ct(False)
    state_ct: bytes | None = _ct()


class AuditEventRow(Row, table=True):
    __tablename__ = "audit_events"
    seq: int = Field(primary_key=True)
    at: datetime
    actor: str = Field(max_length=200)
    action: str = Field(max_length=48)
    entity_type: str = Field(max_length=24)
    entity_id: str = Field(max_length=64)
    preview_ct: bytes | None = _ct()
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)
    state_mac: str | None = Field(default=None, max_length=64)  # the entity's row MAC after it


class SweepRunRow(Row, table=True):
    __tablename__ = "sweep_runs"
    job_id: str = Field(primary_key=True, max_length=64)
    last_success_at: datetime
    last_result: str = Field(default="", max_length=256)


class TermPostingRow(Row, table=True):
    """The recall index (term_index.py): a blind token of one term a memory holds, never text.
    Migration m007 creates it WITHOUT ROWID, with triggers that keep it current."""

    __tablename__ = "term_postings"
    token: bytes = Field(sa_column=Column(LargeBinary, primary_key=True))
    memory_id: str = Field(primary_key=True, max_length=48, index=True)
    field: int = Field(primary_key=True)


class TermStaleRow(Row, table=True):
    """Memories whose text changed since the index last read them (filled by triggers)."""

    __tablename__ = "term_stale"
    memory_id: str = Field(primary_key=True, max_length=48)


class MemoryCountRow(Row, table=True):
    """Memories per scope, status and plainness (memory_counts.py), kept by migration m012's
    triggers; workspace_bidx '' is the user's global scope."""

    __tablename__ = "memory_counts"
    user_bidx: str = Field(primary_key=True, max_length=64)
    workspace_bidx: str = Field(primary_key=True, max_length=64)
    status: str = Field(primary_key=True, max_length=16)
    plain: int = Field(primary_key=True)
    n: int


class TermCountRow(Row, table=True):
    """Memories holding each blind token, per field (memory_counts.py), kept by triggers."""

    __tablename__ = "term_counts"
    token: bytes = Field(sa_column=Column(LargeBinary, primary_key=True))
    field: int = Field(primary_key=True)
    n: int


class TeamOutboxRow(Row, table=True):
    """Team writes waiting for the server (store/team/outbox.py), in order; payload encrypted."""

    __tablename__ = "team_outbox"
    seq: int | None = Field(default=None, primary_key=True)
    op: str = Field(max_length=24)
    item_id: str = Field(max_length=48, unique=True)
    payload_ct: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime
    attempts: int = 0
    last_error: str | None = Field(default=None, max_length=64)


class TeamLinkRow(Row, table=True):
    """A team row this home has seen: the local memory it became, or why it waits."""

    __tablename__ = "team_links"
    team_item_id: str = Field(primary_key=True, max_length=48)
    team_id: str = Field(max_length=40)
    kind: str = Field(max_length=16)
    state: str = Field(max_length=16, index=True)
    local_memory_id: str | None = Field(default=None, max_length=48, index=True)
    payload_ct: bytes | None = _ct()
    updated_at: datetime


class TeamSyncStateRow(Row, table=True):
    __tablename__ = "team_sync_state"
    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(max_length=256)


class TeamWorkspaceRow(Row, table=True):
    """Which local folder is the workspace of a git remote (remote and path encrypted)."""

    __tablename__ = "team_workspaces"
    remote_bidx: str = Field(primary_key=True, max_length=64)
    remote_ct: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    path_ct: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
