"""Field encryption, key providers, wrong and missing keys, rotation."""

from __future__ import annotations

import os
import stat

import pytest
import sqlalchemy as sa
from keyring.backends import fail
from memvet.store import IntegrityError, KeyMissingError, KeyWrongError, open_store
from memvet.store.crypto import FieldCipher, new_key, normalise_statement
from memvet.store.errors import StoreUnavailableError
from store_internals import engine_of

from .conftest import draft


def test_round_trip_and_tamper_detection():
    cipher = FieldCipher(new_key(), "abcd1234")
    blob = cipher.encrypt("candidates", "statement", "c_1", "we use uv here")
    assert b"uv" not in blob and blob.startswith(b"MV\x01abcd1234")
    assert cipher.decrypt("candidates", "statement", "c_1", blob) == "we use uv here"
    flipped = bytearray(blob)
    flipped[-1] ^= 1
    with pytest.raises(IntegrityError):
        cipher.decrypt("candidates", "statement", "c_1", bytes(flipped))


def test_a_ciphertext_moved_to_another_row_or_column_fails():
    cipher = FieldCipher(new_key(), "abcd1234")
    blob = cipher.encrypt("candidates", "statement", "c_1", "secret plan")
    with pytest.raises(IntegrityError, match="moved from another row"):
        cipher.decrypt("candidates", "statement", "c_2", blob)
    with pytest.raises(IntegrityError):
        cipher.decrypt("memories", "statement", "c_1", blob)


def test_moving_a_ciphertext_between_rows_in_the_database_is_detected(store):
    a = store.admit(draft("we use uv here")).candidate_id
    b = store.admit(draft("never run terraform apply", kind="constraint")).candidate_id
    with engine_of(store).begin() as conn:
        blob = conn.execute(
            sa.text("SELECT statement_ct FROM candidates WHERE id=:i"), {"i": a}
        ).scalar()
        conn.execute(
            sa.text("UPDATE candidates SET statement_ct=:b WHERE id=:i"), {"b": blob, "i": b}
        )
    assert store.get_candidate(a).statement == "we use uv here"
    with pytest.raises(IntegrityError):
        store.get_candidate(b)


def test_normalisation_of_the_content_key():
    assert normalise_statement("  We   use ＵＶ here!! ") == "we use uv here"
    cipher = FieldCipher(new_key(), "k")
    assert cipher.content_key("u", "/w", None, "fact", "We use uv.") == cipher.content_key(
        "u", "/w", None, "fact", "we use uv"
    )
    assert cipher.content_key("u", "/w", None, "fact", "x") != cipher.content_key(
        "u", "/v", None, "fact", "x"
    )


def test_keyring_is_used_when_usable(tmp_path, memory_keyring):
    store = open_store(tmp_path / "h")
    assert store.key_provider == "keyring"
    assert any(k[0] == "memvet" and k[1].startswith("kek-v1:") for k in memory_keyring.entries)
    assert not (tmp_path / "h" / "keys").exists()


def test_without_a_keyring_a_0600_key_file_is_used(tmp_path):
    import keyring

    keyring.set_keyring(fail.Keyring())
    store = open_store(tmp_path / "h")
    assert store.key_provider == "file"
    key_file = tmp_path / "h" / "keys" / "kek-v1"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_a_recorded_keyring_that_disappears_is_an_error_not_a_silent_switch(tmp_path):
    import keyring

    open_store(tmp_path / "h").close()
    keyring.set_keyring(fail.Keyring())
    with pytest.raises(StoreUnavailableError) as err:
        open_store(tmp_path / "h")
    assert err.value.exit_code == 3 and err.value.details["provider"] == "keyring"
    assert not (tmp_path / "h" / "keys").exists()


def test_missing_key_file_exit_3_and_nothing_written(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    store = open_store(tmp_path / "h")
    store.admit(draft("we use uv here"))
    store.close()
    (tmp_path / "h" / "keys" / "kek-v1").unlink()
    before = (tmp_path / "h" / "memvet.db").read_bytes()
    with pytest.raises(KeyMissingError) as err:
        open_store(tmp_path / "h")
    assert err.value.exit_code == 3 and "file" in err.value.message
    assert (tmp_path / "h" / "memvet.db").read_bytes() == before


def test_wrong_key_exit_3(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    open_store(tmp_path / "a").close()
    open_store(tmp_path / "b").close()
    os.replace(tmp_path / "b" / "keys" / "kek-v1", tmp_path / "a" / "keys" / "kek-v1")
    with pytest.raises(KeyWrongError) as err:
        open_store(tmp_path / "a")
    assert err.value.exit_code == 3


def test_a_key_file_readable_by_others_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    open_store(tmp_path / "h").close()
    os.chmod(tmp_path / "h" / "keys" / "kek-v1", 0o644)
    with pytest.raises(StoreUnavailableError, match="chmod 600"):
        open_store(tmp_path / "h")


@pytest.mark.parametrize("provider", ["keyring", "file"])
def test_rotation_rewraps_and_rows_stay_readable(tmp_path, monkeypatch, provider, memory_keyring):
    if provider == "file":
        monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    store = open_store(tmp_path / "h")
    cid = store.admit(draft("tokens live in packages/ui/tokens.ts", kind="fact")).candidate_id
    assert store.rotate_key() == 2
    assert store.rotate_key() == 3
    store.close()
    reopened = open_store(tmp_path / "h")
    assert reopened.get_candidate(cid).statement == "tokens live in packages/ui/tokens.ts"
    assert reopened.key_status()["kek_version"] == 3
    if provider == "file":
        assert sorted(p.name for p in (tmp_path / "h" / "keys").iterdir()) == ["kek-v3"]
    else:
        assert [k for k in memory_keyring.entries if k[1].startswith("kek-v")][0][1].startswith(
            "kek-v3"
        )
    assert reopened.verify_audit().ok


@pytest.mark.parametrize("key_bytes", [16, 32, 64, 65, 100])
def test_keyed_digests_are_hmac_sha256(key_bytes):
    """Blind indexes, content keys, term tokens and audit digests share one HMAC helper (pads
    hashed once per key): each must equal the standard library's HMAC-SHA256."""
    import hashlib
    import hmac

    from memvet.store import term_index
    from memvet.store.row_mac import keyed_digest

    key = os.urandom(key_bytes)
    for data in (b"", b"workspace\x1f/repo", "caf\u00e9 \U0001f600".encode()):
        assert keyed_digest(key, data) == hmac.new(key, data, hashlib.sha256).digest()
    assert term_index.token(key, "pytest") == hmac.new(key, b"pytest", hashlib.sha256).digest()[:16]
    cipher = FieldCipher(new_key(), "k")
    assert (
        cipher.blind_index("user", "ana")
        == hmac.new(cipher._bidx_key, b"user\x1fana", hashlib.sha256).hexdigest()
    )
    assert (
        cipher.statement_key("ana", "Use uv")
        == hmac.new(
            cipher._content_key,
            f"sk2\x1fana\x1f{normalise_statement('Use uv')}".encode(),
            hashlib.sha256,
        ).hexdigest()
    )
