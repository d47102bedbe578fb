"""Re-redaction of stored text when the redaction rule set changes (issue 14).

Text is redacted when it enters the store; a rule added later (a new provider's token shape)
must still reach what was stored before it. `reredact_stored(store, now)` runs when the
rule-set version recorded in `store_meta` (`redaction_ruleset`) is not the current one
(redaction.rule_engine.ruleset_version): every statement and usage boundary of candidates and
memories, every evidence excerpt and every tombstone preview is decrypted, redacted with
today's rules and, where that changed it, encrypted again. A changed statement gets its new
content key (so the same text arriving later still merges, and a memory still counts as
known); a tombstone whose source changed gets a second tombstone under the new key, so a
rejected statement stays rejected. Rows that fail their MAC are left as they are and reported.
Audit previews are not rewritten: they are part of the hash chain (each 120 characters,
encrypted, shown by no read surface). One audit event records the counts, no text.

It works in slices of SLICE rows, one write transaction each, with a pause between them: at
100k memories the whole sweep takes minutes, and in one transaction every approval and ingest
meanwhile failed as "store busy". A row, its new content key, its tombstone's twin and its
audit event are written in the same slice; the version is recorded after the last one, so a
sweep cut short runs again (redacting redacted text changes nothing).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from memvet.store import row_mac
from memvet.store.audit import append_events
from memvet.store.redaction import redact
from memvet.store.redaction.rule_engine import ruleset_version

META_KEY = "redaction_ruleset"
SLICE = 500  # rows per write transaction
PAUSE_S = 0.12  # between slices: longer than SQLite's longest busy-wait step (100 ms)
TEXT_COLUMNS = {
    "candidates": ("statement", "usage_boundary"),
    "memories": ("statement", "usage_boundary"),
}


def recorded_version(conn: sa.Connection) -> str | None:
    return conn.execute(
        sa.text("SELECT value FROM store_meta WHERE key = :k"), {"k": META_KEY}
    ).scalar()


def _record(conn: sa.Connection, version: str) -> None:
    conn.execute(sa.text("DELETE FROM store_meta WHERE key = :k"), {"k": META_KEY})
    conn.execute(
        sa.text("INSERT INTO store_meta (key, value) VALUES (:k, :v)"),
        {"k": META_KEY, "v": version},
    )


def _again(text: str | None) -> str | None:
    return None if text is None else redact(text).text


def _slices(store: Any, table: str, key: str) -> Iterator[tuple[sa.Connection, list[str]]]:
    """(write transaction, ids) per slice of `table`, in key order, pausing between slices."""
    after = ""
    while True:
        with store.ctx.write() as conn:
            ids = list(
                conn.execute(
                    sa.text(f"SELECT {key} FROM {table} WHERE {key} > :a ORDER BY {key} LIMIT :n"),
                    {"a": after, "n": SLICE},
                ).scalars()
            )
            if not ids:
                return
            yield conn, ids
        after = ids[-1]
        time.sleep(PAUSE_S)  # let a writer waiting for the store in


def _in(column: str, ids: list[str]) -> tuple[str, dict[str, str]]:
    """`column IN (:i0, …)` and its parameters."""
    names = {f"i{n}": v for n, v in enumerate(ids)}
    return f"{column} IN ({', '.join(':' + k for k in names)})", names


def _records(
    conn: sa.Connection,
    cipher: Any,
    table: str,
    ids: list[str],
    counts: Counter,
    touched: list[tuple[str, str]],
) -> dict[str, tuple[str, str, str | None]]:
    """Re-redact these rows' texts; returns id -> (new statement, user, workspace) of changed rows."""
    changed: dict[str, tuple[str, str, str | None]] = {}
    where, params = _in("id", ids)
    for row in conn.execute(sa.text(f"SELECT * FROM {table} WHERE {where}"), params).mappings():
        if not row_mac.intact(cipher.row_key, table, row):
            counts[f"{table}_unreadable"] += 1
            continue
        try:
            plain = {
                c: cipher.decrypt(table, c, row["id"], row[f"{c}_ct"]) for c in TEXT_COLUMNS[table]
            }
            user = cipher.decrypt(table, "user", row["id"], row["user_ct"]) or ""
            workspace = cipher.decrypt(table, "workspace", row["id"], row["workspace_ct"])
        except Exception:  # noqa: BLE001 - an unreadable row stays as it is
            counts[f"{table}_unreadable"] += 1
            continue
        fresh = {c: _again(v) for c, v in plain.items()}
        if fresh == plain:
            continue
        values = {f"{c}_ct": cipher.encrypt(table, c, row["id"], v) for c, v in fresh.items()}
        statement = fresh["statement"]  # None only where it was None before
        if statement is not None and statement != plain["statement"]:
            values["content_key"] = cipher.content_key(
                user, workspace, None, row["kind"], statement
            )
            changed[row["id"]] = (statement, user, workspace)
        values["row_mac"] = row_mac.seal(cipher.row_key, table, {**row, **values})
        conn.execute(
            sa.text(
                f"UPDATE {table} SET {', '.join(f'{k} = :{k}' for k in values)} WHERE id = :id"
            ),
            {**values, "id": row["id"]},
        )
        counts[table] += 1
        touched.append((table, row["id"]))
    return changed


