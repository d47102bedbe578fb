"""Member key pairs (X25519) and the team key wrapped once per member's public key.

A wrap is ECIES: an ephemeral X25519 key agrees a secret with the member's public key, HKDF
turns it into an AES-256-GCM key, and that seals the team key. Associated data binds a wrap to
its team, member and key version, so a wrap copied to another member or version fails to open.
The same sealing carries a joining member's name to the team's admins (the team's join key).
"""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

SEP = "\x1f"
RAW = serialization.Encoding.Raw


def new_private_key() -> bytes:
    return X25519PrivateKey.generate().private_bytes(
        RAW, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


def public_of(private: bytes) -> bytes:
    return (
        X25519PrivateKey.from_private_bytes(private)
        .public_key()
        .public_bytes(RAW, serialization.PublicFormat.Raw)
    )


def _kek(shared: bytes, ephemeral_public: bytes, recipient: bytes) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt=ephemeral_public + recipient,
        info=b"memvet/team-seal/v1",
    ).derive(shared)


def seal_to(public: bytes, plaintext: bytes, context: str) -> bytes:
    """ephemeral public (32) | nonce (12) | ciphertext+tag, readable only by `public`'s owner."""
    ephemeral = X25519PrivateKey.generate()
    eph_pub = ephemeral.public_key().public_bytes(RAW, serialization.PublicFormat.Raw)
    key = _kek(ephemeral.exchange(X25519PublicKey.from_public_bytes(public)), eph_pub, public)
    nonce = os.urandom(12)
    return eph_pub + nonce + AESGCM(key).encrypt(nonce, plaintext, context.encode())


def open_sealed(private: bytes, blob: bytes, context: str) -> bytes | None:
    """The plaintext, or None when this key (or this context) is not the one it was sealed to."""
    blob = bytes(blob)
    me = X25519PrivateKey.from_private_bytes(private)
    mine = me.public_key().public_bytes(RAW, serialization.PublicFormat.Raw)
    eph_pub, nonce, body = blob[:32], blob[32:44], blob[44:]
    try:
        key = _kek(me.exchange(X25519PublicKey.from_public_bytes(eph_pub)), eph_pub, mine)
        return AESGCM(key).decrypt(nonce, body, context.encode())
    except (InvalidTag, ValueError):
        return None


def wrap_context(team_id: str, member_id: str, version: int) -> str:
    return f"memvet/team-key/v1{SEP}{team_id}{SEP}{member_id}{SEP}{version}"


def name_context(team_id: str, member_id: str) -> str:
    return f"memvet/team-member-name/v1{SEP}{team_id}{SEP}{member_id}"
