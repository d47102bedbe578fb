"""The read commands' path without the ORM: `queue list`, `memories list` and `status` read
memvet.db through `sqlite3` and fields through fast_read's import-light cipher, so a command that
only reads does not pay for importing SQLModel, SQLAlchemy and pydantic (most of its start-up).

Pages are keyset pages: `after` is the id of the last record of the previous page, so page 200
costs what page 1 costs. Each record is built once, straight from its row, as a dict with the
keys the JSON contract lists (cli_lists.py picks them). A row whose row MAC or ciphertext fails
authentication is left out and its id kept, as the Store's reads do (`StoreContext.readable`).

The SQL here twins the Store's rules: the scope rule is scope.py's (`StoreContext.scope_clause`),
shown status is leases.py's (its `status_sql`), times are records.iso's; tests compare both
paths on the same store. `open_reader` returns None when this path cannot serve (no store, a
schema this SQL was not written for, a key it cannot load): the caller then takes the Store's
path, which reports the cause with the usual error and exit code.
"""

from __future__ import annotations

import hmac
import json
import sqlite3
from datetime import UTC, datetime

from memvet.store import fast_keys as fk
from memvet.store import row_mac
from memvet.store import scope as scope_rule  # not fast_read: its pack and term rules cost ~3 ms
from memvet.store.leases import shown_status, status_sql
from memvet.store.login import current_user
from memvet.store.vocabulary import CandidateStatus

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

CAND_SEALED = ", ".join(row_mac.SEALED["candidates"][1])
MEM_SEALED = ", ".join(row_mac.SEALED["memories"][1])
CAND_COLUMNS = (
    f"id, {CAND_SEALED}, row_mac, host, confidence, evidence_count, created_at, "
    "lease_expires_at, statement_ct, user_ct, workspace_ct, session_ct, subject_ct, "
    "reasons_ct"
)
MEM_COLUMNS = (
    f"id, {MEM_SEALED}, row_mac, candidate_id, recorded_at, conflict_state, "
    "statement_ct, user_ct, workspace_ct, session_ct, subject_ct"
)
N_CAND, N_MEM = len(row_mac.SEALED["candidates"][1]), len(row_mac.SEALED["memories"][1])


def iso_text(stored: str | None) -> str | None:
    """records.iso of a time as SQLite holds it (`YYYY-MM-DD HH:MM:SS.ffffff`, UTC)."""
    if stored is None:
        return None
    if len(stored) == 19:  # no fraction
        stored += ".000000"
    return f"{stored[:10]}T{stored[11:26]}Z"


