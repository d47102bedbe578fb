"""Reading team rows: each one's MAC checked and fields decrypted under the team key. A row
that fails is skipped and counted, never shown (as in the local store)."""

from __future__ import annotations

from datetime import UTC

from memvet.store.errors import IntegrityError
from memvet.store.team.items import CAND_COLS, MEM_COLS, TOMB_COLS
from memvet.store.team.session import TeamSession, check_seal
from memvet.store.vocabulary import CandidateStatus

TABLES = {"team_candidates": CAND_COLS, "team_memories": MEM_COLS, "team_tombstones": TOMB_COLS}


def _decoded(session: TeamSession, table: str, row: tuple) -> dict:
    c = session.cipher()
    item = dict(zip(TABLES[table], row, strict=True))
    check_seal(c, table, item["id"], item)
    item["statement"] = c.decrypt(table, "statement", item["id"], item.pop("statement_ct"))
    item["remote"] = c.decrypt(table, "workspace", item["id"], item.pop("workspace_ct"))
    return item


def changes(session: TeamSession, table: str, after: int, limit: int = 2000) -> tuple[list, int]:
    """Rows of `table` changed after change number `after`, oldest first; (rows, unreadable)."""
    rows = session.conn.execute(
        f"SELECT {', '.join(TABLES[table])} FROM {table} WHERE team_id = %s AND seq > %s "
        "ORDER BY seq LIMIT %s",
        (session.team_id, after, limit),
    ).fetchall()
    out, bad = [], 0
    for row in rows:
        try:
            out.append(_decoded(session, table, row))
        except IntegrityError:
            bad += 1
            out.append({"id": row[0], "seq": row[TABLES[table].index("seq")], "unreadable": True})
    return out, bad


def candidates(
    session: TeamSession, statuses: tuple[str, ...] = (CandidateStatus.PENDING,)
) -> list[dict]:
    """Team candidates by shown status: a reservation whose lease ran out (by the server's
    clock) is `stale`, as in the local store; each carries its lease holder and expiry."""
    session.cipher()
    rows = session.conn.execute(
        f"SELECT {', '.join(CAND_COLS)}, lease_owner, lease_expires_at, shown FROM ("
        f"SELECT *, CASE WHEN status = '{CandidateStatus.RESERVED}' AND lease_expires_at < now() "
        f"THEN '{CandidateStatus.STALE}' "
        "ELSE status END AS shown FROM team_candidates WHERE team_id = %s) AS c "
        "WHERE shown = ANY(%s) ORDER BY created_at",
        (session.team_id, list(statuses)),
    ).fetchall()
    out = []
    width = len(CAND_COLS)
    for row in rows:
        try:
            item = _decoded(session, "team_candidates", row[:width])
        except IntegrityError:
            continue
        owner, expires, item["status"] = row[width:]
        item["lease"] = {"owner": owner, "expires_at": expires.astimezone(UTC)} if owner else None
        out.append(item)
    return out
