"""Secrets recognisable by their surroundings: credentials in URLs, auth headers and command-line
flags, prose ("the password is 'x'"), a secret word followed closely by a generated-looking
token. Tokens recognised by their look alone (long random ones, the AWS secret next to a key
id) are random_tokens.py."""

from __future__ import annotations

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.assignments import NOT_SECRET_NAME, Span
from memvet.store.redaction.patterns import Detector, detector
from memvet.store.redaction.prose import NAMED_AFTER, VERSION
from memvet.store.redaction.values import (
    MARKER_PREFIX,
    always,
    char_classes,
    entropy,
    is_identifier_like,
    is_pathlike,
    is_placeholder,
    is_publishable,
    is_typed_pattern,
    looks_random,
    reads_as_words,
)


def _real(value: str) -> bool:
    return not is_placeholder(value)


_QUOTED_OR_BARE = (
    r"(?:\"(?P<dq>[^\"\n]{1,120})\"|'(?P<sq>[^'\n]{1,120})'|(?P<bare>[^\s\"'`|;,]{2,120}))"
)
# `-p secret` after `-u user`, PowerShell `-Password x`, netrc `login u password p`.
_PASSWORD_FLAG = (
    r"(?i)(?:\s-u(?:ser)?\s+\S+\s+-p|\s-password|\s--password|\blogin\s+\S+\s+password)"
    rf"[ \t=\n]+{_QUOTED_OR_BARE}"
)
# Words between "password" and "is": anything but a sentence end, quoted names included
# ("the password for user 'postgres' is 'admin'").
_PROSE_GAP = r"(?:[^\n\"'.]|\"[^\"\n]{1,30}\"|'[^'\n]{1,30}'){0,60}?"

# After a secret word, the words that make it a thing *about* secrets ("the password manager is
# 'KeePassXC'", "the token endpoint is …"): not followed by the secret.
_ABOUT = (
    r"(?![ \t]+(?:manager|managers|vault|safe|store|policy|policies|reset|field|prompt|hint|rotation|"
    r"length|requirements?|strength|change|expiry|endpoint|url|file|format)\b)"
)

