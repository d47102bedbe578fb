"""Opening the store without the ORM: the schema check, the data key unwrapped with the
key-encryption key (key file or keyring) and the read cipher, codec.py's `FieldReader` raising
`FastReadError` codes. Standard library only at import: the no-daemon hook loads it
(fast_read.py), as do the read commands (read_layer.py, recall_read.py).
"""

from __future__ import annotations

import binascii
import os
import sqlite3
import stat

from memvet.store import codec

SCHEMA_VERSION = 12  # the store schema this SQL was written for; a test pins it to migrations'
BUSY_TIMEOUT_S = 0.5


class FastReadError(Exception):
    """Why the hook gave nothing: a stable code, never user text."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class FastCipher(codec.FieldReader):
    """The read side of crypto.FieldCipher; a field it cannot read is FastReadError("integrity")."""

    def unreadable(self, table: str, column: str, row_id: str, why: str) -> Exception:
        return FastReadError("integrity")


def _load_kek(provider: str, version: int, home: str) -> bytes:
    if provider == "file":
        path = os.path.join(home, "keys", f"kek-v{version}")
        try:
            with open(path, "rb") as handle:
                if os.fstat(handle.fileno()).st_mode & (stat.S_IRWXG | stat.S_IRWXO):
                    raise FastReadError("key_file_mode")
                return binascii.a2b_base64(handle.read().strip())
        except FileNotFoundError:
            raise FastReadError("key_missing") from None
    if provider == "keyring":  # imported only for a store whose key the keyring holds
        import keyring

        try:
            value = keyring.get_password("memvet", f"kek-v{version}:{os.path.realpath(home)}")
        except Exception:  # locked or unavailable
            raise FastReadError("keyring_unavailable") from None
        if value is None:
            raise FastReadError("key_missing")
        return binascii.a2b_base64(value)
    raise FastReadError("key_provider_unknown")


def open_direct(home: str, any_thread: bool = False) -> tuple[sqlite3.Connection, FastCipher]:
    """The store file and its data key, read-only. Raises FastReadError with a code.
    `any_thread`: the connection is used from several threads, one at a time (the daemon's
    recall, store/recall_serving.py, serves each request in its own thread)."""
    path = os.path.join(home, "memvet.db")
    if not os.path.isfile(path):
        raise FastReadError("no_store")
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=not any_thread
    )
    try:
        conn.execute("PRAGMA query_only = ON")
        meta = conn.execute("SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone()
        if meta is None or int(meta[0]) != SCHEMA_VERSION:
            raise FastReadError("schema_mismatch")
        row = conn.execute(
            "SELECT provider, kek_version, dek_id, wrapped_dek FROM key_material "
            "ORDER BY created_at DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise FastReadError("key_missing")
        provider, version, dek_id, wrapped = row
        kek = _load_kek(provider, version, home)
        try:
            dek = codec.unwrap_dek(kek, wrapped, dek_id)
        except Exception:
            raise FastReadError("key_wrong") from None
        return conn, FastCipher(dek)
    except BaseException:
        conn.close()
        raise
