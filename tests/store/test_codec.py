"""One ciphertext format and one key derivation (codec.py) behind both read paths: the ORM's
FieldCipher and the hook's import-light FastCipher derive the same keys and read each other's
fields; the derivation is RFC 5869 HKDF as cryptography computes it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from memvet.store import codec
from memvet.store import fast_keys as fk
from memvet.store.crypto import FieldCipher, new_key, wrap_dek
from memvet.store.errors import IntegrityError

LABELS = (
    codec.BIDX_LABEL,
    codec.CONTENT_LABEL,
    codec.AUDIT_LABEL,
    codec.ROW_LABEL,
    codec.TERM_LABEL,
)


def reference_hkdf(dek: bytes, label: str) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=label.encode()).derive(dek)


def test_the_derivation_is_cryptographys_hkdf_for_every_label():
    assert len(set(LABELS)) == len(LABELS)
    for _ in range(5):
        dek = os.urandom(32)
        for label in LABELS:
            assert codec.derive_key(dek, label) == reference_hkdf(dek, label)


def test_both_paths_derive_identical_keys():
    dek = new_key()
    full, fast = FieldCipher(dek, "abcd1234"), fk.FastCipher(dek)
    assert full.row_key == fast.row_key == reference_hkdf(dek, "memvet/row/v1")
    assert full.term_key == fast.term_key == reference_hkdf(dek, "memvet/term/v1")
    assert full.audit_key == reference_hkdf(dek, "memvet/audit/v1")
    for value in ("dana", "/home/dana/src/app", "é ✓", "", None):
        assert fast.blind_index("workspace", value) == full.blind_index("workspace", value)
    other = fk.FastCipher(new_key())
    assert other.blind_index("user", "dana") != fast.blind_index("user", "dana")


def test_each_path_reads_the_others_ciphertext():
    dek = new_key()
    full, fast = FieldCipher(dek, "abcd1234"), fk.FastCipher(dek)
    blob = full.encrypt("memories", "statement", "m_1", "Use uv ✓")
    assert blob is not None and blob[:3] == b"MV\x01" and blob[3:11] == b"abcd1234"
    assert fast.decrypt("memories", "statement", "m_1", blob) == "Use uv ✓"
    # A field written to the documented format by hand (no memvet writer) reads on both paths.
    nonce = os.urandom(codec.NONCE_BYTES)
    aad = b"memvet/field/v1\x1fmemories\x1fsubject\x1fm_2"
    by_hand = b"MV\x01" + b"ffff0000" + nonce + AESGCM(dek).encrypt(nonce, b"tooling", aad)
    assert full.decrypt("memories", "subject", "m_2", by_hand) == "tooling"
    assert fast.decrypt("memories", "subject", "m_2", memoryview(by_hand)) == "tooling"
    assert full.decrypt("memories", "subject", "m_2", None) is None
    assert fast.decrypt("memories", "subject", "m_2", None) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:20],  # shorter than a header and a tag
        lambda b: b"MW" + b[2:],  # not the magic
        lambda b: b[:2] + b"\x02" + b[3:],  # another format version
        lambda b: b[:-1] + bytes([b[-1] ^ 1]),  # altered tag
    ],
)
def test_both_paths_refuse_what_is_not_an_intact_field(damage):
    dek = new_key()
    full, fast = FieldCipher(dek, "abcd1234"), fk.FastCipher(dek)
    blob = full.encrypt("memories", "statement", "m_1", "Use uv")
    assert blob is not None
    with pytest.raises(IntegrityError, match="memories.statement of row m_1"):
        full.decrypt("memories", "statement", "m_1", damage(blob))
    with pytest.raises(fk.FastReadError) as refused:
        fast.decrypt("memories", "statement", "m_1", damage(blob))
    assert refused.value.code == "integrity"


def test_a_field_moved_to_another_row_or_key_fails_authentication_on_both_paths():
    dek = new_key()
    full, fast = FieldCipher(dek, "abcd1234"), fk.FastCipher(dek)
    blob = full.encrypt("memories", "statement", "m_1", "Use uv")
    with pytest.raises(IntegrityError, match="failed authentication"):
        full.decrypt("memories", "statement", "m_2", blob)
    with pytest.raises(fk.FastReadError):
        fast.decrypt("memories", "subject", "m_1", blob)
    with pytest.raises(fk.FastReadError):
        fk.FastCipher(new_key()).decrypt("memories", "statement", "m_1", blob)


def test_a_wrapped_data_key_unwraps_on_the_import_light_path():
    kek, dek = new_key(), new_key()
    wrapped = wrap_dek(kek, dek, "abcd1234")
    assert codec.unwrap_dek(kek, wrapped, "abcd1234") == dek
    with pytest.raises(InvalidTag):
        codec.unwrap_dek(kek, wrapped, "abcd1235")  # bound to its id
    with pytest.raises(InvalidTag):
        codec.unwrap_dek(new_key(), wrapped, "abcd1234")


def test_the_fast_aesgcm_is_cryptographys_public_class():
    assert codec.aesgcm_class() is AESGCM


def test_the_codec_loads_no_kdf_and_no_cipher_until_a_key_is_used():
    code = (
        "import sys; from memvet.store import fast_keys, codec;"
        "print('cryptography' in sys.modules);"
        "fast_keys.FastCipher(b'k' * 32);"
        "print('cryptography.hazmat.primitives.ciphers.aead' in sys.modules,"
        " any(m.startswith('cryptography.hazmat.primitives.kdf') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "False"]
