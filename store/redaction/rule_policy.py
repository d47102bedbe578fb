"""memvet's policy (docs/threat-model.md, "What counts as a secret") over what the pinned rule
sets find (rule_engine): which rules are left out, which run as generic ones, and which of their
findings are not secrets. Plain functions of a rule's id, kind, keywords and the text."""

from __future__ import annotations

import re
from typing import Protocol

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.patterns import aws_key_id_ok, discord_ok, jwt_ok
from memvet.store.redaction.values import (
    is_hash_like,
    is_identifier_like,
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


def accept_any(_secret: str) -> bool:
    return True


def np_kf_value_ok(rule: Rule, secret: str, text: str, match: re.Match[str], start: int) -> bool:
    """memvet's policy on what the Nosey Parker / Kingfisher rules find (they carry no allowlists,
    unlike gitleaks'): a typed example (`wandb 1234567890abcdef…`) unless a provider's prefix is
    glued to it (`sbp_1234…`: a prefix makes a token one) or the match names it a secret before
    it (`geocodify_key … 1234…`: a secret word near it), a publishable key, a name or code
    (`env.DB_PASSWORD`, `Buffer.from(…)`), a token cut short is not a secret; nor, for the
    generic rules, a hash or UUID (a provider's rule may be for a UUID-shaped key)."""
    if is_publishable(secret) or _TRUNCATED.match(text, start + len(secret)):
        return False
    if (
        rule.kind not in POLICY_CHECKS
        and is_typed_pattern(secret)
        and not (  # JWTs: their check
            _prefixed(rule, text, start, secret) or _SECRET_WORD.search(text, match.start(), start)
        )
    ):
        return False
    if is_identifier_like(secret) or "(" in secret:
        return False
    if is_generic(rule):  # loose shapes: a value that holds syntax or a reference is code
        return not (is_hash_like(secret) or _CODE_IN_VALUE.search(secret))
    return not reads_as_words(secret)


def _prefixed(rule: Rule, text: str, start: int, secret: str) -> bool:
    """The secret starts with one of the rule's keywords, or one ends right before it (maybe
    with a `-`, `_` or `.` between)."""
    lowered, head = text[max(0, start - 40) : start].lower(), secret[:40].lower()
    glued = lowered[:-1] if lowered[-1:] in ("-", "_", ".") else lowered
    return any(
        len(k) >= 3 and (head.startswith(k) or lowered.endswith(k) or glued.endswith(k))
        for k in rule.keywords
    )
