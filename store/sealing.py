"""Row MACs through SQLAlchemy: sealing inserts and updates, checking rows on read.

An update re-seals from the row's current values, so it first checks them: re-sealing a row
someone altered without the key would launder the alteration. A row that fails is reported as
`RowSealError` (an IntegrityError, like a ciphertext that fails authentication); list reads skip
it and report it (context.py), lifecycle writes refuse it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import sqlalchemy as sa
from memvet.store import row_mac
from memvet.store.crypto import FieldCipher
from memvet.store.errors import IntegrityError
from sqlalchemy import Connection

NOUNS = {"memories": "memory", "candidates": "candidate", "tombstones": "tombstone"}
CHUNK = 500  # ids per IN query


class RowSealError(IntegrityError):
    """A row's lifecycle, scope or validity columns do not match their MAC."""

    def __init__(self, table: str, row_id: str) -> None:
        shown = row_id[:16] if table == "tombstones" else row_id
        super().__init__(
            f"{NOUNS.get(table, table)} {shown} failed its integrity check: its status, scope or "
            "validity was changed without the key (or it has no seal); it is left out. "
            "Run `memvet audit verify` and `memvet doctor`.",
            table=table,
            id=row_id,
        )


def seal(cipher: FieldCipher, table: str, values: Mapping) -> str:
    """The MAC of a row about to be inserted (its complete values)."""
    return row_mac.seal(cipher.row_key, table, values)


def check(cipher: FieldCipher, table: str, row: sa.Row | Mapping) -> None:
    mapping = row._mapping if isinstance(row, sa.Row) else row
    if not row_mac.intact(cipher.row_key, table, mapping):
        raise RowSealError(table, str(mapping[row_mac.SEALED[table][0]]))


def resealed(
    conn: Connection,
    cipher: FieldCipher,
    table: sa.Table,
    row_id: str,
    changes: Mapping,
    *,
    row: sa.Row | None = None,
) -> str | None:
    """The MAC the row will have once `changes` are applied; None when there is no such row.
    The current values are checked first (RowSealError)."""
    if row is None:
        id_column = table.c[row_mac.SEALED[table.name][0]]
        row = conn.execute(sa.select(table).where(id_column == row_id)).first()
        if row is None:
            return None
    check(cipher, table.name, row)
    return row_mac.seal(cipher.row_key, table.name, {**row._mapping, **changes})


def resealed_many(
    conn: Connection, cipher: FieldCipher, table: sa.Table, ids: Iterable[str], changes: Mapping
) -> dict[str, str]:
    """`resealed` for many rows with the same changes, a few IN queries in all."""
    id_name = row_mac.SEALED[table.name][0]
    wanted, out = list(ids), {}
    for i in range(0, len(wanted), CHUNK):
        for row in conn.execute(
            sa.select(table).where(table.c[id_name].in_(wanted[i : i + CHUNK]))
        ):
            out[row._mapping[id_name]] = resealed(conn, cipher, table, "", changes, row=row)
    return out


# --- after a migration ------------------------------------------------------------------------------
SEALED_MARK = "rows_sealed"  # store_meta: every row has had a MAC since this was written


def _is_sealed(conn: Connection) -> bool:
    return (
        conn.execute(sa.text("SELECT 1 FROM store_meta WHERE key = :k"), {"k": SEALED_MARK}).first()
        is not None
    )


def _sealable(conn: Connection, table: str) -> bool:
    id_name, columns = row_mac.SEALED[table]
    present = {c["name"] for c in sa.inspect(conn).get_columns(table)}
    return {id_name, "row_mac", *columns} <= present


def _rows(conn: Connection, table: str):  # noqa: ANN202 - raw rows: times as SQLite holds them
    id_name, columns = row_mac.SEALED[table]
    return conn.execute(
        sa.text(f"SELECT {id_name}, {', '.join(columns)}, row_mac FROM {table}")
    ).mappings()


def before_migration(conn: Connection, cipher: FieldCipher | None) -> tuple[set, set]:
    """What `seal_after_migration` needs to know from before the steps ran: the rows that fail
    their MAC already (never re-sealed: that would launder them) and the tombstones there were."""
    failing: set[tuple[str, str]] = set()
    if not sa.inspect(conn).has_table("tombstones"):
        return failing, set()
    tombstones = {r[0] for r in conn.execute(sa.text("SELECT content_key FROM tombstones"))}
    if cipher is not None and _is_sealed(conn):
        for table, (id_name, _) in row_mac.SEALED.items():
            if _sealable(conn, table):
                failing |= {
                    (table, r[id_name])
                    for r in _rows(conn, table)
                    if not row_mac.intact(cipher.row_key, table, r)
                }
    return failing, tombstones


def seal_after_migration(
    conn: Connection, cipher: FieldCipher | None, failing: set, tombstones_before: set
) -> int:
    """Run in the last migration step's transaction: seal every row a step wrote or changed
    (the first time: every row), record each in the audit chain, anchor the chain's head.
    Rows that failed before the migration stay as they were. Returns how many were sealed."""
    from memvet.store.audit import anchor_head, append_events, entity_name
    from memvet.store.errors import StoreUnavailableError

    if not all(_sealable(conn, t) for t in row_mac.SEALED):
        return 0  # migrated to a version before m003_row_mac
    first, events = not _is_sealed(conn), []
    if cipher is None:
        if any(conn.execute(sa.text(f"SELECT 1 FROM {t} LIMIT 1")).first() for t in row_mac.SEALED):
            raise StoreUnavailableError("upgrading this store needs its key; run `memvet migrate`")
    else:
        from datetime import UTC, datetime

        now, tombstones_now = datetime.now(UTC), set()
        for table, (id_name, _) in row_mac.SEALED.items():
            entity, updates = NOUNS[table], []
            for row in _rows(conn, table):
                rid = row[id_name]
                if table == "tombstones":
                    tombstones_now.add(rid)
                if (table, rid) in failing or (row["row_mac"] is None and not first):
                    continue
                if not row_mac.intact(cipher.row_key, table, row):
                    updates.append({"i": rid, "m": row_mac.seal(cipher.row_key, table, row)})
                    events.append(
                        (now, "migrate", "store.sealed", entity, entity_name(entity, rid), None)
                    )
            if updates:
                conn.execute(
                    sa.text(f"UPDATE {table} SET row_mac = :m WHERE {id_name} = :i"), updates
                )
        gone = {
            ("tombstone", entity_name("tombstone", k)) for k in tombstones_before - tombstones_now
        }
        events += [(now, "migrate", "store.merged", "tombstone", name, None) for _, name in gone]
        append_events(conn, cipher, events, gone=frozenset(gone))
        anchor_head(conn, cipher)
    if first:
        conn.execute(
            sa.text("INSERT INTO store_meta (key, value) VALUES (:k, 'v1')"), {"k": SEALED_MARK}
        )
    return len(events)
