"""Migration m004_norm2_keys, its keyed part: every content key re-derived with the `norm2`
canonicalisation, and every tombstone given its statement key and scope.

It needs the store's cipher (the statements are encrypted), so `migrate` hands it in; a brand-new
store has no rows and no key yet. A tombstone takes the key, statement, scope and kind of the
row it was written for (its source: the rejected candidate or the retired memory), because its
own preview holds only the first 120 characters. Two tombstones that norm2 makes one are merged
(the older kept, their repeat counts added). A row that cannot be decrypted keeps its old key
and is counted, never a failed migration: reads report it as unreadable.
"""

from __future__ import annotations

from collections import Counter

import sqlalchemy as sa
from memvet.store import row_mac
from sqlalchemy import Connection

PREVIEW = 120


def _sealed(conn: Connection, table: str) -> bool:
    return any(c["name"] == "row_mac" for c in sa.inspect(conn).get_columns(table))


def _intact(conn: Connection, cipher, table: str) -> set[str]:  # noqa: ANN001
    """Ids of the rows whose row MAC holds now: only these are sealed again after the re-key
    (sealing a row altered without the key would launder the alteration)."""
    if not _sealed(conn, table):
        return set()
    id_name = row_mac.SEALED[table][0]
    return {
        r[id_name]
        for r in conn.execute(sa.text(f"SELECT * FROM {table}")).mappings()
        if row_mac.intact(cipher.row_key, table, r)
    }


def _reseal(conn: Connection, cipher, table: str, ids: set[str]) -> None:  # noqa: ANN001
    if not ids:
        return
    id_name = row_mac.SEALED[table][0]
    updates = [
        {"id": r[id_name], "mac": row_mac.seal(cipher.row_key, table, r)}
        for r in conn.execute(sa.text(f"SELECT * FROM {table}")).mappings()
        if r[id_name] in ids
    ]
    conn.execute(sa.text(f"UPDATE {table} SET row_mac = :mac WHERE {id_name} = :id"), updates)


def _decrypt_all(cipher, table: str, row: sa.Row) -> tuple[str, str, str | None] | None:  # noqa: ANN001
    try:
        statement = cipher.decrypt(table, "statement", row.id, row.statement_ct) or ""
        user = cipher.decrypt(table, "user", row.id, row.user_ct) or ""
        workspace = cipher.decrypt(table, "workspace", row.id, row.workspace_ct)
    except Exception:  # noqa: BLE001 - an unreadable row stays as it is
        return None
    return statement, user, workspace


def _rekey_rows(
    conn: Connection,
    cipher,
    table: str,  # noqa: ANN001
    skipped: Counter,
) -> dict[str, tuple[str, str, str | None]]:
    """New content keys for one table; returns id -> (statement, user, workspace)."""
    plain: dict[str, tuple[str, str, str | None]] = {}
    updates = []
    for row in conn.execute(
        sa.text(f"SELECT id, kind, statement_ct, user_ct, workspace_ct FROM {table}")
    ):
        found = _decrypt_all(cipher, table, row)
        if found is None:
            skipped[table] += 1
            continue
        statement, user, workspace = found
        plain[row.id] = found
        updates.append(
            {"id": row.id, "key": cipher.content_key(user, workspace, None, row.kind, statement)}
        )
    if updates:
        conn.execute(sa.text(f"UPDATE {table} SET content_key = :key WHERE id = :id"), updates)
    return plain


def rekey_norm2(conn: Connection, cipher) -> Counter:  # noqa: ANN001
    """Returns the rows left as they were, per table (all zero on a healthy store)."""
    skipped: Counter = Counter()
    if cipher is None:
        if any(
            conn.execute(sa.text(f"SELECT 1 FROM {t} LIMIT 1")).first()
            for t in ("candidates", "memories", "tombstones")
        ):
            raise RuntimeError("m004_norm2_keys needs the store's key to re-derive content keys")
        return skipped
    intact = {t: _intact(conn, cipher, t) for t in ("candidates", "memories", "tombstones")}
    sources = {
        "candidates": _rekey_rows(conn, cipher, "candidates", skipped),
        "memories": _rekey_rows(conn, cipher, "memories", skipped),
    }
    keys = {
        t: dict(conn.execute(sa.text(f"SELECT id, content_key FROM {t}")).all()) for t in sources
    }
    merged: dict[str, dict] = {}
    old_keys = []
    for tomb in conn.execute(sa.text("SELECT * FROM tombstones ORDER BY created_at")).mappings():
        table = "memories" if (tomb["source_id"] or "").startswith("m_") else "candidates"
        source = sources[table].get(tomb["source_id"] or "")
        if source is None:
            skipped["tombstones"] += 1  # its source is gone or unreadable: it stays as it is
            continue
        statement, user, workspace = source
        new_key = keys[table][tomb["source_id"]]
        old_keys.append(tomb["content_key"])
        if tomb["content_key"] in intact["tombstones"]:
            intact["tombstones"].add(new_key)
        if new_key in merged:
            kept = merged[new_key]
            kept["seen_again"] += tomb["seen_again"]
            if tomb["lifted_at"] is None:
                kept["lifted_at"] = None  # one live tombstone keeps the merged one live
            continue
        merged[new_key] = {
            **tomb,
            "content_key": new_key,
            "statement_key": cipher.statement_key(user, statement),
            "workspace_bidx": cipher.blind_index("workspace", workspace),
            "preview_ct": cipher.encrypt("tombstones", "preview", new_key, statement[:PREVIEW]),
        }
    if old_keys:
        conn.execute(
            sa.text("DELETE FROM tombstones WHERE content_key = :k"), [{"k": k} for k in old_keys]
        )
    if merged:
        rows = list(merged.values())
        columns = list(rows[0])
        conn.execute(
            sa.text(
                f"INSERT INTO tombstones ({', '.join(columns)}) VALUES "
                f"({', '.join(':' + c for c in columns)})"
            ),
            rows,
        )
    for table, ids in intact.items():
        _reseal(conn, cipher, table, ids)
    return skipped
