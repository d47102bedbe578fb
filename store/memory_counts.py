"""How many memories each scope holds, by status, and how many hold each blind term, kept by
SQLite triggers (issue 15): the session-start footer's count and the prompt path's corpus size
without a COUNT over the scope (28 of the 32 ms of the direct session-start hook's SQL at 100k
memories), a term's rarity without walking its postings (recall_classes.plan).

`memory_counts` has one row per (user index, workspace index or '' for the user's global
memories, status, plain): `plain` is a memory with neither an end (valid_to) nor a TTL
(expires_at), in force from its valid_from on. The triggers (migration m012) run inside the
statement that changes a memory, so every write path, present or future, keeps the counts
current, in the same transaction: a crash or a rollback leaves them as right as the rows.

What is in force at `now` is the plain active count, less the plain ones that start after
`now` (a range of ix_memories_in_force), plus the bounded ones in force (ix_memories_bounded,
a partial index of the few with an end or a TTL): each term read from an index, the result what
a COUNT(*) with scope.IN_FORCE gives. Standard library only, like fast_read.py.
"""

from __future__ import annotations

from memvet.store import scope as scope_rule

PLAIN_SQL = "({0}.valid_to IS NULL AND {0}.expires_at IS NULL)"
BOUNDED_SQL = "(valid_to IS NOT NULL OR expires_at IS NOT NULL)"  # ix_memories_bounded's WHERE
_KEY = ("ifnull({0}.user_bidx, '')", "ifnull({0}.workspace_bidx, '')", "{0}.status", PLAIN_SQL)
_MATCH = " AND ".join(
    f"{column} = {value}"
    for column, value in zip(("user_bidx", "workspace_bidx", "status", "plain"), _KEY, strict=True)
)


def _add(row: str) -> str:
    return (
        f"INSERT INTO memory_counts (user_bidx, workspace_bidx, status, plain, n) "
        f"VALUES ({', '.join(_KEY).format(row)}, 1) "
        "ON CONFLICT (user_bidx, workspace_bidx, status, plain) DO UPDATE SET n = n + 1;"
    )


def _remove(row: str) -> str:
    return f"UPDATE memory_counts SET n = n - 1 WHERE {_MATCH.format(row)};"


_CHANGED = " OR ".join(
    f"OLD.{c} IS NOT NEW.{c}"
    for c in ("user_bidx", "workspace_bidx", "status", "valid_to", "expires_at")
)
SCHEMA_SQL = (
    "CREATE TABLE memory_counts (user_bidx VARCHAR(64) NOT NULL, "
    "workspace_bidx VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL, plain INTEGER NOT NULL, "
    "n INTEGER NOT NULL, PRIMARY KEY (user_bidx, workspace_bidx, status, plain))",
    f"CREATE TRIGGER memory_counts_insert AFTER INSERT ON memories BEGIN {_add('NEW')} END",
    f"CREATE TRIGGER memory_counts_delete AFTER DELETE ON memories BEGIN {_remove('OLD')} END",
    "CREATE TRIGGER memory_counts_update AFTER UPDATE OF user_bidx, workspace_bidx, status, "
    f"valid_to, expires_at ON memories WHEN {_CHANGED} BEGIN {_remove('OLD')} {_add('NEW')} END",
    f"CREATE INDEX ix_memories_bounded ON memories (user_bidx, workspace_bidx, status) "
    f"WHERE {BOUNDED_SQL}",
)
# How many memories hold each blind token (term_index.py's postings), per field: a term's
# rarity without walking its postings (recall_classes.plan).
_POSTED = "INSERT INTO term_counts (token, field, n) VALUES ({0}.token, {0}.field, 1) ON CONFLICT (token, field) DO UPDATE SET n = n + 1;"
_UNPOSTED = "UPDATE term_counts SET n = n - 1 WHERE token = {0}.token AND field = {0}.field;"
TERM_SCHEMA_SQL = (
    "CREATE TABLE term_counts (token BLOB NOT NULL, field INTEGER NOT NULL, n INTEGER NOT NULL, "
    "PRIMARY KEY (token, field)) WITHOUT ROWID",
    f"CREATE TRIGGER term_counts_insert AFTER INSERT ON term_postings BEGIN {_POSTED.format('NEW')} END",
    f"CREATE TRIGGER term_counts_delete AFTER DELETE ON term_postings BEGIN {_UNPOSTED.format('OLD')} END",
    "CREATE TRIGGER term_counts_update AFTER UPDATE ON term_postings BEGIN "
    f"{_UNPOSTED.format('OLD')} {_POSTED.format('NEW')} END",
)
# The counts of the rows already there (the migration; `recount` after a repair).
FILL_SQL = (
    "INSERT INTO memory_counts (user_bidx, workspace_bidx, status, plain, n) "
    f"SELECT {', '.join(_KEY).format('memories')}, count(*) FROM memories GROUP BY 1, 2, 3, 4",
    "INSERT INTO term_counts (token, field, n) "
    "SELECT token, field, count(*) FROM term_postings GROUP BY token, field",
)
TERM_COUNT_SQL = "SELECT n FROM term_counts WHERE token = ? AND field = ?"
# The scope rule over the counts, where '' stands for "no workspace".
_SCOPE_SQL = scope_rule.sql(scope_rule.SCOPE, "nullif({}_bidx, '')")[0]
_PARTS = scope_rule.SCOPE_PARTS_SQL  # over memories: one index range per workspace case


