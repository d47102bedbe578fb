"""Long tokens the policy calls not secret, recognised by what they decode to or what is glued
before them: digests with their algorithm prefix (`sha512-…`, `SHA256:…`), SSH public keys, and
base64 of ordinary text or JSON. The long-token search (random_tokens) asks these before it
takes a token for key material; a secret word nearby is the other detectors' business."""

from __future__ import annotations

import base64
import binascii

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.values import looks_random

# A digest's algorithm written before it: `sha512-<b64>` (npm integrity, SRI), `sha256:<hex>`
# (docker, pip), `SHA256:<b64>` (an SSH key fingerprint), `md5=`.
_DIGEST_PREFIX = LazyPattern(
    r"(?i)(?:sha-?(?:1|224|256|384|512)|sha3-(?:224|256|384|512)|md5|blake2[bs]?|blake3|xxh\d*)[:\-=]"
)
_DIGEST_PREFIX_BEFORE = LazyPattern(_DIGEST_PREFIX.source + r"$")
# The length-prefixed key type an SSH public key's base64 starts with ("AAAAC3NzaC1lZDI1NTE5"
# is 0x0000000b "ssh-ed25519"). Private keys are PEM/OpenSSH blocks, which start otherwise.
_SSH_KEY_TYPES = (b"ssh-", b"ecdsa-", b"sk-ssh-", b"sk-ecdsa-")
# In decoded text, a sign that it carries or names a credential: then it stays redacted.
_SECRET_WORD = LazyPattern(r"(?i)pass|pwd|secret|token|key|auth|cred|bearer|private|session|cookie")
_TEXT_TOKEN = LazyPattern(r"[A-Za-z0-9_\-+/=.]{16,}")


def has_digest_prefix(text: str, start: int, value: str) -> bool:
    """The token at `start` is a digest named by its algorithm (glued to it or just before it)."""
    return (
        _DIGEST_PREFIX.match(value) is not None
        or _DIGEST_PREFIX_BEFORE.search(text, max(0, start - 12), start) is not None
    )


def _b64decode(value: str) -> bytes | None:
    body = value.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def is_ssh_public_key(value: str) -> bool:
    if not value.startswith("AAAA") or len(value) < 32:
        return False
    head = _b64decode(value[:32])
    if head is None:
        return False
    return 7 <= int.from_bytes(head[:4], "big") <= 40 and head[4:].startswith(_SSH_KEY_TYPES)


def is_encoded_plain_text(value: str) -> bool:
    """Base64 of prose or JSON (random bytes never decode to printable UTF-8 at this length)
    that names no credential and holds no generated-looking token: data, not a key."""
    if len(value) < 24:
        return False
    raw = _b64decode(value)
    if raw is None:
        return False
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if not decoded.replace("\n", " ").replace("\t", " ").isprintable():
        return False
    if decoded.count(" ") < 2 and decoded.lstrip()[:1] not in "{[":
        return False  # "admin:hunter2" has no spaces: a credential's base64 stays redacted
    return _SECRET_WORD.search(decoded) is None and not any(
        looks_random(token.group(0)) for token in _TEXT_TOKEN.finditer(decoded)
    )
