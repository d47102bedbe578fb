"""Credentials recognisable by their shape alone: private-key blocks, provider tokens with a fixed
prefix and length, JWTs, password hashes, webhook URLs. Each entry names the marker kind, the
regex, the capture group to mask, an extra check on the captured value, and "needles": lower-case
substrings the text must contain before the regex is even tried (the cheap gate). Every regex
here is written for this module; none is copied from a third-party rule set."""

from __future__ import annotations

import base64
import binascii
import json
import re
import string
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.provider_tokens import PROVIDER_NEEDLES, PROVIDER_TOKENS
from memvet.store.redaction.values import (
    is_masked,
    is_placeholder,
    is_typed_pattern,
    word_coverage,
)


@dataclass(frozen=True)
class Detector:
    kind: str
    pattern: LazyPattern
    groups: tuple[int | str, ...]  # the part of the match to mask: the first group that matched
    check: Callable[[str], bool] | None  # extra test on that part
    gate: LazyPattern  # the lower-cased text must contain one of the needles
    needles: tuple[str, ...]  # (few needles: tested with `in`, cheaper than the gate regex)
    long_token: bool  # the secret is a 16+ character token: skip texts that have none
    anchored: bool  # the pattern starts with a needle: try it only where the gate found one


def detector(
    kind: str,
    pattern: str,
    needles: tuple[str, ...] | str,
    group: int | str | tuple[int | str, ...] = 0,
    check: Callable[[str], bool] | None = None,
    flags: int = 0,
    long_token: bool = False,
    anchored: bool = False,
) -> Detector:
    needles = (needles,) if isinstance(needles, str) else needles
    return Detector(
        kind,
        LazyPattern(pattern, flags),
        group if isinstance(group, tuple) else (group,),
        check,
        LazyPattern("|".join(map(re.escape, needles))),
        needles,
        long_token,
        anchored,
    )


def gate_open(detector: Detector, lowered: str) -> bool:
    if len(detector.needles) <= 4:
        return any(needle in lowered for needle in detector.needles)
    return detector.gate.search(lowered) is not None


# A run of token characters long enough to hold any token below (the shortest is ~16).
LONG_CANDIDATE = LazyPattern(r"[A-Za-z0-9_\-+/=.~:!]{16,}")


def token_ok(value: str) -> bool:
    """A prefixed token that is not a placeholder (xxxx, ****, EXAMPLE, one character repeated,
    <your-key>, a word saying fake) and not spelled in words (xoxe.xoxp-1-RANDOMSTRINGHERE). A
    typed-looking or made-up body such as abcdef123456 or hellOworld380_test still counts: with a
    provider prefix in front, masking a fake costs nothing."""
    if _DISCORD_SHAPE.match(value) and not discord_ok(value):
        return False
    return not is_placeholder(value) and word_coverage(value) < 0.65


_DISCORD_SHAPE = LazyPattern(r"[MNO][A-Za-z\d]{23,27}\.")
_SNOWFLAKE = LazyPattern(r"\d{17,20}")