def stored_now() -> str:
    """Now, as SQLite holds times (what the Store binds for `now`)."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class ReadLayer:
    def __init__(self, conn: sqlite3.Connection, cipher: fk.FastCipher, user: str) -> None:
        self.conn, self.cipher, self.user = conn, cipher, user
        self.user_bidx = cipher.blind_index("user", user)
        self._unreadable: set[str] = set()

    def unreadable(self) -> dict[str, object]:
        ids = sorted(self._unreadable)
        return {"count": len(ids), "ids": ids}

    def close(self) -> None:
        self.conn.close()

    def log_tag(self, path: str) -> str:
        """As Store.log_tag: a file or folder as the daemon's logs and stats name it."""
        return self.cipher.log_tag(path)

    # --- rows -----------------------------------------------------------------------------------
    def _sealed(self, table: str, row: tuple, count: int) -> bool:
        stored = row[count + 1]
        if isinstance(stored, str) and hmac.compare_digest(
            stored, row_mac.mac(self.cipher.row_key, table, row[0], row[1 : count + 1])
        ):
            return True
        self._unreadable.add(row[0])
        return False

    def _scope(
        self, table: str, rid: str, user: bytes, workspace: bytes | None, session: bytes | None
    ) -> dict[str, str | None]:
        dec = self.cipher.decrypt
        return {
            "user": dec(table, "user", rid, user) or "",
            "workspace": dec(table, "workspace", rid, workspace),
            "agent": None,
            "session": dec(table, "session", rid, session),
        }

    def _subject(self, table: str, rid: str, blob: bytes | None, statement: str, kind: str) -> str:
        """core.py `_subject`: the stored subject, else the one derived from the statement."""
        stored = self.cipher.decrypt(table, "subject", rid, blob)
        if stored:
            return stored
        from memvet.store.slots import derive_subject

        return derive_subject(statement, kind)

    def _candidate(self, row: tuple, now: datetime) -> dict | None:
        if not self._sealed("candidates", row, N_CAND):
            return None
        (
            rid,
            status,
            _u,
            _w,
            _k,
            kind,
            _p,
            source_type,
            _mac,
            host,
            confidence,
            evidence_count,
            created_at,
            expires,
            statement_ct,
            user_ct,
            ws_ct,
            session_ct,
            subject_ct,
            reasons_ct,
        ) = row
        try:
            dec = self.cipher.decrypt
            statement = dec("candidates", "statement", rid, statement_ct) or ""
            reasons = dec("candidates", "reasons", rid, reasons_ct)
            record = {
                "id": rid,
                "status": shown_status(
                    status, datetime.fromisoformat(expires) if expires else None, now
                ),
                "statement": statement,
                "kind": kind,
                "source_type": source_type,
                "host": host,
                "scope": self._scope("candidates", rid, user_ct, ws_ct, session_ct),
                "confidence": round(confidence, 3),
                "evidence_count": evidence_count,
                "created_at": iso_text(created_at),
                "subject": self._subject("candidates", rid, subject_ct, statement, kind),
                "reasons": json.loads(reasons) if reasons else [],
            }
        except fk.FastReadError:
            self._unreadable.add(rid)
            return None
        return record

    def _memory(self, row: tuple) -> dict | None:
        if not self._sealed("memories", row, N_MEM):
            return None
        (
            rid,
            status,
            _u,
            _w,
            _k,
            kind,
            _p,
            source_type,
            valid_from,
            valid_to,
            _e,
            _r,
            _mac,
            candidate_id,
            recorded_at,
            conflict_state,
            statement_ct,
            user_ct,
            ws_ct,
            session_ct,
            subject_ct,
        ) = row
        try:
            statement = self.cipher.decrypt("memories", "statement", rid, statement_ct) or ""
            return {
                "id": rid,
                "statement": statement,
                "kind": kind,
                "status": status,
                "scope": self._scope("memories", rid, user_ct, ws_ct, session_ct),
                "source_type": source_type,
                "candidate_id": candidate_id,
                "valid_from": iso_text(valid_from),
                "valid_to": iso_text(valid_to),
                "recorded_at": iso_text(recorded_at),
                "subject": self._subject("memories", rid, subject_ct, statement, kind),
                "conflict_state": conflict_state or "none",
            }
        except fk.FastReadError:
            self._unreadable.add(rid)
            return None

    # --- pages ----------------------------------------------------------------------------------
    def _scope_sql(self, workspace: str | None, all_scopes: bool) -> tuple[str, list]:
        if all_scopes:
            return "user_bidx = ?", [self.user_bidx]
        return scope_rule.SCOPE_SQL, [
            self.user_bidx,
            self.cipher.blind_index("workspace", workspace),
        ]

    def _cursor(self, table: str, column: str, after: str) -> str:
        row = self.conn.execute(
            f"SELECT {column} FROM {table} WHERE id = ? AND user_bidx = ?", (after, self.user_bidx)
        ).fetchone()
        if row is None:
            from memvet.store.errors import NotFoundError

            noun = "candidate" if table == "candidates" else "memory"
            raise NotFoundError(
                f"no {noun} {after} to page after (--after takes the id of the "
                "last record of the previous page)",
                id=after,
            )
        return row[0]

    def candidates(
        self, statuses: tuple[str, ...], *, limit: int | None, after: str | None = None
    ) -> Iterator[dict]:
        """The queue in creation order (oldest first), from past `after`; at most `limit`. The
        cursor is looked up now (a NotFoundError before any output); rows as iterated."""
        now, now_text = datetime.now(UTC), stored_now()
        where, params = self._scope_sql(None, True)
        shown, shown_params = status_sql(statuses, now_text)
        where, params = f"{where} AND ({shown})", [*params, *shown_params]
        if after is not None:
            where += " AND (created_at, id) > (?, ?)"
            params += [self._cursor("candidates", "created_at", after), after]
        query = f"SELECT {CAND_COLUMNS} FROM candidates WHERE {where} ORDER BY created_at, id"
        return self._pages(query, params, limit, lambda row: self._candidate(row, now))

    def memories(
        self,
        statuses: tuple[str, ...],
        *,
        workspace: str | None,
        all_scopes: bool,
        limit: int | None,
        after: str | None = None,
    ) -> Iterator[dict]:
        """Memories in scope, most recently recorded first, from past `after`."""
        where, params = self._scope_sql(workspace, all_scopes)
        where += f" AND status IN ({','.join('?' * len(statuses))})"
        params += list(statuses)
        if after is not None:  # the Store's order: newest first, ties by id
            at = self._cursor("memories", "recorded_at", after)
            where += " AND (recorded_at < ? OR (recorded_at = ? AND id > ?))"
            params += [at, at, after]
        query = f"SELECT {MEM_COLUMNS} FROM memories WHERE {where} ORDER BY recorded_at DESC, id"
        return self._pages(query, params, limit, self._memory)

    def _pages(self, query: str, params: list, limit: int | None, build) -> Iterator[dict]:  # noqa: ANN001
        """Rows are fetched as iterated; a row left out (unreadable) does not count toward the
        limit, so a short page still means the end."""
        taken = 0
        for row in self.conn.execute(query, params):
            record = build(row)
            if record is None:
                continue
            if limit is not None and taken == limit:
                yield {"__more__": True}
                return
            taken += 1
            yield record

    # --- counts (status) ------------------------------------------------------------------------
    def counts(self) -> dict[str, object]:
        """What Store.status() reports, by SQL counts only."""
        from memvet.store.leases import shown_counts

        q = self.conn.execute
        # Every approval keeps its candidate, so the queue table holds a row per memory: count
        # from the status index alone (no row reads) when every row is this user's, which two
        # index look-ups tell; `+user_bidx` keeps the expired count on the status index.
        lowest, highest = q(
            "SELECT (SELECT min(user_bidx) FROM candidates), "
            "(SELECT max(user_bidx) FROM candidates)"
        ).fetchone()
        only_ours = lowest == highest == self.user_bidx
        by_status = dict(
            q("SELECT status, count(*) FROM candidates GROUP BY status").fetchall()
            if only_ours
            else q(
                "SELECT status, count(*) FROM candidates WHERE user_bidx = ? GROUP BY status",
                (self.user_bidx,),
            ).fetchall()
        )
        expired = q(
            "SELECT count(*) FROM candidates WHERE +user_bidx = ? "
            f"AND status = '{CandidateStatus.RESERVED}' AND lease_expires_at < ?",
            (self.user_bidx, stored_now()),
        ).fetchone()[0]
        memories = dict(
            q(
                "SELECT status, count(*) FROM memories WHERE user_bidx = ? GROUP BY status",
                (self.user_bidx,),
            ).fetchall()
        )
        files, last = q("SELECT count(*), max(updated_at) FROM file_checkpoints").fetchone()
        sweeps = {
            job: datetime.fromisoformat(at).replace(tzinfo=UTC).isoformat()
            for job, at in q("SELECT job_id, last_success_at FROM sweep_runs")
        }
        provider = q(
            "SELECT provider FROM key_material ORDER BY created_at DESC LIMIT 1"
        ).fetchone()[0]
        return {
            "schema_version": fk.SCHEMA_VERSION,
            "key_provider": provider,
            "queue": shown_counts(by_status, expired),
            "memories": memories,
            "files_tracked": files,
            "last_ingest_at": iso_text(last),
            "sweeps": sweeps,
        }


