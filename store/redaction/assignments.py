"""Secrets recognisable by what they are assigned to: `name = value` where the name says secret,
`"value" == password`, `NetworkCredential("user", "pass")`, k8s Secret `data:` entries, prose such
as "the password is 'x'". Each finder takes the whole text and returns the spans to mask."""

from __future__ import annotations

import base64
import binascii
import re

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.values import (
    MARKER_PREFIX,
    always,
    char_classes,
    inside_arn,
    is_identifier_like,
    is_pathlike,
    is_placeholder,
    looks_random,
)

Span = tuple[int, int]

# Names that hold something *about* a secret, not the secret: password_length, token_url,
# publicKey, csrf_token (a per-session form nonce), key_id, secret_name, createdAt, ... The last
# word must start at a separator or camelCase boundary: GITHUB_PAT does not end in "at".
NOT_SECRET_NAME = LazyPattern(
    r"(?i)public|^pub|csrf|xsrf|authenticity|nonce|(?:^|[_\-.\s]|(?-i:(?<=[a-z])(?=[A-Z])))"
    r"(?:id|ids|name|url|uri|path|file|dir|type|label|length|len|"
    r"size|format|field|column|hint|prompt|mode|version|endpoint|var|env|vault|policy|arn|store|provider|"
    r"location|ref|count|expiry|expires|expiration|ttl|timeout|at|date|time|enabled|required|regex|pattern|"
    r"min|max|rule|rules|message|msg|error|text|title|help|header|param|prefix|suffix|hash|algorithm|"
    r"alg|method|kind|scope|scopes|reset|manager|placeholder|input|attr|class|style|"
    r"md5|sha\d*|checksum|digest|fingerprint|crc\d*|etag)$"
    # keys that name a row or a request, not access: cache, idempotency and database keys
    r"|(?:cache|idempotency|partition|sort|primary|foreign|composite)[_\-.\s]?key$"
)
_PASSWORDISH = LazyPattern(r"(?i)(?:pass(?:word|wd|phrase)?|pwd|pw|secret[es]?|credentials?)$")
_STRONG_NAME = LazyPattern(
    r"(?i)(?:token|auth|authtoken|bearer|pat|sas|(?:api|access|private|secret|"
    r"license|master|client|app|signing|encryption|account|deploy|service|"
    r"server|subscription|insert|auth|admin|write|webhook)[_\-.]?key)$"
)
# An unquoted value that is code, not a literal: a call, an attribute, an index, an env lookup.
_EXPRESSION = LazyPattern(
    r"^(?:[A-Za-z_]\w*(?:(?:\.|->|::)[A-Za-z_]\w*)+|[\w.$\\]+[(\[].*|"
    r"process\.env\..*|os\.environ.*)$"
)

# `name <binder> value`: the regex finds the secret word that ends the name (or is followed by
# more name words, detect-secrets style `password_super_secure`); the rest of the name is read
# backwards from it, which is cheaper than a lazy prefix.
_ASSIGNMENT = LazyPattern(
    r"""(?ix)
    (?:pass(?:word|wd|phrase)?|pwd|pw|secrete?s?|token|credentials?|key|sas|pat|auth|authtoken|bearer|login)
    (?P<suffix>(?:[_\-][A-Za-z0-9]+){0,3})
    (?![A-Za-z0-9_])(?:\[\d*\])?\\?["'`]?\)?          # maybe quoted, maybe name[] (php)
    [ \t]*(?::{1,3}=|\?=|=>|===|==|!==|!=|:|=|\s(?=@?\\?["'])|(?P<ctor>\()(?=@?["']))[ \t]*@?  # binder; C++ name("x")
    (?:
        \\?"(?P<dq>(?:[^"\n\\]|\\[^"\n]){1,200})\\?" | \\?'(?P<sq>(?:[^'\n\\]|\\[^'\n]){1,200})\\?'
      | `(?P<bq>[^`\n]{1,200})` | (?P<bare>[^\s"'`,;\[<>{}()\\][^\s"'`;]{0,200})
    )"""
)
_WHITESPACE = LazyPattern(r"\s")
_CODE_PUNCTUATION = LazyPattern(r"[(){};=<>]")
_NAME_BEFORE = LazyPattern(r"[A-Za-z0-9_.\-]*$")
_DECLARED_TYPE = LazyPattern(
    r"(?<![\w.])(?!return\b|new\b|await\b|yield\b|throw\b)[A-Za-z_][\w:<>*&]*[ \t]+$"
)
_LEADING_WORD = LazyPattern(r"[A-Za-z]+")


