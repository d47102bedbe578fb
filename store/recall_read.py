"""`memvet recall` without the ORM: the same decision (recall.py over recall_index.py's blind
postings), its rows read through `sqlite3` and its fields through fast_read's import-light
cipher, so a question does not pay for importing SQLModel, SQLAlchemy and pydantic.

`RecallSource` is what IndexedScope reads of a Store (the term key, blind indexes, read
connections, memories by id), over a sqlite3 connection; it decodes rows into the same
records.Memory and records.Candidate the Store's RowCodec (rows.py) builds, so `Recall` cannot
tell the paths apart (tests/store/test_recall_read.py compares them on one store). A row whose
row MAC or ciphertext fails authentication is left out and its id kept, as the Store does.

`recall_direct` returns None when this path cannot serve (no store, a schema this SQL was not
written for, a key it cannot load, a question about the store as it was recorded earlier —
`--recorded-as-of` rebuilds history from transitions, which only the Store does): the caller
then takes the Store's path, which reports the cause with the usual error and exit code.
`served_direct` is what `memvet recall` prints from here: redacted again with today's rules
only while the store is not swept with them (the no-daemon hook's rule, redaction_version.py).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from memvet.store import fast_keys as fk
from memvet.store import fast_read as fr
from memvet.store import row_mac
from memvet.store.leases import shown_status, status_sql
from memvet.store.login import current_user
from memvet.store.read_layer import stored_now, unreadable_seen
from memvet.store.records import Candidate, Lease, Memory, Reader, Scope
from memvet.store.vocabulary import OPEN_STATUSES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from memvet.store.recall_decision import RecallDecision

RECALLED = OPEN_STATUSES  # the candidates recall weighs (recall.py)


def stored_time(value: str | None) -> datetime | None:
    """A time as SQLite holds it (UTC, no offset), as the Store's UTCDateTime columns return it."""
    return None if value is None else datetime.fromisoformat(f"{value}+00:00")  # tzinfo UTC


class _Result:
    """What IndexedScope reads of a SQLAlchemy result."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    def all(self) -> list[tuple]:
        return self._cursor.fetchall()

    def first(self) -> tuple | None:
        return self._cursor.fetchone()

    def scalar_one(self) -> Any:
        return self._cursor.fetchone()[0]


class _Connection:
    """A sqlite3 connection with the one SQLAlchemy method IndexedScope calls."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def exec_driver_sql(self, sql: str, params: tuple = ()) -> _Result:
        return _Result(self._conn.execute(sql, params))


