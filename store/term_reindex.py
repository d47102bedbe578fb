"""Keeping the recall index current (term_index.py's postings): every memory indexed afresh
(migration m007), and the memories the triggers queued as stale re-indexed by the next writer
(context.py, bulk.py). Their text is decrypted here, under the Store's cipher.
"""

from __future__ import annotations

import json

from memvet.store import term_index as ti

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    import sqlalchemy as sa


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