def _code_between_literals(value: str) -> bool:
    """`" + getPassword() + "` or `"+new Buffer(` captured between two string literals is code."""
    stripped = value.strip()
    return (
        stripped[:1] in "+,)]"
        or stripped[-1:] in "+(,["
        or (stripped[:1] == "." and value != stripped)
    )


def _assignment_value(match: re.Match[str]) -> Span | None:
    start = match.start()
    keyword_end = start + always(_LEADING_WORD.match(match.group(0))).end()
    prefix = always(_NAME_BEFORE.search(match.string, max(0, start - 60), start)).group(0)
    suffix = match.group("suffix")
    name = (prefix + match.string[start:keyword_end] + suffix).strip("_.-")
    if NOT_SECRET_NAME.search(name.split(".")[-1]) or inside_arn(match.string, start):
        return None
    if match.group("ctor") and not _DECLARED_TYPE.search(
        match.string, max(0, start - len(prefix) - 40), start - len(prefix)
    ):
        return None  # get_password("service") is a call; only `std::string password("…")` declares
    group = next(g for g in ("dq", "sq", "bq", "bare") if match.group(g) is not None)
    value = match.group(group)
    quoted = group != "bare"
    if not quoted:
        if value.endswith(("...", "…")):  # shown cut short: not the secret
            return None
        value = value.rstrip(".,)")
        if (
            not value
            or _EXPRESSION.match(value)
            or value.startswith(("$", "%", "@", "\\", "#{", "!"))
        ):
            return None
    # `Password=secret;` in a connection string: the slot is unambiguous, a lone word is the password
    slot = match.string.startswith(";", match.start(group) + len(value)) and bool(
        _PASSWORDISH.search(name)
    )
    if (
        value.startswith(MARKER_PREFIX)
        or is_placeholder(value, lone_word_ok=slot)
        or _code_between_literals(value)
        or is_pathlike(value)
        or value.startswith(("arn:", "#"))
    ):
        return None
    if group == "bq" and _WHITESPACE.search(value):  # `command substitution`, not a literal
        return None
    keyword_name = name[: len(name) - len(suffix)] if suffix else name
    if suffix and not quoted:  # `password_policy: strict`: only a generated-looking value counts
        ok = looks_random(value, min_len=12)
    elif _PASSWORDISH.search(keyword_name):  # any literal is the secret itself
        ok = len(value) >= 4
    elif _STRONG_NAME.search(keyword_name):  # tokens and named keys: literals of key length
        ok = (
            len(value) >= 8
            and (quoted or char_classes(value) >= 2 or len(value) >= 16)
            and (quoted or not is_identifier_like(value))
        )
    else:  # `login`, `<anything>_key`: only values that look generated
        min_len = 20 if name.lower().endswith("login") else 8
        ok = looks_random(value, min_len=min_len) or (
            len(value) >= max(min_len, 20)
            and char_classes(value) >= 2
            and not is_identifier_like(value)
        )
    value_start = match.start(group)
    return (value_start, value_start + len(value)) if ok else None


