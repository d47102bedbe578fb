"""Field encryption: AES-256-GCM per field, bound to table/column/row by associated data.

Ciphertext format v1 (named `MV1`):  b"MV" | 0x01 | dek_id (8 ASCII bytes) | nonce (12) | ct||tag (16)
Associated data: b"memvet/field/v1\x1f" + table + 0x1f + column + 0x1f + row id.

From the one data key (DEK) five more keys are derived with HKDF-SHA256, so that a blind index
or a content key never reveals the data key: `bidx` (blind indexes), `content` (content keys),
`audit` (the ledger's hash chain), `row` (row MACs over lifecycle and scope, row_mac.py), `term`
(the recall index's blind tokens, term_index.py).
"""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from memvet.store.errors import IntegrityError
from memvet.store.row_mac import keyed_digest
from memvet.store.term_index import TERM_LABEL

MAGIC = b"MV"
FORMAT_V1 = 1
NONCE_BYTES = 12
DEK_ID_BYTES = 8
HEADER_BYTES = len(MAGIC) + 1 + DEK_ID_BYTES + NONCE_BYTES
SEP = "\x1f"  # the unit separator (␟) joins key parts; it never occurs in normalised text


def derive_key(dek: bytes, label: str) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=label.encode()).derive(dek)


def field_aad(table: str, column: str, row_id: str) -> bytes:
    return f"memvet/field/v1{SEP}{table}{SEP}{column}{SEP}{row_id}".encode()


def normalise_statement(text: str) -> str:
    """The content key's canonicalisation, `norm2` (store/canonical.py)."""
    from memvet.store.canonical import norm2  # its TR39 table loads on first use

    return norm2(text)


class FieldCipher:
    """Encrypts and decrypts fields with one data key; computes keyed blind indexes."""

    name = "aes-256-gcm"

    def __init__(self, dek: bytes, dek_id: str) -> None:
        if len(dek) != 32:
            raise ValueError("the data key must be 256 bits")
        self._aead = AESGCM(dek)
        self.dek_id = dek_id
        self._dek_id_bytes = dek_id.encode("ascii")
        self._bidx_key = derive_key(dek, "memvet/bidx/v1")
        self._content_key = derive_key(dek, "memvet/content/v1")
        self.audit_key = derive_key(dek, "memvet/audit/v1")
        self.row_key = derive_key(dek, "memvet/row/v1")
        self.term_key = derive_key(dek, TERM_LABEL)

    def encrypt(self, table: str, column: str, row_id: str, text: str | None) -> bytes | None:
        if text is None:
            return None
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, text.encode("utf-8"), field_aad(table, column, row_id))
        return MAGIC + bytes([FORMAT_V1]) + self._dek_id_bytes + nonce + sealed

    def decrypt(self, table: str, column: str, row_id: str, blob: bytes | None) -> str | None:
        if blob is None:
            return None
        blob = bytes(blob)
        if len(blob) < HEADER_BYTES + 16 or blob[:2] != MAGIC or blob[2] != FORMAT_V1:
            raise IntegrityError(f"{table}.{column} of row {row_id} is not a memvet v1 ciphertext")
        nonce = blob[3 + DEK_ID_BYTES : HEADER_BYTES]
        try:
            plain = self._aead.decrypt(nonce, blob[HEADER_BYTES:], field_aad(table, column, row_id))
        except InvalidTag:
            raise IntegrityError(
                f"{table}.{column} of row {row_id} failed authentication: "
                "it was altered, moved from another row, or the key is wrong"
            ) from None
        return plain.decode("utf-8")

    def blind_index(self, field: str, value: str | None) -> str | None:
        """A keyed HMAC of a value filtered in SQL (user, workspace, path)."""
        if value is None:
            return None
        return keyed_digest(self._bidx_key, f"{field}{SEP}{value}".encode()).hex()

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
    return nonce + AESGCM(kek).encrypt(nonce, dek, b"memvet/dek/v1:" + dek_id.encode())


def unwrap_dek(kek: bytes, wrapped: bytes, dek_id: str) -> bytes:
    """Raises cryptography's InvalidTag when the KEK is not the one that wrapped this key."""
    wrapped = bytes(wrapped)
    return AESGCM(kek).decrypt(
        wrapped[:NONCE_BYTES], wrapped[NONCE_BYTES:], b"memvet/dek/v1:" + dek_id.encode()
    )


def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=256)