CONTEXT_DETECTORS: tuple[Detector, ...] = (
    # user:password@ inside any URL or connection string (the password only).
    detector(
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://[^\s:/?#@'\"]*:(?P<v>[^\s@/'\"]+)@",
        "://",
        "v",
        lambda v: not is_placeholder(v, lone_word_ok=True),
    ),
    detector(
        "url-password",
        r"(?i)[?&](?:access_token|token|api_?key|apikey|key|secret|password|pwd|sig|"
        r"client_secret|auth)=(?P<v>[^\s&#'\"<>]{6,})",
        ("token=", "key=", "secret=", "password=", "pwd=", "sig=", "auth="),
        "v",
        _real,
    ),
    detector(
        "auth-header",
        r"(?i)\b(?:authorization|proxy-authorization)\s*[:=]\s*[\"']?(?:basic|bearer|token|"
        r"api-token|apikey|digest|key|sso-key|ssws)[ \t]+(?P<v>[A-Za-z0-9+/=_\-.~:]{6,})",
        "authorization",
        "v",
        _real,
    ),
    detector(
        "auth-header",
        r"(?i)\bbearer[ \t:]+(?P<v>[A-Za-z0-9+/=_\-.~]{16,})",
        "bearer",
        "v",
        looks_random,
    ),
    detector(
        "auth-header",
        r"(?i)\bauthorization\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9+/=_\-.~:@]{16,})",
        "authorization",
        "v",
        _real,
    ),
    # .NET/NuGet config: <add key="ClearTextPassword" value="…"/>
    detector(
        "secret-assignment",
        r"(?i)key\s*=\s*[\"'][^\"']*(?:password|secret|token|apikey|api_key)[\"']\s+"
        r"value\s*=\s*[\"'](?P<v>[^\"']{4,})[\"']",
        ("key=", "key ="),
        "v",
        _real,
    ),
    # Bundler source credentials: BUNDLE_GEMS__EXAMPLE__COM=user:password
    detector(
        "basic-auth",
        r"\bBUNDLE_(?:[A-Z0-9]+__)+[A-Z0-9]+[ \t]*[:=][ \t]*[\"']?(?P<v>[^\s\"':]+:[^\s\"';&]+)",
        "bundle_",
        "v",
        _real,
    ),
    # curl -u user:password / --user "user:password" / --user user:'password'
    detector(
        "basic-auth",
        r"(?:^|\s)(?:-u|--user)[ \t]+[\"']?[^\s\"':]*:[\"']?(?P<v>[^\s\"']+)",
        ("-u", "--user"),
        "v",
        _real,
    ),
    detector("password-flag", _PASSWORD_FLAG, ("-p", "password"), ("bare", "dq", "sq"), _real),
    # mysql/mariadb take the password glued to -p (`mysql -u root -pS3cret`); sshpass -p 'pw'.
    detector(
        "password-flag",
        r"(?i)\b(?:mysql\w*|mariadb\w*)\b[^\n|;&]*?\s-p['\"]?(?P<v>[^\s'\"\-][^\s'\"]*)"
        r"|\bsshpass[ \t]+-p[ \t]*['\"]?(?P<w>[^\s'\"]+)",
        ("mysql", "mariadb", "sshpass"),
        ("v", "w"),
        _real,
    ),
    # Prose: "the password is 'hunter2'", "my password is hunter2!" (not "the password manager is …").
    detector(
        "secret-in-prose",
        r"(?i)\b(?:password|passphrase|passcode|pwd|secret|token|api key)\b"
        + _ABOUT
        + _PROSE_GAP
        + r"\b(?:is|was|are|=|:)[ \t]+(?:\"(?P<dq>[^\"\n]{2,64})\"|'(?P<sq>[^'\n]{2,64})')",
        ("password", "passphrase", "passcode", "pwd", "secret", "token", "api key"),
        ("dq", "sq"),
        _real,
        anchored=True,
    ),
    detector(
        "secret-in-prose",
        r"(?i)\b(?:password|passphrase|passcode|pwd)\b"
        + _ABOUT
        + r"[^\n.?!\"']{0,40}?\b(?:is|was|=|:)[ \t]+"
        r"(?P<v>(?=[^\s]*[\d!@#$%^&*])[^\s\"',;()]{4,64}?)(?=[.,;)]?(?:\s|$))",
        ("password", "passphrase", "passcode", "pwd"),
        "v",
        _real,
        anchored=True,
    ),
    # The short words: "pw is hunter2", "the wifi pass is hunter22" (a digit or symbol in the
    # value, and a letter, right after is/was: not "the boarding pass is valid", "… is v2.0").
    detector(
        "secret-in-prose",
        r"(?i)\b(?:pw|pass)\b" + _ABOUT + r"(?:[ \t]+for[ \t]+[\w.\-]{1,30})?[ \t]+(?:is|was)[ \t]+"
        r"(?![vV]?\d+(?:\.\d+)+\b)(?P<v>(?=[^\s]*[A-Za-z])(?=[^\s]*[\d!@#$%^&*])[^\s\"',;()]{4,64}?)"
        r"(?=[.,;)]?(?:\s|$))",
        ("pw", "pass"),
        "v",
        _real,
        anchored=True,
    ),
    # "use the password X for …", "try passphrase 'x y z'": the value right after the word.
    detector(
        "secret-in-prose",
        r"(?i)\b(?:use|using|try|enter|type|with|set)[ \t]+(?:the[ \t]+|our[ \t]+|my[ \t]+|a[ \t]+)?"
        r"(?:\w+[ \t]+)?(?:password|passphrase|passcode|pw|pwd|pin)\b"
        + _ABOUT
        + r"[ \t]+(?:\"(?P<dq>[^\"\n]{2,64})\"|"
        r"'(?P<sq>[^'\n]{2,64})'|(?P<v>(?=[^\s]*[\d!@#$%^&*])[^\s\"',;()]{4,64}?))(?=[.,;)]?(?:\s|$))",
        ("password", "passphrase", "passcode", "pw", "pin"),
        ("dq", "sq", "v"),
        _real,
    ),
    # "the login is deploy / Zx9!pQ2wLm", "login: admin / s3cret": user / password in prose.
    detector(
        "secret-in-prose",
        r"(?i)\b(?:login|log-in|credentials?|creds)(?:[ \t]+(?:is|are)|:)?[ \t]+[\"']?[\w.@\-]{1,64}"
        r"[\"']?[ \t]*/[ \t]*[\"']?(?P<v>(?=[^\s]*[\d!@#$%^&*])[^\s\"',;()/]{4,64}?)[\"']?(?=[.,;)]?(?:\s|$))"
        # "login admin:hunter2": user:password glued (a user starting with a letter, a password
        # with a letter and a digit or symbol: not "login at 10:30")
        r"|\b(?:login|creds)(?:[ \t]+(?:is|are)|:)?[ \t]+[A-Za-z][\w.@\-]{0,63}:"
        r"(?P<w>(?=[^\s]*[A-Za-z])(?=[^\s]*[\d!@#$%^&*])[^\s\"',;()/:]{4,64}?)(?=[.,;)]?(?:\s|$))",
        ("login", "log-in", "cred"),
        ("v", "w"),
        _real,
    ),
    *NAMED_AFTER,  # "we use X as the deploy key", "X is the password" (prose.py)
)

