"""The daemon's `memvet recall` between requests (store/recall_route.py, issue 15): one read
connection and data key kept open, and what no question changes while the store does not kept
with them: the counts recall's rarity is computed from (how many memories the scope has, how
many hold a common word: each walks an index as long as the store, ~50 ms at 100k memories)
and the memories decrypted so far (a row MAC and six fields each).

Both are dropped as soon as anything commits, by any connection of any process: SQLite's
`PRAGMA data_version` on the kept connection moves then (the connection itself only reads),
and the store file's identity is checked too (a store replaced on disk). The version is read
before and after each answer; a commit meanwhile drops what that answer cached. So an answer is
the one recall_read.recall_direct computes on a fresh connection (tests/store/
test_recall_serving.py compares them).
"""

from __future__ import annotations

import os
import sqlite3
import threading

from memvet.store import fast_keys as fk
from memvet.store.read_layer import unreadable_seen
from memvet.store.recall_read import RecallSource

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from memvet.store.recall_decision import RecallDecision
    from memvet.store.records import Memory

COUNT_SQL = "SELECT count(*) FROM "  # a scalar aggregate: one small row, worth keeping
MAX_COUNTS = 4096  # kept counts (a few per question); more: start again
MAX_MEMORIES = 5000  # kept decrypted memories (~350 read per question); more: start again
Kept = tuple  # a count's (cursor description, rows)


class RecallServing:
    """recall_direct's decision for the store in `home`, on a connection kept between calls.
    Calls may come from any thread; they run one at a time."""

    def __init__(self, home: str) -> None:
        self.home = home
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._cipher: fk.FastCipher | None = None
        self._seen: tuple[int, tuple[int, int]] | None = None  # data_version, file identity
        self.counts: dict[tuple[str, tuple], Kept] = {}
        self.memories: dict[str, Memory] = {}

    def decision(
        self, query: str, workspace: str | None, as_of: datetime | None, user: str
    ) -> RecallDecision | None:
        """The decision (with `unreadable`), or None when the command must answer itself."""
        with self._lock:
            try:
                conn, cipher = self._current()
                source = _KeptSource(self, conn, cipher, user)
                decision = source.recall(query, workspace, as_of)
                if self._state(conn) != self._seen:  # a commit meanwhile: keep nothing of it
                    self._forget()
                return decision.with_unreadable(unreadable_seen(source))
            except (fk.FastReadError, sqlite3.Error, OSError, ValueError):
                self._close()  # opened again by the next request
                return None
            except BaseException:  # never a connection left inside a read transaction
                self._close()
                raise

    def close(self) -> None:
        with self._lock:
            self._close()

    def _current(self) -> tuple[sqlite3.Connection, fk.FastCipher]:
        """The kept connection and key, opened again (and the caches dropped) after a commit."""
        if self._conn is not None and self._state(self._conn) == self._seen:
            assert self._cipher is not None
            return self._conn, self._cipher
        self._close()  # a commit may have changed the key or the schema too: all from the file
        self._conn, self._cipher = fk.open_direct(self.home, any_thread=True)
        self._seen = self._state(self._conn)
        return self._conn, self._cipher

    def _state(self, conn: sqlite3.Connection) -> tuple[int, tuple[int, int]]:
        found = os.stat(os.path.join(self.home, "memvet.db"))
        return conn.execute("PRAGMA data_version").fetchone()[0], (found.st_dev, found.st_ino)

    def _forget(self) -> None:
        self.counts.clear()
        self.memories.clear()
        self._seen = None  # the next request opens the store again

    def _close(self) -> None:
        self._forget()
        if self._conn is not None:
            self._conn.close()
        self._conn = self._cipher = None


class _KeptSource(RecallSource):
    """RecallSource over the kept connection: counts and decrypted memories from the caches."""

    def __init__(
        self, serving: RecallServing, conn: sqlite3.Connection, cipher: fk.FastCipher, user: str
    ) -> None:
        super().__init__(_CountsKept(conn, serving.counts), cipher, user)  # type: ignore[arg-type]
        self._kept = serving.memories

    def memories_by_id(self, _conn: object, ids: list[str]) -> list[Memory]:
        """The memories of `ids` (in no particular order: recall sorts them, as the SQL gives
        none); a row that fails authentication is not kept, so it is reported each time."""
        missing = [i for i in ids if i not in self._kept]
        if len(self._kept) + len(missing) > MAX_MEMORIES:
            self._kept.clear()
            missing = list(ids)
        if missing:
            self._kept.update((m.id, m) for m in super().memories_by_id(_conn, missing))
        return [self._kept[i] for i in ids if i in self._kept]


class _CountsKept:
    """The sqlite3 connection RecallSource reads through, a count's rows answered from `counts`."""

    def __init__(self, conn: sqlite3.Connection, counts: dict[tuple[str, tuple], Kept]) -> None:
        self._conn, self._counts = conn, counts

    def execute(self, sql: str, params: tuple = ()) -> sqlite3.Cursor | _Rows:
        if not sql.startswith(COUNT_SQL):
            return self._conn.execute(sql, params)
        key = (sql, tuple(params))
        kept = self._counts.get(key)
        if kept is None:
            if len(self._counts) >= MAX_COUNTS:
                self._counts.clear()
            cursor = self._conn.execute(sql, params)
            kept = self._counts[key] = (cursor.description, cursor.fetchall())
        return _Rows(kept[0], kept[1])


class _Rows:
    """A kept count's cursor: what RecallSource and IndexedScope read of one."""

    def __init__(self, description: Any, rows: list[Any]) -> None:
        self.description, self._rows = description, iter(rows)

    def __iter__(self) -> _Rows:
        return self

    def __next__(self) -> tuple:
        return next(self._rows)

    def fetchone(self) -> tuple | None:
        return next(self._rows, None)

    def fetchall(self) -> list[tuple]:
        return list(self._rows)
