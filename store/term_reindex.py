"""Keeping the recall index current (term_index.py's postings): every memory indexed afresh
(migration m007), the memories the triggers queued as stale re-indexed by the next writer
(context.py, bulk.py), and every memory re-indexed when the vocabulary that shapes its terms
changed (term_vocabulary.py; the daemon's `sweep.reindex_terms`). Their text is decrypted here,
under the Store's cipher.

The vocabulary sweep works in slices of SLICE memories in id order, one write transaction each,
with a pause between them, like the re-redaction sweep: a memory's postings are replaced whole
in one transaction, so recall reads either its old postings (which still find it by every term
both vocabularies share) or its new ones, never none. Each slice records how far it got; a sweep
cut short continues from there, and the stamp is recorded after the last slice.
"""

from __future__ import annotations

import json
import time

from memvet.store import term_index as ti
from memvet.store import term_vocabulary as tv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    import sqlalchemy as sa

SLICE = 500  # memories re-indexed per write transaction by the vocabulary sweep
PAUSE_S = 0.12  # between slices: longer than SQLite's longest busy-wait step (100 ms)
_META_SQL = "SELECT value FROM store_meta WHERE key = ?"
_SET_META_SQL = "INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)"


def _texts(
    conn: sa.Connection, cipher: Any, ids: list[str] | None
) -> Iterator[tuple[str, str, str]]:
    """(id, statement, subject) of memories; one that cannot be decrypted gets no postings
    (reads skip it as unreadable) and is cleared all the same."""
    from memvet.store.slots import derive_subject

    sql = "SELECT id, kind, statement_ct, subject_ct FROM memories"
    rows = (
        conn.exec_driver_sql(sql)
        if ids is None
        else conn.exec_driver_sql(f"{sql} WHERE id IN ({ti.IDS_SQL})", (json.dumps(ids),))
    )
    for rid, kind, statement_ct, subject_ct in rows.all():
        try:
            statement = cipher.decrypt("memories", "statement", rid, statement_ct) or ""
            subject = cipher.decrypt("memories", "subject", rid, subject_ct) or derive_subject(
                statement, kind
            )
        except Exception:  # noqa: BLE001 - IntegrityError: altered, or another key
            yield rid, "", ""
            continue
        yield rid, statement, subject


def _reindex(conn: sa.Connection, cipher: Any, ids: list[str] | None) -> int:
    return ti.reindex(
        conn.exec_driver_sql, conn.exec_driver_sql, cipher.term_key, _texts(conn, cipher, ids)
    )


def index_all(conn: sa.Connection, cipher: Any) -> int:
    """Every memory indexed afresh (migration m007)."""
    return _reindex(conn, cipher, None)


def reindex_stale(conn: sa.Connection, cipher: Any) -> int:
    """The memories whose text changed since they were indexed (the triggers' queue)."""
    stale = [r[0] for r in conn.exec_driver_sql(ti.STALE_SQL).all()]
    return _reindex(conn, cipher, stale) if stale else 0


def _meta(conn: sa.Connection, key: str) -> str | None:
    return conn.exec_driver_sql(_META_SQL, (key,)).scalar()


def record_vocabulary(conn: sa.Connection) -> None:
    """Every memory's postings follow today's vocabulary (a new store, or a sweep's end)."""
    conn.exec_driver_sql(_SET_META_SQL, (tv.META_KEY, tv.vocabulary_stamp()))
    conn.exec_driver_sql("DELETE FROM store_meta WHERE key = ?", (tv.PROGRESS_KEY,))


def reindex_for_vocabulary(
    store: Any, *, force: bool = False, size: int | None = None
) -> int | None:
    """Every memory re-indexed when the recorded vocabulary stamp is not today's (or `force`):
    the count re-indexed by this run, None when the stamp was current. In slices of `size`;
    one audit event at the end, with the stamp and the count only."""
    stamp, size = tv.vocabulary_stamp(), size or SLICE
    with store.ctx.read() as conn:
        if not force and _meta(conn, tv.META_KEY) == stamp:
            return None
        progress = json.loads(_meta(conn, tv.PROGRESS_KEY) or "{}")
    after = progress.get("after", "") if progress.get("stamp") == stamp and not force else ""
    done = 0
    while True:
        with store.ctx.write() as conn:
            ids = [
                r[0]
                for r in conn.exec_driver_sql(
                    "SELECT id FROM memories WHERE id > ? ORDER BY id LIMIT ?", (after, size)
                ).all()
            ]
            if not ids:
                break
            done += _reindex(conn, store.ctx.cipher, ids)
            after = ids[-1]
            mark = json.dumps({"stamp": stamp, "after": after})
            conn.exec_driver_sql(_SET_META_SQL, (tv.PROGRESS_KEY, mark))
        time.sleep(PAUSE_S)  # let a writer waiting for the store in
    with store.ctx.write() as conn:
        record_vocabulary(conn)
        store.ctx.audit(conn, "sweep", "store.reindexed", "store", stamp, f"memories {done}")
    return done
