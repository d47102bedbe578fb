"""Secrets recognisable by their look alone, with no secret word nearby: long generated-looking
tokens, and the 40-character AWS secret next to its (already masked) access key id."""

from __future__ import annotations

import re

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.assignments import Span
from memvet.store.redaction.public_shapes import (
    has_digest_prefix,
    is_encoded_plain_text,
    is_ssh_public_key,
)
from memvet.store.redaction.values import (
    PUBLIC_NAME_BEFORE,
    char_classes,
    entropy,
    is_hash_like,
    is_masked,
    is_named_hash,
    is_named_path,
    is_pathlike,
    is_placeholder,
    is_publishable,
    is_rooted_path,
    is_typed_pattern,
    looks_random,
    reads_as_words,
)

# Long generated-looking tokens anywhere (no context needed).
LONG_TOKEN = LazyPattern(
    r"(?<![\w/\\.\-+=$%])(?P<v>[A-Za-z0-9+/][A-Za-z0-9_\-+/]{23,}+={0,2})"
    r"(?![\w/\\]|\.[A-Za-z0-9])"
)
LONG_RUN = LazyPattern(r"[A-Za-z0-9_\-+/]{24}")


# Attributes whose long random values are per-page nonces or digests, not credentials:
# Rails authenticity_token, csrf/xsrf tokens, CSP nonces, subresource integrity hashes.
_NONCE_CONTEXT = LazyPattern(r"(?i)csrf|xsrf|authenticity|nonce|integrity")
# A PEM block that holds a public key: its body is public by definition.
_PUBLIC_KEY_BLOCK = LazyPattern(
    r"-----BEGIN [A-Z0-9 ]*PUBLIC KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PUBLIC KEY(?: BLOCK)?-----|\Z)",
    re.S,
)


def long_tokens(text: str) -> list[Span]:
    spans = []
    public = [m.span() for m in _PUBLIC_KEY_BLOCK.finditer(text)] if "PUBLIC KEY" in text else []
    for match in LONG_TOKEN.finditer(text):
        value = match.group("v")
        if public and any(s <= match.start() < e for s, e in public):
            continue
        if "/" in value and is_named_path(value):  # key/<uuid>: an ARN's or a REST path's tail
            continue
        if value[0] in "+/":  # base64 may start with / or +; a path is mostly names, a key is not
            if is_pathlike(value.lstrip("/+")) or "//" in value[:2] or is_rooted_path(value):
                continue
            value = value.lstrip("/+")
        if (
            has_digest_prefix(text, match.start(), value)
            or is_ssh_public_key(value)
            or is_encoded_plain_text(value)
        ):  # policy: digests, public keys and encoded ordinary data are not secrets
            continue
        if is_publishable(value) or _NONCE_CONTEXT.search(
            text, max(0, match.start() - 60), match.start()
        ):
            continue
        if PUBLIC_NAME_BEFORE.search(
            text, max(0, match.start() - 40), match.start()
        ):  # public by policy
            continue
        if (
            len(value) >= 200 and entropy(value[:4096]) >= 5.0
        ):  # encoded random data; a chance "xXxx"
            spans.append(match.span("v"))  # in it is no mask
            continue
        if (
            is_hash_like(value)
            or is_named_hash(value)
            or not looks_random(value, min_len=24)
            or reads_as_words(value)
            or is_typed_pattern(value)
        ):  # with no secret word nearby, abcdef123456… is not a key
            continue
        classes, bits = char_classes(value), entropy(value)
        if (classes == 3 and bits >= 3.6) or (len(value) >= 32 and bits >= 3.9):
            spans.append(match.span("v"))
    return spans


# The AWS secret access key: 40 base64 characters. On its own that could be anything; next to
# an access key id (already masked by then) it is the other half of the pair.
_AWS_SECRET = LazyPattern(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def aws_secret_pairs(text: str) -> list[Span]:
    return [
        m.span()
        for m in _AWS_SECRET.finditer(text)
        if char_classes(m.group(0)) >= 3
        and not is_hash_like(m.group(0))
        and not is_masked(m.group(0))
        and not is_placeholder(m.group(0))
        and not is_typed_pattern(m.group(0))
        and not reads_as_words(m.group(0))
    ]
