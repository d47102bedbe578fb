"""memvet's policy (docs/threat-model.md, "What counts as a secret") over what the pinned rule
sets find (rule_engine): which rules are left out, which run as generic ones, and which of their
findings are not secrets. Plain functions of a rule's id, kind, keywords and the text."""

from __future__ import annotations

import re
from typing import Protocol

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.assignments import NOT_SECRET_NAME
from memvet.store.redaction.patterns import aws_key_id_ok, discord_ok, jwt_ok
from memvet.store.redaction.values import (
    is_hash_like,
    is_identifier_like,
    is_placeholder,
    is_publishable,
    is_typed_pattern,
    reads_as_words,
)


class Rule(Protocol):
    """What the policy reads of a rule (rule_engine.Rule)."""

    id: str
    kind: str
    keywords: tuple[str, ...]


# Rules that name no provider (looser policy checks on what they find, _np_kf_value_ok).
GENERIC = frozenset({"generic-api-key"})
GENERIC_PREFIXES = ("np.generic.", "kingfisher.generic.")
# Rules for what memvet's policy calls public identifiers (docs/threat-model.md): OAuth client
# ids are shipped in web pages and apps; their secrets are caught by the rules for those. Nosey
# Parker marks such rules by category (identifier, domain, infrastructure: buckets, hosts, ids).
POLICY_EXCLUDED = ("-client-id",)
_PUBLIC_CATEGORIES = frozenset({"identifier", "domain", "infrastructure"})
# Kingfisher marks few rules by category: its names say it ("Okta Domain", "Bitbucket Client ID",
# "Snowflake Username"). A webhook URL and credentials in a URL are secrets; so is an AWS key id,
# as the gitleaks rule for it has it.
_PUBLIC_NAME = LazyPattern(r"(?i)\b(?:id|identifier|host|url|uri|domain|username|name|email)$")
_SECRET_NAME = LazyPattern(r"(?i)webhook|credential|access key id")


def policy_excluded(spec: dict) -> bool:
    categories = set(spec.get("categories", ()))
    public = bool(categories & _PUBLIC_CATEGORIES) and "secret" not in categories
    name = spec.get("name", "")
    public = public or bool(_PUBLIC_NAME.search(name) and not _SECRET_NAME.search(name))
    return public or spec["id"].endswith(POLICY_EXCLUDED)


def is_generic(rule: Rule) -> bool:
    return rule.id in GENERIC or rule.id.startswith(GENERIC_PREFIXES)


# memvet's policy where a rule is broader than the credential: a JWT's header is JSON naming its
# "alg" (every real one does; "eyJub3Qi…" spelling {"not": …} is not one); an AWS key id's body is
# random base-32, not typed (AKIAABCDEFGHIJKLMNOP); a Discord bot token starts with the bot's
# numeric id in base64.
# Keyed by marker kind: the same check holds whichever set's rule found the value.
POLICY_CHECKS = {"jwt": jwt_ok, "aws-access-key": aws_key_id_ok, "discord-bot-token": discord_ok}
# A token cut short or masked right after the secret (`xoxp-…-####`, `ghp_abc…`): not usable.
# In a generic rule's value: binder, syntax, a reference, a URL or host, a `[PLACEHOLDER]`.
_CODE_IN_VALUE = LazyPattern(r"^[=:@/]|[;{}]|\$\w|%\w+%|\(|://|\[[A-Z_]+\]")
_SECRET_WORD = LazyPattern(r"(?i)key|secret|token|pass|pwd|private|access|auth|cred")
_TRUNCATED = LazyPattern(r"[-_.]?(?:\.\.|…|\*\*|##|(?i:xx))")


# The name a value is assigned to, read backwards from the value.
_NAME_BEFORE_VALUE = LazyPattern(r"([\w.\-]+)[\"'`]?[ \t]*(?:=|:|=>)[ \t]*[\"'`]?$")


def named_not_secret(text: str, start: int, secret: str) -> bool:
    """A hash or UUID assigned to a name that says what it is (`key_sha256 = <hex>`,
    `Idempotency-Key: <uuid>`): a digest or an id, not a credential (policy)."""
    if not is_hash_like(secret):
        return False
    found = _NAME_BEFORE_VALUE.search(text, max(0, start - 80), start)
    return found is not None and NOT_SECRET_NAME.search(found.group(1)) is not None


def accept_any(_secret: str) -> bool:
    return True


_URL_PASSWORD = LazyPattern(r"://[^\s:/@]*:([^\n@/]+)@")  # `{{ vault_pw }}` holds spaces


def password_is_placeholder(kind: str, secret: str) -> bool:
    """A finding that holds a whole `user:password` (curl -u, a URL's `user:password@`) whose
    password is a documentation placeholder or reference: no credential (policy)."""
    found = _URL_PASSWORD.search(secret) if "@" in secret else None
    if found is not None:
        password = found.group(1)
    elif kind == "basic-auth" and ":" in secret:
        password = secret.split(":", 1)[1]
    else:
        return False
    return is_placeholder(password, lone_word_ok=True)


def np_kf_value_ok(rule: Rule, secret: str, text: str, match: re.Match[str], start: int) -> bool:
    """memvet's policy on what the Nosey Parker / Kingfisher rules find (they carry no allowlists,
    unlike gitleaks'): a typed example (`wandb 1234567890abcdef…`) unless a provider's prefix or
    suffix is glued to it (`sbp_1234…`, `…_mmk`: a mark makes a token one) or a secret word comes shortly before
    it (`geocodify_key … 1234…`; then, in a provider's rule, it is masked even where its
    alphabet runs read as words: `timezoneapi SECRET token abcDEFGHIJ…`), a publishable key, a name or code
    (`env.DB_PASSWORD`, `Buffer.from(…)`), a token cut short is not a secret; nor, for the
    generic rules, a hash or UUID (a provider's rule may be for a UUID-shaped key)."""
    if is_publishable(secret) or _TRUNCATED.match(text, start + len(secret)):
        return False
    if rule.kind not in POLICY_CHECKS and is_typed_pattern(secret):  # JWTs: their check
        named = _SECRET_WORD.search(text, max(0, match.start() - 40), start) is not None
        if not (named or _prefixed(rule, text, start, secret)):
            return False
        if named and not is_generic(rule):  # in a provider's slot, named a secret: a (weak)
            return "(" not in secret  # token by policy, even where its runs read as words
    if is_identifier_like(secret) or "(" in secret:
        return False
    if is_generic(rule):  # loose shapes: a value that holds syntax or a reference is code
        return not (is_hash_like(secret) or _CODE_IN_VALUE.search(secret))
    return not reads_as_words(secret)


def _prefixed(rule: Rule, text: str, start: int, secret: str) -> bool:
    """The secret starts with one of the rule's keywords, or one ends right before it (maybe
    with a `-`, `_` or `.` between), or it ends with a keyword that is a glued suffix (MaxMind's
    `…_mmk`: a provider's mark at the end says what the token is as a prefix does)."""
    lowered, head = text[max(0, start - 40) : start].lower(), secret[:40].lower()
    glued = lowered[:-1] if lowered[-1:] in ("-", "_", ".") else lowered
    tail = secret[-40:].lower()
    return any(
        len(k) >= 3
        and (
            head.startswith(k)
            or lowered.endswith(k)
            or glued.endswith(k)
            or (k[0] in "-_" and k[1:].isalnum() and tail.endswith(k))
        )
        for k in rule.keywords
    )
