"""Shared plumbing of the Store: the engine, the cipher, the clock, row decoding, the scope rule."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import sqlalchemy as sa
from memvet.store import scope as scope_rule
from memvet.store.audit import append_event
from memvet.store.crypto import FieldCipher
from memvet.store.engine import read_transaction, write_transaction
from memvet.store.errors import IntegrityError
from memvet.store.leases import shown_status
from memvet.store.models import CandidateRow, MemoryRow
from memvet.store.records import Candidate, Lease, Memory, Reader, Scope
from memvet.store.row_mac import SEALED
from memvet.store.sealing import check as check_seal
from sqlalchemy import Connection, Engine

Clock = Callable[[], datetime]
CAND = CandidateRow.__table__
MEM = MemoryRow.__table__


def utcnow() -> datetime:
    return datetime.now(UTC)


def random_id(prefix: str) -> str:
    """Time-ordered ids: creation order sorts lexically, which keyset paging relies on."""
    return f"{prefix}{int(utcnow().timestamp() * 1000):011x}{secrets.token_hex(4)}"


class StoreCore:
    def __init__(
        self,
        engine: Engine,
        cipher: FieldCipher,
        *,
        user: str,
        key_provider: str,
        clock: Clock = utcnow,
        new_id: Callable[[str], str] = random_id,
    ) -> None:
        self.engine = engine
        self.cipher = cipher
        self.user = user
        self.key_provider = key_provider
        self._clock = clock
        self._new_id = new_id
        self._unreadable: dict[str, str] = {}  # row id -> table, of rows reads had to skip
        self._unreadable_lock = threading.Lock()

    def now(self) -> datetime:
        value = self._clock()
        return value if value.tzinfo else value.replace(tzinfo=UTC)

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with write_transaction(self.engine) as conn:
            yield conn
            # Whatever the write changed in memory text, the term index follows in the same
            # transaction (the triggers queued it: recall_index.py).
            from memvet.store.recall_index import reindex_stale

            reindex_stale(conn, self.cipher)

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with read_transaction(self.engine) as conn:
            yield conn

    def _audit(
        self,
        conn: Connection,
        actor: str,
        action: str,
        entity_type: str,
        entity_id: str,
        preview: str | None = None,
    ) -> None:
        append_event(
            conn,
            self.cipher,
            at=self.now(),
            actor=actor,
            action=action,
            entity_type=entity_type,
            entity_id=entity_id,
            preview=preview,
        )

    # --- the one scope rule ---------------------------------------------------------------
    def reader_for(self, workspace: str | None, *, all_scopes: bool = False) -> Reader:
        return Reader(user=self.user, workspace=workspace, all_scopes=all_scopes)

    def scope_clause(self, table: sa.Table, reader: Reader) -> sa.ColumnElement[bool]:
        """The scope rule (store/scope.py) over the blind indexes. Every read path filters with it."""
        values = {
            "user": self.cipher.blind_index("user", reader.user),
            "workspace": self.cipher.blind_index("workspace", reader.workspace),
        }
        rule = scope_rule.SCOPE_ALL if reader.all_scopes else scope_rule.SCOPE
        return scope_rule.clause(rule, table, values, "{}_bidx")

    @staticmethod
    def visible(reader: Reader, record_scope: Scope) -> bool:
        """The same rule in Python, for records assembled outside SQL."""
        return scope_rule.visible(reader.user, reader.workspace, reader.all_scopes, record_scope)

    # --- rows that fail authentication ----------------------------------------------------------
    def _readable(
        self, rows: Iterable[sa.Row], decode: Callable[[sa.Row], object], table: str
    ) -> list:
        """Decode each row; one that fails authentication (ciphertext or row MAC) is skipped
        and remembered for `unreadable()`, so one bad row never hides the rest."""
        out = []
        for row in rows:
            try:
                out.append(decode(row))
            except IntegrityError:
                self._note_unreadable(table, str(row._mapping[SEALED[table][0]]))
        return out

    def _note_unreadable(self, table: str, row_id: str) -> None:
        with self._unreadable_lock:
            self._unreadable[row_id] = table

    def unreadable(self) -> dict[str, object]:
        """Rows this Store's reads skipped because they failed authentication (ids only)."""
        with self._unreadable_lock:
            ids = sorted(self._unreadable)
        return {"count": len(ids), "ids": ids}

    # --- decoding ---------------------------------------------------------------------------
    def _dec(self, table: str, column: str, row_id: str, blob: bytes | None) -> str | None:
        return self.cipher.decrypt(table, column, row_id, blob)

    def _scope_of(self, table: str, row: sa.Row) -> Scope:
        rid = row.id
        return Scope(
            user=self._dec(table, "user", rid, row.user_ct) or "",
            workspace=self._dec(table, "workspace", rid, row.workspace_ct),
            agent=None,
            session=self._dec(table, "session", rid, row.session_ct),
        )

    def candidate_from_row(self, row: sa.Row) -> Candidate:
        rid = row.id
        check_seal(self.cipher, "candidates", row)
        reasons = self._dec("candidates", "reasons", rid, row.reasons_ct)
        lease = None
        if row.lease_token and row.reserved_at and row.lease_expires_at:
            lease = Lease(
                row.lease_owner or "unknown", row.lease_token, row.reserved_at, row.lease_expires_at
            )
        return Candidate(
            id=rid,
            status=shown_status(row.status, row.lease_expires_at, self.now()),
            kind=row.kind,
            source_type=row.source_type,
            host=row.host,
            statement=self._dec("candidates", "statement", rid, row.statement_ct) or "",
            scope=self._scope_of("candidates", row),
            confidence=row.confidence,
            reasons=tuple(json.loads(reasons)) if reasons else (),
            evidence_count=row.evidence_count,
            created_at=row.created_at,
            updated_at=row.updated_at,
            polarity=row.polarity,
            importance=row.importance,
            usage_boundary=self._dec("candidates", "usage_boundary", rid, row.usage_boundary_ct),
            lease=lease,
            last_error=self._dec("candidates", "last_error", rid, row.last_error_ct),
            memory_id=row.memory_id,
            supersedes_id=row.supersedes_id,
            decided_by=row.decided_by,
            decided_at=row.decided_at,
            subject=self._subject("candidates", row),
        )

    def memory_from_row(self, row: sa.Row) -> Memory:
        rid = row.id
        check_seal(self.cipher, "memories", row)
        return Memory(
            id=rid,
            statement=self._dec("memories", "statement", rid, row.statement_ct) or "",
            kind=row.kind,
            status=row.status,
            scope=self._scope_of("memories", row),
            source_type=row.source_type,
            host=row.host,
            candidate_id=row.candidate_id,
            valid_from=row.valid_from,
            valid_to=row.valid_to,
            recorded_at=row.recorded_at,
            confidence=row.confidence,
            importance=row.importance,
            polarity=row.polarity,
            approved_by=row.approved_by,
            usage_boundary=self._dec("memories", "usage_boundary", rid, row.usage_boundary_ct),
            supersedes_id=row.supersedes_id,
            superseded_by_id=row.superseded_by_id,
            conflict_state=row.conflict_state,
            retired_reason=row.retired_reason,
            expires_at=row.expires_at,
            updated_at=row.updated_at,
            subject=self._subject("memories", row),
            compatible_key=row.compatible_key,
        )

    def _subject(self, table: str, row: sa.Row) -> str:
        """The stored subject, or for a row written before subjects existed, the derived one."""
        stored = self._dec(table, "subject", row.id, row.subject_ct)
        if stored:
            return stored
        from memvet.store.slots import derive_subject

        return derive_subject(
            self._dec(table, "statement", row.id, row.statement_ct) or "", row.kind
        )

    def _subject_columns(
        self, table: str, row_id: str, subject: str, workspace: str | None, user: str
    ) -> dict[str, object]:
        """Encrypted subject and its blind index, keyed by scope: one slot, one index value."""
        from memvet.store.slots import normalise_subject

        return {
            "subject_ct": self.cipher.encrypt(table, "subject", row_id, subject),
            "subject_bidx": self.slot_index(normalise_subject(subject), workspace, user),
        }

    def slot_index(self, normal_subject: str, workspace: str | None, user: str) -> str | None:
        return self.cipher.blind_index(
            "subject", f"{user}\x1f{workspace or ''}\x1f{normal_subject}"
        )

    def _scope_columns(self, table: str, row_id: str, scope: Scope) -> dict[str, object]:
        c = self.cipher
        return {
            "user_bidx": c.blind_index("user", scope.user),
            "workspace_bidx": c.blind_index("workspace", scope.workspace),
            "user_ct": c.encrypt(table, "user", row_id, scope.user),
            "workspace_ct": c.encrypt(table, "workspace", row_id, scope.workspace),
            "session_ct": c.encrypt(table, "session", row_id, scope.session),
        }