def recount(conn: object) -> None:
    """Counts rebuilt from the rows (run(sql) on an open transaction)."""
    for table in ("memory_counts", "term_counts"):
        conn.execute(f"DELETE FROM {table}")  # type: ignore[attr-defined]
    for sql in FILL_SQL:
        conn.execute(sql)  # type: ignore[attr-defined]


def in_scope(conn: object, params: tuple, statuses: tuple[str, ...]) -> int:
    """Memories of these statuses in scope (params: the user and workspace blind indexes)."""
    marks = ", ".join("?" * len(statuses))
    row = conn.execute(  # type: ignore[attr-defined]
        f"SELECT total(n) FROM memory_counts WHERE {_SCOPE_SQL} AND status IN ({marks})",
        (*params, *statuses),
    ).fetchone()
    return int(row[0])


def everyone(conn: object) -> int:
    """Every memory of the store, any scope and status."""
    return int(conn.execute("SELECT total(n) FROM memory_counts").fetchone()[0])  # type: ignore[attr-defined]


def in_force(conn: object, params: tuple, status: str, now: str) -> int:
    """Memories of `status` in scope and in force at `now` (scope.IN_FORCE)."""
    by_name = {"user": params[0], "workspace": params[1]}
    plain = PLAIN_SQL.format("memories")
    late = f"status = ? AND {plain} AND valid_from > ?"
    bounded = f"{BOUNDED_SQL} AND status = ? AND {scope_rule.IN_FORCE_SQL}"
    counts, values = [], []
    for table, where, extra in (
        ("memories", late, (status, now)),
        # INDEXED BY: the planner would rather walk the scope's in-force range than a partial index
        ("memories INDEXED BY ix_memories_bounded", bounded, (status, now, now, now)),
    ):
        for part, names in _PARTS:
            counts.append(f"(SELECT count(*) FROM {table} WHERE {part} AND {where})")
            values.extend((*(by_name[n] for n in names), *extra))
    late_n, bounded_n = (
        " + ".join(counts[: len(_PARTS)]),
        " + ".join(counts[len(_PARTS) :]),
    )
    row = conn.execute(  # type: ignore[attr-defined]
        f"SELECT (SELECT total(n) FROM memory_counts WHERE {_SCOPE_SQL} AND status = ? "
        f"AND plain = 1) - ({late_n}) + ({bounded_n})",
        (*params, status, *values),
    ).fetchone()
    return int(row[0])
