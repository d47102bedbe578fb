"""What every part of the Store shares: the engine, the cipher, the clock and the user, the
unit of work (one write or read transaction) and the one scope rule over the blind indexes.

The parts (queue, reservations, memories, ledger, …) are each built with one StoreContext; a
transaction that spans parts is opened here and its connection passed to each part explicitly."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from memvet.store import scope as scope_rule
from memvet.store.audit import append_event
from memvet.store.crypto import FieldCipher
from memvet.store.engine import read_transaction, write_transaction
from memvet.store.errors import IntegrityError
from memvet.store.records import Reader, Scope
from memvet.store.row_mac import SEALED
from sqlalchemy import Connection, Engine

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def random_id(prefix: str) -> str:
    """Time-ordered ids: creation order sorts lexically, which keyset paging relies on."""
    return f"{prefix}{int(utcnow().timestamp() * 1000):011x}{secrets.token_hex(4)}"


@dataclass
class StoreContext:
    engine: Engine
    cipher: FieldCipher
    user: str
    key_provider: str
    clock: Clock = utcnow
    new_id: Callable[[str], str] = random_id
    home: Path | None = None  # MEMVET_HOME (config.toml lives there); None for a bare store
    _unreadable: dict[str, str] = field(default_factory=dict)  # row id -> table
    _unreadable_lock: threading.Lock = field(default_factory=threading.Lock)

    def now(self) -> datetime:
        value = self.clock()
        return value if value.tzinfo else value.replace(tzinfo=UTC)

    # --- the unit of work -------------------------------------------------------------------
    @contextmanager
    def write(self) -> Iterator[Connection]:
        with write_transaction(self.engine) as conn:
            yield conn
            # Whatever the write changed in memory text, the term index follows in the same
            # transaction (the triggers queued it: recall_index.py).
            from memvet.store.term_reindex import reindex_stale

            reindex_stale(conn, self.cipher)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with read_transaction(self.engine) as conn:
            yield conn

    def audit(
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

    # --- rows that fail authentication ----------------------------------------------------
    def readable(
        self, rows: Iterable[sa.Row], decode: Callable[[sa.Row], object], table: str
    ) -> list:
        """Decode each row; one that fails authentication (ciphertext or row MAC) is skipped
        and remembered for `unreadable()`, so one bad row never hides the rest."""
        out = []
        for row in rows:
            try:
                out.append(decode(row))
            except IntegrityError:
                self.note_unreadable(table, str(row._mapping[SEALED[table][0]]))
        return out

    def note_unreadable(self, table: str, row_id: str) -> None:
        with self._unreadable_lock:
            self._unreadable[row_id] = table

    def unreadable(self) -> dict[str, object]:
        """Rows this Store's reads skipped because they failed authentication (ids only)."""
        with self._unreadable_lock:
            ids = sorted(self._unreadable)
        return {"count": len(ids), "ids": ids}