def open_reader() -> ReadLayer | None:
    """The read layer on MEMVET_HOME's store, or None when the Store's path must serve."""
    from memvet.store.paths import memvet_home_text

    try:
        conn, cipher = fk.open_direct(memvet_home_text())
    except (fk.FastReadError, sqlite3.Error, OSError, ValueError):
        return None
    return ReadLayer(conn, cipher, current_user())


def with_unreadable(store: object, payload: dict) -> dict:
    """A list command's payload, with the rows its reads had to skip (ids only) under
    `unreadable` and named in one line on stderr (stdout keeps its one JSON document)."""
    skipped = unreadable_seen(store)
    return payload if skipped is None else {**payload, "unreadable": skipped}


def unreadable_seen(store: object) -> dict | None:
    """The rows the store's reads had to skip ({"count", "ids"}), named on stderr; None if none."""
    skipped = store.unreadable()  # type: ignore[attr-defined]
    if not skipped["count"]:
        return None
    warn_unreadable(skipped)
    return skipped


def warn_unreadable(skipped: dict) -> None:
    import sys

    shown = ", ".join(skipped["ids"][:10]) + (" …" if skipped["count"] > 10 else "")
    print(
        f"memvet: {skipped['count']} record(s) left out: they failed authentication (altered "
        f"without the key): {shown}; run `memvet doctor` and `memvet audit verify`",
        file=sys.stderr,
    )