def _excerpts(conn: sa.Connection, cipher: Any, ids: list[str], counts: Counter) -> None:
    where, params = _in("id", ids)
    for row in conn.execute(sa.text(f"SELECT id, excerpt_ct FROM evidence WHERE {where}"), params):
        try:
            excerpt = cipher.decrypt("evidence", "excerpt", row.id, row.excerpt_ct)
        except Exception:  # noqa: BLE001
            counts["evidence_unreadable"] += 1
            continue
        if excerpt and (fresh := _again(excerpt)) != excerpt:
            conn.execute(
                sa.text("UPDATE evidence SET excerpt_ct = :ct WHERE id = :id"),
                {"ct": cipher.encrypt("evidence", "excerpt", row.id, fresh), "id": row.id},
            )
            counts["evidence"] += 1


def _previews(conn: sa.Connection, cipher: Any, keys: list[str], counts: Counter) -> None:
    """These tombstones' previews re-redacted."""
    where, params = _in("content_key", keys)
    for tomb in conn.execute(sa.text(f"SELECT * FROM tombstones WHERE {where}"), params).mappings():
        if not row_mac.intact(cipher.row_key, "tombstones", tomb):
            counts["tombstones_unreadable"] += 1
            continue
        preview = cipher.decrypt("tombstones", "preview", tomb["content_key"], tomb["preview_ct"])
        if preview and (fresh := _again(preview)) != preview:
            conn.execute(
                sa.text("UPDATE tombstones SET preview_ct = :ct WHERE content_key = :k"),
                {
                    "ct": cipher.encrypt("tombstones", "preview", tomb["content_key"], fresh),
                    "k": tomb["content_key"],
                },
            )
            counts["tombstone_previews"] += 1  # (the preview is not sealed: the MAC stands)


def _twins(
    conn: sa.Connection,
    cipher: Any,
    table: str,
    changed: dict[str, tuple[str, str, str | None]],
    counts: Counter,
    new_keys: list[str],
) -> None:
    """A tombstone whose source statement changed (in this slice) is doubled under the source's
    new key (the old one stays: it still blocks the text as it was)."""
    if not changed:
        return
    where, params = _in("source_id", list(changed))
    tombs = list(
        conn.execute(sa.text(f"SELECT * FROM tombstones WHERE {where}"), params).mappings()
    )
    for tomb in tombs:
        if not row_mac.intact(cipher.row_key, "tombstones", tomb):
            continue  # counted by the preview pass
        new_key = conn.execute(  # the source's key after this slice re-redacted it
            sa.text(f"SELECT content_key FROM {table} WHERE id = :id"), {"id": tomb["source_id"]}
        ).scalar()
        if new_key is None or new_key == tomb["content_key"]:
            continue
        if conn.execute(
            sa.text("SELECT 1 FROM tombstones WHERE content_key = :k"), {"k": new_key}
        ).first():
            continue
        statement, user, _workspace = changed[tomb["source_id"]]
        twin = {
            **tomb,
            "content_key": new_key,
            "statement_key": cipher.statement_key(user, statement),
            "preview_ct": cipher.encrypt("tombstones", "preview", new_key, statement[:120]),
        }
        twin["row_mac"] = row_mac.seal(cipher.row_key, "tombstones", twin)
        conn.execute(
            sa.text(
                f"INSERT INTO tombstones ({', '.join(twin)}) VALUES ({', '.join(':' + c for c in twin)})"
            ),
            twin,
        )
        counts["tombstones_doubled"] += 1
        new_keys.append(new_key)


def _audit(
    store: Any, conn: sa.Connection, touched: list[tuple[str, str]], new_keys: list[str]
) -> None:
    """One event per changed row, so the chain records each row's new MAC (audit verify)."""
    at = store.now()
    events = [
        (
            at,
            "sweep",
            "memory.reredacted" if t == "memories" else "candidate.reredacted",
            "memory" if t == "memories" else "candidate",
            row_id,
            None,
        )
        for t, row_id in touched
    ]
    events += [
        (at, "sweep", "tombstone.reredacted", "tombstone", key[:16], None) for key in new_keys
    ]
    if events:
        append_events(conn, store.ctx.cipher, events)


def reredact_stored(store: Any, now: datetime, *, force: bool = False) -> dict[str, int] | None:
    """Re-redact everything stored when the rule set changed (or `force`); None when it had not.
    In slices (SLICE rows per write transaction); its audit events carry ids and counts only."""
    version = ruleset_version()
    with store.ctx.read() as conn:
        if not force and recorded_version(conn) == version:
            return None
    counts: Counter = Counter()
    for table in TEXT_COLUMNS:
        for conn, ids in _slices(store, table, "id"):
            touched: list[tuple[str, str]] = []
            new_keys: list[str] = []
            changed = _records(conn, store.ctx.cipher, table, ids, counts, touched)
            _twins(conn, store.ctx.cipher, table, changed, counts, new_keys)
            _audit(store, conn, touched, new_keys)
    for conn, ids in _slices(store, "evidence", "id"):
        _excerpts(conn, store.ctx.cipher, ids, counts)
    for conn, keys in _slices(store, "tombstones", "content_key"):
        _previews(conn, store.ctx.cipher, keys, counts)
    with store.ctx.write() as conn:
        _record(conn, version)
        summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "nothing changed"
        append_events(
            conn,
            store.ctx.cipher,
            [(store.now(), "sweep", "store.reredacted", "store", version, summary)],
        )
    return dict(counts)
