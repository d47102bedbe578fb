"""Field encryption: AES-256-GCM per field, bound to table/column/row by associated data.

The ciphertext format, the labels and the key derivation are codec.py's (shared with the hook's
import-light reader); this module adds what only the ORM path needs: encryption, content and
statement keys, the audit key, wrapping the data key.
"""

from __future__ import annotations

import os

from memvet.store.codec import (
    AUDIT_LABEL,
    CONTENT_LABEL,
    HEADER,
    NONCE_BYTES,
    SEP,
    FieldReader,
    aesgcm_class,
    dek_aad,
    derive_key,
    field_aad,
    unwrap_dek,
)
from memvet.store.errors import IntegrityError
from memvet.store.row_mac import keyed_digest

__all__ = ["SEP", "FieldCipher", "PlainCipher", "derive_key", "new_key", "unwrap_dek", "wrap_dek"]


def normalise_statement(text: str) -> str:
    """The content key's canonicalisation, `norm2` (store/canonical.py)."""
    from memvet.store.canonical import norm2  # its TR39 table loads on first use

    return norm2(text)


class FieldCipher(FieldReader):
    """Encrypts and decrypts fields with one data key; computes keyed blind indexes."""

    name = "aes-256-gcm"

    def __init__(self, dek: bytes, dek_id: str) -> None:
        if len(dek) != 32:
            raise ValueError("the data key must be 256 bits")
        super().__init__(dek)
        self.dek_id = dek_id
        self._dek_id_bytes = dek_id.encode("ascii")
        self._content_key = derive_key(dek, CONTENT_LABEL)
        self.audit_key = derive_key(dek, AUDIT_LABEL)

    def unreadable(self, table: str, column: str, row_id: str, why: str) -> Exception:
        if why == "format":
            return IntegrityError(f"{table}.{column} of row {row_id} is not a memvet v1 ciphertext")
        return IntegrityError(
            f"{table}.{column} of row {row_id} failed authentication: "
            "it was altered, moved from another row, or the key is wrong"
        )

    def encrypt(self, table: str, column: str, row_id: str, text: str | None) -> bytes | None:
        if text is None:
            return None
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, text.encode("utf-8"), field_aad(table, column, row_id))
        return HEADER + self._dek_id_bytes + nonce + sealed

    def content_key(
        self, user: str, workspace: str | None, agent: str | None, kind: str, statement: str
    ) -> str:
        """`ck2` = HMAC-SHA256(content key, "ck2" ␟ user ␟ workspace ␟ agent ␟ kind ␟
        norm2(statement)). The version tag keeps keys of two canonicalisations apart."""
        parts = ["ck2", user, workspace or "", agent or "", kind, normalise_statement(statement)]
        return keyed_digest(self._content_key, SEP.join(parts).encode()).hex()

    def statement_key(self, user: str, statement: str) -> str:
        """`sk2` = HMAC-SHA256(content key, "sk2" ␟ user ␟ norm2(statement)): the statement
        whatever its kind or scope, which tombstones are looked up by."""
        parts = ["sk2", user, normalise_statement(statement)]
        return keyed_digest(self._content_key, SEP.join(parts).encode()).hex()


class PlainCipher(FieldCipher):
    """No encryption at all. Only the encrypted-versus-plaintext benchmark uses it, as a baseline."""

    name = "plaintext-benchmark-only"

    def encrypt(self, table: str, column: str, row_id: str, text: str | None) -> bytes | None:
        return None if text is None else text.encode("utf-8")

    def decrypt(self, table: str, column: str, row_id: str, blob: bytes | None) -> str | None:
        return None if blob is None else bytes(blob).decode("utf-8")


def wrap_dek(kek: bytes, dek: bytes, dek_id: str) -> bytes:
    """Wrap the data key with AES-GCM under the KEK (the AWS raw-AES-keyring shape)."""
    nonce = os.urandom(NONCE_BYTES)
    return nonce + aesgcm_class()(kek).encrypt(nonce, dek, dek_aad(dek_id))


def new_key() -> bytes:
    return aesgcm_class().generate_key(bit_length=256)
