"""The ciphertext format and key derivation, written once: the ORM path (crypto.FieldCipher) and
the import-light path (fast_keys.FastCipher) both read fields through `FieldReader`.

Ciphertext format v1 (named `MV1`):  b"MV" | 0x01 | dek_id (8 ASCII bytes) | nonce (12) | ct||tag (16)
Associated data: b"memvet/field/v1\x1f" + table + 0x1f + column + 0x1f + row id.
A wrapped data key: nonce (12) | AES-GCM(KEK, DEK, b"memvet/dek/v1:" + dek_id).

From the one data key (DEK) five more keys are derived with HKDF-SHA256 (RFC 5869, no salt, one
32-byte block), so that a blind index or a content key never reveals the data key: `bidx` (blind
indexes), `content` (content keys), `audit` (the ledger's hash chain), `row` (row MACs over
lifecycle and scope, row_mac.py), `term` (the recall index's blind tokens, term_index.py).

Standard library only at import (the no-daemon hook loads it): HKDF is written out with hmac, so
cryptography's KDF module is never imported, and AESGCM is imported when a key is first used.
"""

from __future__ import annotations

import hashlib
import hmac

from memvet.store.row_mac import LABEL as ROW_LABEL
from memvet.store.term_index import TERM_LABEL

MAGIC = b"MV"
FORMAT_V1 = 1
HEADER = MAGIC + bytes([FORMAT_V1])
DEK_ID_BYTES = 8
NONCE_BYTES = 12
TAG_BYTES = 16
HEADER_BYTES = len(HEADER) + DEK_ID_BYTES + NONCE_BYTES
SEP = "\x1f"  # the unit separator (␟) joins key parts; it never occurs in normalised text

BIDX_LABEL = "memvet/bidx/v1"
CONTENT_LABEL = "memvet/content/v1"
AUDIT_LABEL = "memvet/audit/v1"
# ROW_LABEL and TERM_LABEL are defined by the modules whose keys they name (imported above).


def derive_key(dek: bytes, label: str) -> bytes:
    """HKDF-SHA256 with an empty salt, info = label, 32 bytes (one expand block)."""
    prk = hmac.new(b"\0" * 32, dek, hashlib.sha256).digest()
    return hmac.new(prk, label.encode() + b"\x01", hashlib.sha256).digest()


def field_aad(table: str, column: str, row_id: str) -> bytes:
    return f"memvet/field/v1{SEP}{table}{SEP}{column}{SEP}{row_id}".encode()


def dek_aad(dek_id: str) -> bytes:
    """What a wrapped data key is bound to: its id."""
    return b"memvet/dek/v1:" + dek_id.encode()


def aesgcm_class() -> type:
    """cryptography's public AESGCM (issue 15 replaced the private Rust-binding import that saved
    its ~10 ms of pure-Python cipher modules: a private name can change in any release).
    Imported when a key is first used, never by merely loading this module."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM


def unwrap_dek(kek: bytes, wrapped: bytes, dek_id: str) -> bytes:
    """Raises cryptography's InvalidTag when the KEK is not the one that wrapped this key."""
    wrapped = bytes(wrapped)
    return aesgcm_class()(kek).decrypt(
        wrapped[:NONCE_BYTES], wrapped[NONCE_BYTES:], dek_aad(dek_id)
    )


class FieldReader:
    """Decrypts MV1 fields and computes blind indexes with one data key: the read side both
    paths share. A subclass says which error a field that cannot be read raises."""

    def __init__(self, dek: bytes) -> None:
        from cryptography.exceptions import InvalidTag  # loaded with AESGCM anyway

        self._aead = aesgcm_class()(dek)
        self._invalid_tag = InvalidTag
        self._bidx_key = derive_key(dek, BIDX_LABEL)
        self.row_key = derive_key(dek, ROW_LABEL)
        self.term_key = derive_key(dek, TERM_LABEL)

    def unreadable(self, table: str, column: str, row_id: str, why: str) -> Exception:
        """The error for a field that is not MV1 (`why` = "format") or fails authentication
        (`why` = "authentication"); `why` is a stable word, never field text."""
        return ValueError(f"{table}.{column} of row {row_id}: {why}")

    def decrypt(self, table: str, column: str, row_id: str, blob: bytes | None) -> str | None:
        if blob is None:
            return None
        blob = bytes(blob)
        if len(blob) < HEADER_BYTES + TAG_BYTES or blob[:3] != HEADER:
            raise self.unreadable(table, column, row_id, "format")
        nonce = blob[len(HEADER) + DEK_ID_BYTES : HEADER_BYTES]
        try:
            plain = self._aead.decrypt(nonce, blob[HEADER_BYTES:], field_aad(table, column, row_id))
        except self._invalid_tag:  # altered, moved from another row, or another key
            raise self.unreadable(table, column, row_id, "authentication") from None
        return plain.decode("utf-8")

    def blind_index(self, field: str, value: str | None) -> str | None:
        """A keyed HMAC of a value filtered in SQL (user, workspace, path)."""
        if value is None:
            return None
        return hmac.new(self._bidx_key, f"{field}{SEP}{value}".encode(), hashlib.sha256).hexdigest()

    def log_tag(self, path: str) -> str:
        """A keyed hash naming a file or folder in logs and stats without revealing its path."""
        return (self.blind_index("log", path) or "")[:12]