class RecallSource:
    def __init__(self, conn: sqlite3.Connection, cipher: fk.FastCipher, user: str) -> None:
        self.conn, self.cipher, self.user = conn, cipher, user
        self._unreadable: set[str] = set()

    def unreadable(self) -> dict[str, object]:
        ids = sorted(self._unreadable)
        return {"count": len(ids), "ids": ids}

    @property
    def ctx(self) -> RecallSource:
        """IndexedScope reads through `store.ctx.read()`, as of the Store's StoreContext."""
        return self

    def read(self) -> _Read:
        return _Read(self.conn)

    # --- rows to records (rows.py's RowCodec, over sqlite3 rows) ----------------------------
    def _rows(self, sql: str, params: tuple) -> Iterator[dict]:
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        for row in cursor:
            yield dict(zip(names, row, strict=True))

    def _decoded(self, table: str, row: dict, decode: Any) -> Any:
        """The record, or None (its id kept) when the row MAC or a ciphertext fails."""
        if not row_mac.intact(self.cipher.row_key, table, row):
            self._unreadable.add(row["id"])
            return None
        try:
            return decode(row)
        except fk.FastReadError:
            self._unreadable.add(row["id"])
            return None

    def _dec(self, table: str, column: str, row: dict) -> str | None:
        return self.cipher.decrypt(table, column, row["id"], row[f"{column}_ct"])

    def _scope(self, table: str, row: dict) -> Scope:
        return Scope(
            user=self._dec(table, "user", row) or "",
            workspace=self._dec(table, "workspace", row),
            agent=None,
            session=self._dec(table, "session", row),
        )

    def _subject(self, table: str, row: dict, statement: str) -> str:
        stored = self._dec(table, "subject", row)
        if stored:
            return stored
        from memvet.store.slots import derive_subject

        return derive_subject(statement, row["kind"])

    def _memory(self, row: dict) -> Memory:
        statement = self._dec("memories", "statement", row) or ""
        return Memory(
            id=row["id"],
            statement=statement,
            kind=row["kind"],
            status=row["status"],
            scope=self._scope("memories", row),
            source_type=row["source_type"],
            host=row["host"],
            candidate_id=row["candidate_id"],
            valid_from=stored_time(row["valid_from"]),  # type: ignore[arg-type]
            valid_to=stored_time(row["valid_to"]),
            recorded_at=stored_time(row["recorded_at"]),  # type: ignore[arg-type]
            confidence=row["confidence"],
            importance=row["importance"],
            polarity=row["polarity"],
            approved_by=row["approved_by"],
            usage_boundary=self._dec("memories", "usage_boundary", row),
            supersedes_id=row["supersedes_id"],
            superseded_by_id=row["superseded_by_id"],
            conflict_state=row["conflict_state"],
            retired_reason=row["retired_reason"],
            expires_at=stored_time(row["expires_at"]),
            updated_at=stored_time(row["updated_at"]),
            subject=self._subject("memories", row, statement),
            compatible_key=row["compatible_key"],
        )

    def _candidate(self, row: dict, now: datetime) -> Candidate:
        statement = self._dec("candidates", "statement", row) or ""
        reasons = self._dec("candidates", "reasons", row)
        expires = stored_time(row["lease_expires_at"])
        reserved = stored_time(row["reserved_at"])
        lease = None
        if row["lease_token"] and reserved and expires:
            lease = Lease(row["lease_owner"] or "unknown", row["lease_token"], reserved, expires)
        return Candidate(
            id=row["id"],
            status=shown_status(row["status"], expires, now),
            kind=row["kind"],
            source_type=row["source_type"],
            host=row["host"],
            statement=statement,
            scope=self._scope("candidates", row),
            confidence=row["confidence"],
            reasons=tuple(json.loads(reasons)) if reasons else (),
            evidence_count=row["evidence_count"],
            created_at=stored_time(row["created_at"]),  # type: ignore[arg-type]
            updated_at=stored_time(row["updated_at"]),  # type: ignore[arg-type]
            polarity=row["polarity"],
            importance=row["importance"],
            usage_boundary=self._dec("candidates", "usage_boundary", row),
            lease=lease,
            last_error=self._dec("candidates", "last_error", row),
            memory_id=row["memory_id"],
            supersedes_id=row["supersedes_id"],
            decided_by=row["decided_by"],
            decided_at=stored_time(row["decided_at"]),
            subject=self._subject("candidates", row, statement),
        )

    # --- what recall reads --------------------------------------------------------------------
    def memories_by_id(self, _conn: object, ids: list[str]) -> list[Memory]:
        rows = self._rows(
            "SELECT * FROM memories WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
        found = (self._decoded("memories", row, self._memory) for row in rows)
        return [m for m in found if m is not None]

    def recalled_candidates(self, reader: Reader, now: datetime) -> list[Candidate]:
        """Store.list_candidates(reader, QueueFilter(statuses=RECALLED), limit=None)."""
        shown, shown_params = status_sql(RECALLED, stored_now())
        params = (
            self.cipher.blind_index("user", reader.user),
            self.cipher.blind_index("workspace", reader.workspace),
            *shown_params,
        )
        # The few recalled ones found by status, never by walking every committed candidate
        # (in list order, or all of them): after the daemon's ANALYZE (engine.optimize) SQLite
        # chose either, whatever the scope was kept off (issue 15: ~25 ms at 10k committed).
        rows = self._rows(
            f"SELECT * FROM candidates INDEXED BY ix_candidates_status WHERE {fr.ID_SCOPE_SQL} "
            f"AND ({shown}) ORDER BY created_at, id",
            params,
        )
        found = (
            self._decoded("candidates", row, lambda r: self._candidate(r, now)) for row in rows
        )
        return [c for c in found if c is not None]

    def recall(self, query: str, workspace: str | None, as_of: datetime | None) -> RecallDecision:
        """recall.recall for the store as it is now (no recorded_as_of)."""
        from memvet.store.recall import Recall
        from memvet.store.recall_index import IndexedScope

        reader = Reader(user=self.user, workspace=workspace, all_scopes=False)
        now = datetime.now(UTC)
        candidates = self.recalled_candidates(reader, now)
        index = IndexedScope(self, reader, query, candidates)
        return Recall(query, index.memories, candidates, now=now, as_of=as_of, index=index).decide()


class _Read:
    """The Store's `ctx.read()` context: a read of one connection (autocommit, query_only)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> _Connection:
        self._conn.execute("BEGIN")  # one snapshot for the postings, counts and rows
        return _Connection(self._conn)

    def __exit__(self, *_exc: object) -> None:
        self._conn.execute("COMMIT")


def recall_direct(
    query: str,
    *,
    workspace: str | None,
    as_of: datetime | None,
    home: str | None = None,
    user: str | None = None,
) -> RecallDecision | None:
    """The recall decision (with `unreadable`), or None when the Store's path must answer.
    `home` and `user`: MEMVET_HOME's store and the login name unless given (the daemon,
    answering for a command, gives its store's)."""
    found = direct_decision(query, workspace, as_of, home, user)
    return None if found is None else found[0]


def served_direct(
    query: str, *, workspace: str | None, as_of: datetime | None
) -> dict[str, Any] | None:
    """The document `memvet recall` prints (redaction/served.py's recall_document), or None as
    recall_direct. Redacted again only when the store's text was not swept with today's rules,
    as the no-daemon hook decides: a swept store's text already is, and importing the redactor
    is most of what a swept store's recall would add (issue 15)."""
    found = direct_decision(query, workspace, as_of, None, None)
    if found is None:
        return None
    decision, older_rules = found
    if not older_rules:
        return decision.to_json()
    from memvet.store.redaction.served import recall_document

    return recall_document(decision)


def direct_decision(
    query: str, workspace: str | None, as_of: datetime | None, home: str | None, user: str | None
) -> tuple[RecallDecision, bool] | None:
    """recall_direct's decision, and whether the store's text was last swept with other
    redaction rules than today's (one store_meta lookup on the same connection). Both routes
    that read the store in this module's way (the command's, the daemon's) run through here."""
    from memvet.store.paths import memvet_home_text  # text: pathlib is not needed here
    from memvet.store.redaction_version import swept_with_older_rules

    try:
        conn, cipher = fk.open_direct(home or memvet_home_text())
    except (fk.FastReadError, sqlite3.Error, OSError, ValueError):
        return None
    try:
        # Before the rows: a sweep that finishes meanwhile records today's version only after
        # its last slice, so rows read after a current version are all swept.
        older_rules = swept_with_older_rules(fr.ruleset_recorded(conn))
        source = RecallSource(conn, cipher, user or current_user())
        decision = source.recall(query, workspace, as_of)
        return decision.with_unreadable(unreadable_seen(source)), older_rules
    except sqlite3.Error:  # busy or damaged: the Store's path reports it (nothing was written)
        return None
    finally:
        conn.close()