# A secret word ending an identifier, then (a short gap later, same line) a generated-looking token.
NEARBY = LazyPattern(
    r"(?i)(?:(?<![A-Za-z])|(?-i:(?<=[a-z])(?=[A-Z])))(?P<kw>secrets?|tokens?|api[_\-\s]?key|apikey|key|password|"
    r"passwd|pwd|pat|private(?:[_\-\s]?key)?|access(?:[_\-\s]?(?:key|token))?|auth(?:[_\-\s]?token)?|"
    r"credentials?|license(?:[_\-\s]?key)?|bearer)"
    r"(?:[_\-]?(?:key|token|secret|access|private))*"
    r"(?:(?!\w)[^\S\n]*[:=]?[^\n]{0,24}?(?<![\w/\\.\-$%\[])|[_\-])"
    r"(?P<v>[A-Za-z0-9][A-Za-z0-9_\-+/=.~!]{7,})"
)
_CODE_OR_CHECKSUM = LazyPattern(
    r"==(?!=*$)|->|::|\(\)|^(?i:md5|sha\d*|crc\d*)[=:\-]"
)  # trailing == is base64
_KEY_VALUE_PAIR = LazyPattern(
    r"[A-Za-z_]\w*=[^=]"
)  # user=abc&x=y, not base64's "+=" inside a token
_GLUED_NAME = LazyPattern(r"[A-Za-z_]\w{0,30}=(?=[A-Za-z0-9])")
_SAME_CASE_RUN = LazyPattern(r"[a-z]+|[A-Z]+")
_IDENTIFIER_BEFORE = LazyPattern(r"[\w.\-]*$")
_IDENTIFIER_AFTER = LazyPattern(r"[\w.\-]*")
_NOT_SECRET_OWNER = LazyPattern(r"(?i)public|pub$|csrf|xsrf|authenticity")


def _near_keyword_value(value: str) -> bool:
    """Next to a secret word the bar is lower: long, not a word, a name, a path or a placeholder."""
    if (
        is_placeholder(value)
        or is_pathlike(value)
        or is_identifier_like(value)
        or is_publishable(value)
    ):
        return False
    if _CODE_OR_CHECKSUM.search(value) or _KEY_VALUE_PAIR.search(
        value
    ):  # `key=value` pairs, not one token
        return False
    if "/" in value and max(map(len, value.split("/"))) < 16:  # host:port/db/data, a/b/c: a path
        return False
    if value.isdigit():
        return len(value) >= 16
    if len(value) >= 20:  # typed (xyzxyz…12) counts here: next to a secret word it may be real
        return entropy(value) >= 2.0 or is_typed_pattern(value)
    if len(value) >= 12:
        return (
            any(c.isdigit() for c in value) and char_classes(value) >= 2 and entropy(value) >= 2.5
        )
    # 8-11 characters ("the api token is Kx9mQ2vLp7"): both cases and digits, mixed as generated
    # text mixes them (not "1Password", "min12chars", "ssh-ed25519", "order_id_v2")
    return (
        len(value) >= 8
        and char_classes(value) == 3
        and entropy(value) >= 2.75
        and max(map(len, _SAME_CASE_RUN.findall(value))) <= 4
        and not reads_as_words(value)
        and not VERSION.fullmatch(value)
    )


_BLOB_CHARS = LazyPattern(r"[A-Za-z0-9+/]*")
_BLOB_TAIL = LazyPattern(
    r"[A-Za-z0-9+/]*={0,2}"
)  # base64 pads only at its end: `name=value` is two
BLOB_MIN = 48


def _inside_blob(text: str, at: int) -> bool:
    """`at` lies inside (not at the start of) a run of 48+ base64 characters."""
    back = always(_BLOB_CHARS.match(text[max(0, at - BLOB_MIN) : at][::-1])).end()
    return back > 0 and back + always(_BLOB_TAIL.match(text, at)).end() - at >= BLOB_MIN


def nearby(text: str, starts: list[int]) -> list[Span]:
    spans, end = [], -1
    for start in starts:
        if start < end:
            continue
        match = NEARBY.match(text, start)
        if match is None:
            continue
        end = match.end()
        kw_start = match.start("kw")
        if _inside_blob(
            text, kw_start
        ):  # "…aKey…" inside a long base64 run: long_tokens takes it whole
            continue
        owner = always(_IDENTIFIER_BEFORE.search(text, max(0, kw_start - 40), kw_start)).group(0)
        if _NOT_SECRET_OWNER.search(owner + match.group("kw")) or NOT_SECRET_NAME.search(
            owner + match.group("kw")
        ):  # cache-key, Idempotency-Key: keys of a row or a request
            continue
        named = always(_IDENTIFIER_AFTER.match(text, match.end("kw"))).group(0)
        if named and NOT_SECRET_NAME.search(match.group("kw") + named):  # credentials.url=host
            continue
        raw, v_start = match.group("v"), match.start("v")
        if raw.endswith("..") or text.startswith("…", match.end("v")):  # shown cut short
            continue
        value = raw.rstrip(".")
        if (
            glued := _GLUED_NAME.match(value)
        ) is not None:  # `uSER=<token>`: the value is after the =
            value, v_start = value[glued.end() :], v_start + glued.end()
        opener = text[v_start - 1] if v_start else ""
        closer = text[v_start + len(value)] if v_start + len(value) < len(text) else ""
        if (
            opener in "\"'`" and closer in "\"'`" and closer != opener
        ):  # "…' : broken quoting, not a literal
            continue
        if value.startswith(MARKER_PREFIX) or not _near_keyword_value(value):
            continue
        spans.append((v_start, v_start + len(value)))
    return spans
