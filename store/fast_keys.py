"""Opening the store without the ORM: the schema check, the data key unwrapped with the
key-encryption key (key file or keyring) and the import-light read cipher. Keys are derived
exactly as crypto.py derives them (HKDF-SHA256 with no salt, written out with hmac so the KDF
module is not imported). Standard library only at import: the no-daemon hook loads it
(fast_read.py), as do the read commands (read_layer.py, recall_read.py).
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import os
import sqlite3
import stat

from memvet.store import term_index as ti

SCHEMA_VERSION = 10  # the store schema this SQL was written for; a test pins it to migrations'
BUSY_TIMEOUT_S = 0.5


class FastReadError(Exception):
    """Why the hook gave nothing: a stable code, never user text."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _hkdf_sha256(key: bytes, label: str) -> bytes:
    """RFC 5869 with an empty salt and one 32-byte block: what crypto.derive_key computes."""
    prk = hmac.new(b"\0" * 32, key, hashlib.sha256).digest()
    return hmac.new(prk, label.encode() + b"\x01", hashlib.sha256).digest()


def aesgcm_class() -> type:
    """cryptography's public AESGCM (issue 15 replaced the private Rust-binding import that saved
    its ~10 ms of pure-Python cipher modules: a private name can change in any release).
    Imported when a key is first used, never by merely loading this module."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM


class FastCipher:
    """Decrypts MV1 fields and computes blind indexes, like crypto.FieldCipher (read side only)."""

    def __init__(self, dek: bytes) -> None:
        self._aead = aesgcm_class()(dek)
        self._bidx_key = _hkdf_sha256(dek, "memvet/bidx/v1")
        self.row_key = _hkdf_sha256(dek, "memvet/row/v1")
        self.term_key = _hkdf_sha256(dek, ti.TERM_LABEL)

    def decrypt(self, table: str, column: str, row_id: str, blob: bytes | None) -> str | None:
        if blob is None:
            return None
        if blob[:3] != b"MV\x01":
            raise FastReadError("integrity")
        aad = f"memvet/field/v1\x1f{table}\x1f{column}\x1f{row_id}".encode()
        try:
            return self._aead.decrypt(blob[11:23], blob[23:], aad).decode("utf-8")
        except Exception:  # InvalidTag: altered, moved, or another key
            raise FastReadError("integrity") from None

    def blind_index(self, field: str, value: str | None) -> str | None:
        if value is None:
            return None
        return hmac.new(self._bidx_key, f"{field}\x1f{value}".encode(), hashlib.sha256).hexdigest()


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


def open_direct(home: str) -> tuple[sqlite3.Connection, FastCipher]:
    """The store file and its data key, read-only. Raises FastReadError with a code."""
    path = os.path.join(home, "memvet.db")
    if not os.path.isfile(path):
        raise FastReadError("no_store")
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
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
            dek = aesgcm_class()(kek).decrypt(
                wrapped[:12], wrapped[12:], b"memvet/dek/v1:" + dek_id.encode()
            )
        except Exception:
            raise FastReadError("key_wrong") from None
        return conn, FastCipher(dek)
    except BaseException:
        conn.close()
        raise


def current_user() -> str:
    """getpass.getuser() without importing getpass: the store keys its user the same way."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        user = os.environ.get(name)
        if user:
            return user
    import pwd

    return pwd.getpwuid(os.getuid())[0]