def discord_ok(token: str) -> bool:
    """A Discord bot token starts with its bot's id, a numeric snowflake, in base64: a body that
    decodes to anything else is made up in that shape."""
    head = token.split(".", 1)[0]
    try:
        decoded = base64.b64decode(head + "=" * (-len(head) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return _SNOWFLAKE.fullmatch(decoded.decode("ascii", "replace")) is not None


_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


def github_checksum_ok(token: str) -> bool:
    """Classic GitHub tokens end in base62(CRC32(30-char body)): a valid one is certainly real."""
    body, tail = token[4:34], token[34:]
    if len(body) != 30 or len(tail) != 6:
        return False
    crc, digits = zlib.crc32(body.encode()), ""
    while crc:
        crc, rest = divmod(crc, 62)
        digits = _BASE62[rest] + digits
    return digits.rjust(6, "0") == tail


def _github_ok(token: str) -> bool:
    return github_checksum_ok(token) or token_ok(token.split("_", 1)[-1] if "_" in token else token)


def _b64url_json(segment: str) -> object:
    if len(segment) > 2000:  # a JOSE header is a few dozen bytes
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (binascii.Error, ValueError, RecursionError):
        return None


def jwt_ok(token: str) -> bool:
    """header.payload[.signature] whose header decodes to a JSON object naming its "alg"."""
    parts = token.split(".")
    header = _b64url_json(parts[0])
    return len(parts) >= 2 and isinstance(header, dict) and "alg" in header and len(parts[1]) >= 8


_PEM_BODY = LazyPattern(r"[A-Za-z0-9+/=]{4,}")
_PEM_MASKED = LazyPattern(r"\.\.\.|…|(?i:x{4,})|\*{3,}")
_NUMERIC_ID = LazyPattern(r"\d{8,}")


def pem_ok(block: str) -> bool:
    """A key block with key material in it, not `BEGIN PRIVATE KEY … anything … END` or `…`."""
    if "\\n" in block:  # a key inside a string literal: "…\r\n…" escapes its line breaks
        block = block.replace("\\r", "").replace("\\n", "\n")
    lines = [line for line in block.splitlines()[1:] if ":" not in line and "-----" not in line]
    body = "".join(_PEM_BODY.findall("".join(lines)))
    return len(body) >= 24 and not _PEM_MASKED.search(block)


def slack_ok(token: str) -> bool:
    """Bot/user/app tokens carry numeric team and user ids (8+ digits); refresh and configuration
    tokens (xoxe…, xox?-1-…) a long generated body. `xoxb-12345-abcd234`, `xoxp-1234-1234-…` and
    `xoxp-1234567890` are made up."""
    if token.startswith("xoxe") or token[5:7] == "1-":
        shaped = len(token) >= 60
    else:
        shaped = _NUMERIC_ID.search(token) is not None and len(token) >= 24
    return shaped and token_ok(token[5:])


def aws_key_id_ok(key_id: str) -> bool:
    """Not a placeholder, and not typed (A3T0ABCDEFGHIJKLMNOP): AWS ids are random base-32."""
    return not is_placeholder(key_id[4:]) and not is_typed_pattern(key_id[4:])


SHAPE_DETECTORS: tuple[Detector, ...] = (
    # Private keys: the whole block, escaped newlines and quoted concatenations included; a block
    # cut short (no END line) runs to the next blank line.
    detector(
        "private-key",
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:.{0,20000}?-----END[ A-Z0-9]*"
        r"PRIVATE KEY(?: BLOCK)?-----|(?:[^\n]*\n?){0,60}?(?:\n\s*\n|\Z))",
        "private key",
        check=pem_ok,
        flags=re.S,
    ),
    detector(
        "private-key",
        r"PuTTY-User-Key-File-\d+:.*?Private-Lines:\s*\d+\s*\n(?:[A-Za-z0-9+/=]+\n?)+",
        "putty-user-key",
        flags=re.S,
    ),
    detector(
        "private-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}", "age-secret-key"
    ),  # bech32 age identity
    detector(
        "private-key", r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]{20,}", "ls0tls1crudjti"
    ),  # base64 of "-----BEGIN"
    # crypt(3)-style password hashes ($2b$…, $6$…, $argon2id$…): crackable offline, so masked.
    detector(
        "password-hash",
        r"\$(?:1|2[abxy]?|5|6|8|9|apr1|y|argon2(?:id|i|d)|krb5\w+)\$[^\s'\"`,;]{8,}",
        "$",
    ),
    # AWS key ids: a 4-letter type prefix and 16 base-32 characters (AKIA long-lived, ASIA session).
    detector(
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)"
        r"[A-Z0-9]{16}\b",
        (
            "a3t",
            "akia",
            "asia",
            "abia",
            "acca",
            "agpa",
            "aida",
            "aroa",
            "aipa",
            "anpa",
            "anva",
            "apka",
        ),
        check=aws_key_id_ok,
        long_token=True,
    ),
    # GitHub: gh{p,o,u,s,r}_ + 36 (checksummed), fine-grained github_pat_…
    detector(
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255})",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        check=_github_ok,
        long_token=True,
    ),
    detector(
        "gitlab-token",
        r"\b(?:gl(?:pat|dt|rt|ptt|ft|imt|agent|oas|cbt|soat|ffct|sa|feed)-"
        r"[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})",
        ("gl", "gr1348941"),
        check=token_ok,
        long_token=True,
    ),
    detector(
        "slack-token",
        r"\bxox[abposre]-[A-Za-z0-9\-]{10,}|\bxapp-[A-Za-z0-9\-/]{10,}",
        ("xox", "xapp-"),
        check=slack_ok,
        long_token=True,
    ),
    detector(
        "slack-webhook",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]+",
        "hooks.slack.com",
        check=lambda v: not is_masked(v.rsplit("/", 1)[-1]),
    ),
    # Incoming-webhook URLs carry their credential in the path.
    detector(
        "webhook-url",
        r"https?://(?:discord(?:app)?\.com/api/webhooks|outlook\.office(?:365)?\.com/webhook"
        r"|[\w\-]+\.webhook\.office\.com/webhookb2|hooks\.zapier\.com/hooks/catch"
        r"|[\w\-.]+/(?:[\w\-.]+/)*webhooks?)/[^\s'\"<>]*[A-Za-z0-9]{12,}[^\s'\"<>]*",
        "hook",
        check=lambda v: not is_masked(v),
    ),
    # Stripe secret and restricted keys (publishable pk_ keys are meant to be public), webhook secrets.
    detector(
        "stripe-key",
        r"\b[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{20,}",
        ("_live_", "_test_", "_prod_", "whsec_"),
        check=token_ok,
        long_token=True,
    ),
    detector(
        "anthropic-key",
        r"\bsk-ant-[a-z]+\d*-[A-Za-z0-9_\-]{20,}",
        "sk-ant-",
        check=token_ok,
        long_token=True,
    ),
    # OpenAI: T3BlbkFJ is base64 of "OpenAI", embedded in every legacy and project key.
    detector(
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]*T3BlbkFJ[A-Za-z0-9_\-]+"
        r"|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|\bsk-[A-Za-z0-9]{32,}",
        "sk-",
        check=token_ok,
        long_token=True,
    ),
    detector(
        "google-api-key",
        r"\bAIza[0-9A-Za-z_\-]{35}(?![\w\-])",
        "aiza",
        check=token_ok,
        long_token=True,
    ),
    detector(
        "google-oauth",
        r"\bya29\.[0-9A-Za-z_\-]{20,}|\bGOCSPX-[A-Za-z0-9_\-]{20,}|\b1//0[A-Za-z0-9_\-]{30,}",
        ("ya29.", "gocspx-", "1//0"),
        check=token_ok,
        long_token=True,
    ),
    detector(
        "jwt",
        r"\bey[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]*)?",
        "ey",
        check=jwt_ok,
        long_token=True,
    ),
    detector(
        "provider-token",
        rf"(?<![A-Za-z0-9_\-])(?:{PROVIDER_TOKENS})(?![A-Za-z0-9_])",
        PROVIDER_NEEDLES,
        check=token_ok,
        long_token=True,
    ),
)
