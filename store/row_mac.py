"""The row MAC: a keyed HMAC-SHA256 over the columns of a row that decide what a reader gets —
lifecycle, scope, validity, content key — so that a plain `UPDATE` by someone without the key
(un-retiring a false write, making a workspace memory global, lifting a tombstone) is detected
on read, like an altered ciphertext.

Standard library only: the hook's fast path (fast_read.py) checks the same MACs without
SQLAlchemy. Values are compared as SQLite stores them (times as `YYYY-MM-DD HH:MM:SS.ffffff`
in UTC), so a row read through SQLAlchemy (datetimes) and one read through `sqlite3` (strings)
give the same MAC. The key is derived from the data key with the label `memvet/row/v1`.

Every write of a sealed column recomputes `row_mac` (see sealing.py); a change to the lists
below changes every MAC, and needs a migration that re-seals.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC

LABEL = "memvet/row/v1"
SEP = "\x1f"
NULL = "\x00"  # None; never occurs in a sealed value
# table -> (the id column, the sealed columns in MAC order)
SEALED: dict[str, tuple[str, tuple[str, ...]]] = {
    "memories": (
        "id",
        (
            "status",
            "user_bidx",
            "workspace_bidx",
            "content_key",
            "kind",
            "polarity",
            "source_type",
            "valid_from",
            "valid_to",
            "expires_at",
            "retired_reason",
        ),
    ),
    "candidates": (
        "id",
        ("status", "user_bidx", "workspace_bidx", "content_key", "kind", "polarity", "source_type"),
    ),
    "tombstones": (
        "content_key",
        ("statement_key", "workspace_bidx", "reason", "source_id", "lifted_at"),
    ),
}
# What fast_read.py selects to check a memory's MAC (after its own columns).
MEMORY_SQL = ", ".join(SEALED["memories"][1]) + ", row_mac"


def _text(value: object) -> str:
    if value is None:
        return NULL
    if isinstance(value, str):
        return value
    if hasattr(value, "astimezone"):  # a datetime, written as SQLite holds it (UTC)
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")  # type: ignore[attr-defined]
    return str(value)


_PADS: dict[bytes, tuple] = {}  # key -> SHA-256 states after its inner and outer pad


def _pads(key: bytes) -> tuple:
    """HMAC (RFC 2104) with the pads hashed once per key: OpenSSL 3 sets up a fresh HMAC
    context on every one-shot call, which cost more than the hashing itself (a test compares
    the result with `hmac.new`)."""
    found = _PADS.get(key)
    if found is None:
        block = (
            key.ljust(64, b"\0")
            if len(key) <= 64
            else hashlib.sha256(key).digest().ljust(64, b"\0")
        )
        found = (
            hashlib.sha256(bytes(b ^ 0x36 for b in block)),
            hashlib.sha256(bytes(b ^ 0x5C for b in block)),
        )
        if len(_PADS) < 32:  # a process holds one or two stores, five HMAC keys each
            _PADS[key] = found
    return found


def mac(key: bytes, table: str, row_id: str, values: tuple | list) -> str:
    """The MAC of one row from its id and its sealed values, in SEALED order: HMAC-SHA256."""
    body = SEP.join(
        (
            LABEL,
            table,
            row_id,
            *[v if v.__class__ is str else NULL if v is None else _text(v) for v in values],
        )
    )  # inline: this runs per row on the hook's path
    return keyed_digest(key, body.encode("utf-8", "surrogatepass")).hex()


def keyed_digest(key: bytes, data: bytes) -> bytes:
    """HMAC-SHA256(key, data), from the pads hashed once per key (what hmac.new computes)."""
    inner, outer = _pads(key)
    inner, outer = inner.copy(), outer.copy()
    inner.update(data)
    outer.update(inner.digest())
    return outer.digest()


def seal(key: bytes, table: str, row: object) -> str:
    """The MAC of a row given as a mapping (an insert's dict, a SQLAlchemy row's `_mapping`).
    A column an insert leaves out is None (every sealed column's default)."""
    id_column, columns = SEALED[table]
    get = row.get  # type: ignore[attr-defined]
    return mac(key, table, str(get(id_column)), [get(c) for c in columns])


def intact(key: bytes, table: str, row: object) -> bool:
    """Does the row's stored `row_mac` match its sealed columns? A missing MAC never does."""
    stored = row["row_mac"]  # type: ignore[index]
    return isinstance(stored, str) and hmac.compare_digest(stored, seal(key, table, row))