# `"literal" == password` / `!== my_secret`: a comparison against a secret-named variable.
_REVERSED = LazyPattern(
    r"""(?P<q>["'])(?P<v>[^"'\n]{4,200})(?P=q)[ \t]*(?:===?|!==?)[ \t]*"""
    r"""(?P<name>[\w.]*(?i:pass(?:word|wd)?|pwd|secret|token|api_?key|private_?key)\w*)"""
)
# A constructor or call taking (user, password) literals: NetworkCredential, PSCredential,
# DirectoryEntry, HTTPBasicAuth, client.login(...), requests' auth=(...).
_CREDENTIAL_CALL = LazyPattern(
    r"(?:\w*Credentials?|DirectoryEntry|\w*BasicAuth|\.login|\.authenticate|"
    r"\bauth\s*=\s*)\s*\((?P<args>[^()]{0,400})\)"
)
_LITERAL = LazyPattern(r"""@?"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'""")
# A k8s manifest of kind Secret: every entry under data:/stringData: is a secret value.
_YAML_DOCUMENT = LazyPattern(r"(?m)^---\n")
_BASE64 = LazyPattern(r"[A-Za-z0-9+/]+={0,2}")
_K8S_SECRET_KIND = LazyPattern(r"(?im)^\s*kind:\s*[\"']?secret[\"']?\s*$")
_K8S_DATA = LazyPattern(r"(?m)^([ \t]*)(?:data|stringData):[ \t]*$")
_K8S_ENTRY = LazyPattern(
    r"""([ \t]+)["']?[\w.\-]+["']?:[ \t]*["']?(?P<v>[^\s"'#][^\s"']*)["']?[ \t]*$"""
)
# A config line whose whole remainder is the value: `aws_secret_access_key: two words here`.
_CONFIG_LINE = LazyPattern(
    r"(?im)^[ \t]*(?:export[ \t]+)?(?P<name>[\w.\-]*(?:pass(?:word|wd|phrase)?|pwd|"
    r"secret|token|api_?key|access_?key|private_?key))[ \t]*[:=][ \t]*"
    r"(?P<v>[^\s\"'`#!|>&$%{\[][^\n#]{0,78}?)[ \t]*$"
)


def reversed_comparisons(text: str) -> list[Span]:
    spans = []
    for match in _REVERSED.finditer(text):
        value = match.group("v")
        if not NOT_SECRET_NAME.search(match.group("name")) and not is_placeholder(value):
            spans.append(match.span("v"))
    return spans


def credential_calls(text: str) -> list[Span]:
    spans = []
    for call in _CREDENTIAL_CALL.finditer(text):
        literals = list(_LITERAL.finditer(call.group("args")))
        if len(literals) < 2:  # (user, password): one literal alone is not a pair
            continue
        last = literals[-1]
        group = "dq" if last.group("dq") is not None else "sq"
        value = last.group(group)
        if len(value) >= 4 and not is_placeholder(value) and not is_pathlike(value):
            base = call.start("args")
            spans.append((base + last.start(group), base + last.end(group)))
    return spans


def _indent(prefix: str) -> int:
    return len(prefix.expandtabs(8))


def _k8s_value_ok(value: str) -> bool:
    """data: values are base64; judge what they decode to ("YmFyCg==" is just "bar\\n")."""
    if len(value) >= 8 and len(value) % 4 == 0 and _BASE64.fullmatch(value):
        try:
            decoded = base64.b64decode(value).decode().strip()
        except (binascii.Error, UnicodeDecodeError):
            decoded = value
        return len(decoded) >= 4 and not is_placeholder(decoded)
    return len(value) >= 4 and not is_placeholder(value)


def k8s_secret_data(text: str) -> list[Span]:
    spans, base = [], 0
    for document in _YAML_DOCUMENT.split(text):  # kind: Secret applies to its own document only
        if _K8S_SECRET_KIND.search(document):
            for block in _K8S_DATA.finditer(document):
                depth, offset = _indent(block.group(1)), block.end() + 1
                for line in document[offset:].split("\n"):
                    entry = _K8S_ENTRY.match(line)
                    if not line.strip() or entry is None or _indent(entry.group(1)) <= depth:
                        break
                    if _k8s_value_ok(entry.group("v")):
                        spans.append(
                            (base + offset + entry.start("v"), base + offset + entry.end("v"))
                        )
                    offset += len(line) + 1
        base += len(document) + 4  # the "---\n" separator (see _YAML_DOCUMENT)
    return spans


def config_lines(text: str) -> list[Span]:
    """Only values with spaces: single-token values are the assignment detector's job."""
    spans = []
    for match in _CONFIG_LINE.finditer(text):
        value = match.group("v")
        if (
            " " in value
            and not _CODE_PUNCTUATION.search(value)
            and not NOT_SECRET_NAME.search(match.group("name"))
            and not is_placeholder(value)
            and not value.startswith(MARKER_PREFIX)
        ):
            spans.append(match.span("v"))
    return spans


def assignments(text: str, starts: list[int]) -> list[Span]:
    """`_ASSIGNMENT` tried only where a secret word starts (found with str.find by the caller)."""
    spans, end = [], -1
    for start in starts:
        if start < end:
            continue
        match = _ASSIGNMENT.match(text, start)
        if match is not None and (span := _assignment_value(match)) is not None:
            spans.append(span)
            end = match.end()
    return spans
