"""Secret redaction for everything the pipeline keeps (statements, excerpts, hints).

`redact(text)` replaces credentials with markers such as `[REDACTED:aws-access-key]` and says how
many it replaced and of which kinds. It runs on every user statement, so every pattern is
compiled once at import and a cheap prefilter lets ordinary prose through untouched.

Detectors, most specific first: private-key blocks, provider tokens with a known shape,
credentials inside URLs and auth headers, `name = value` assignments whose name says "secret",
a secret word followed closely by a random-looking token, then long random-looking tokens on
their own. URLs without credentials, file paths and ordinary identifiers are left alone.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

MARKER = "[REDACTED:{}]"
_MARKER_PREFIX = "[REDACTED:"


@dataclass(frozen=True)
class RedactionResult:
    text: str
    count: int
    kinds: tuple[str, ...]  # distinct kinds, in order of first appearance

    @property
    def changed(self) -> bool:
        return self.count > 0


# --- value checks ----------------------------------------------------------------------------

_PLACEHOLDER_WORDS = frozenset(
    "password passwd pass pwd token key apikey api_key value string none null nil true "
    "false undefined empty changeme placeholder redacted example sample dummy xxx your_password "
    "your_token your_api_key yourpassword new self this".split()
)
_PLACEHOLDER = re.compile(
    r"""^(?:
        \\?\$\{?[\w.\-]+\}? | \$\(.*\) | \#\{.*\} | %[\w.]+%? | \{\{.*\}\} | \$\{\{.*\}\} | <.*> | &lt;.*&gt;
      | \[[^\[\]]*\] | \{[^{}]*\} | @\w+@ | %[sdr] | \*+
      | .*(?:x{4,}|X{4,}|\*{3,}|\.{3,}|_{4,}|EXAMPLE|(?i:your[_\-\s]?(?:api|key|token|secret|pass)))
    )$""",
    re.VERBOSE,
)
# An unquoted value that is code, not a literal: a call, an attribute, an index, an env lookup.
_EXPRESSION = re.compile(r"^(?:[A-Za-z_]\w*(?:(?:\.|->|::)[A-Za-z_]\w*)+|[\w.$\\]+[(\[].*|"
                         r"process\.env\..*|os\.environ.*)$")


def _entropy(value: str) -> float:
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _classes(value: str) -> int:
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value))


def _is_placeholder(value: str) -> bool:
    stripped = value.strip().strip("'\"`")
    if not stripped or stripped.lower() in _PLACEHOLDER_WORDS or len(set(stripped)) == 1:
        return True
    return bool(_PLACEHOLDER.match(stripped))


# A path or identifier segment: lower/snake/kebab case, CONSTANT_CASE or one Capitalised word.
_WORDY_SEGMENT = re.compile(r"[a-z][a-z0-9_\-]*|[A-Z][a-z0-9_\-]+|[A-Z][A-Z0-9_\-]+")


def _is_wordy(segment: str) -> bool:
    base = segment.split(".")[0]
    return (bool(base) and (_WORDY_SEGMENT.fullmatch(base) is not None or _is_camel_identifier(base))
            and sum(c.isdigit() for c in base) * 3 <= len(base) and re.search(r"[A-Za-z]{3}", base) is not None)


def _is_pathlike(value: str) -> bool:
    """A file path, URL or dotted identifier: separated segments that read like names."""
    if value.startswith(("/", "./", "../", "~/", "#/")) or "://" in value:
        return True
    segments = [s for s in re.split(r"[/\\]", value) if s]
    if len(segments) < 2:
        return False
    wordy = sum(1 for s in segments if _is_wordy(s))
    return wordy >= 2 or (wordy >= 1 and re.search(r"\.[A-Za-z]{1,5}$", segments[-1]) is not None)


_NAME_SEGMENT = re.compile(r"[a-z]{3,}|[A-Z][a-z]{2,}|[A-Z]{3,}")
_HEXISH = re.compile(r"[0-9a-fA-F]{4,}")


_CAMEL_PART = re.compile(r"[A-Z]{2,}(?=[A-Z][a-z]|$|\d)|[A-Z]?[a-z]{2,}|\d{1,3}")


def _is_camel_identifier(segment: str) -> bool:
    """`getMasterUserPassword`, `SecurityIdentifier`, `rememberMeLabel`: made of whole words."""
    parts = _CAMEL_PART.findall(segment)
    words = [p for p in parts if not p.isdigit()]
    return (len(words) >= 2 and "".join(parts) == segment and len(parts) - len(words) <= 1
            and max(map(len, words)) <= 15
            and re.search(r"[a-z][A-Z]|^[A-Z]{2,}[a-z]", segment) is not None)


def _is_identifier_like(value: str) -> bool:
    """`jetbrains.mps.v8_elimination`, `DOC_Vector_5_32`, `env.SOME_PASSWORD`: names, not keys."""
    segments = re.split(r"[._\-:/]", value)
    named = [s for s in segments if (_NAME_SEGMENT.fullmatch(s) or _is_camel_identifier(s))
             and not _HEXISH.fullmatch(s)]
    if len(segments) == 1:
        return _is_camel_identifier(value)
    return len(named) >= 2 and sum(map(len, named)) * 2 >= len(value)


_WORD_RUN = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}(?![a-z])")
_VOWELS = frozenset("aeiouyAEIOUY")


def _word_coverage(value: str) -> float:
    """Share of the value spelled by pronounceable word runs: high for names, low for key material."""
    covered = sum(len(run) for run in _WORD_RUN.findall(value)
                  if sum(c in _VOWELS for c in run) * 10 >= len(run) * 3)
    return covered / len(value) if value else 0.0


def _reads_as_words(value: str) -> bool:
    return _is_identifier_like(value) or _word_coverage(value) >= 0.65


def looks_random(value: str, *, min_len: int = 16) -> bool:
    """A token that reads like generated key material rather than a word, path or number."""
    if len(value) < min_len or _is_placeholder(value) or _is_pathlike(value):
        return False
    if value.isdigit():
        return len(value) >= 20
    if _classes(value) < 2 or _is_identifier_like(value):
        return False
    return _entropy(value) >= (3.0 if len(value) < 24 else 3.3)


# --- detectors -------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Detector:
    kind: str
    pattern: re.Pattern[str]
    groups: tuple[int | str, ...]  # the part of the match to replace: the first group that matched
    check: Callable[[str], bool] | None  # extra test on that part
    needles: tuple[str, ...]  # cheap gate: the lowercased text must contain one of these


def _real(value: str) -> bool:
    return not _is_placeholder(value)


def _d(kind: str, pattern: str, needles: tuple[str, ...] | str, group: int | str | tuple[int | str, ...] = 0,
       check: Callable[[str], bool] | None = _real, flags: int = 0) -> _Detector:
    needles = (needles,) if isinstance(needles, str) else needles
    groups = group if isinstance(group, tuple) else (group,)
    return _Detector(kind, re.compile(pattern, flags), groups, check, needles)


_PROVIDER_TOKENS = "|".join([
    r"hf_[A-Za-z]{30,}", r"api_org_[A-Za-z]{30,}", r"npm_[A-Za-z0-9]{36}",
    r"pypi-AgE[A-Za-z0-9_\-]{40,}", r"SG\.[\w\-]{16,}\.[\w\-]{20,}",
    r"do[oprt]_v1_[a-f0-9]{64}", r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{2,35}\.)?[A-Za-z0-9]{30,}",
    r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", r"sq0(?:atp|csp|idp)-[\w\-]{20,}",
    r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", r"dapi[a-f0-9]{32}(?:-\d)?", r"hv[sbr]\.[\w\-]{20,}",
    r"ATATT3[\w\-=]{40,}", r"ATBB[A-Za-z0-9]{28,}", r"glc_[A-Za-z0-9+/]{30,}=*",
    r"lin_(?:api|oauth)_[A-Za-z0-9]{30,}", r"ntn_[A-Za-z0-9]{40,}", r"sntr[yu]s_[A-Za-z0-9_=+/]{40,}",
    r"sgp_(?:local_)?[A-Za-z0-9]{30,}", r"sq[upa]_[A-Za-z0-9]{30,}", r"AKCp[A-Za-z0-9]{60,}",
    r"ops_eyJ[A-Za-z0-9+/=_\-]{40,}", r"key-[0-9a-f]{32}", r"[0-9a-f]{32}-us\d{1,2}",
    r"NR(?:AK|II|AA|JS)-[A-Za-z0-9]{20,}", r"fo1_[\w\-]{30,}", r"HRKU-[\w\-]{40,}",
    r"da2-[a-z0-9]{26}", r"\d{8,10}:AA[\w\-]{33}", r"[MNO][A-Za-z\d]{23,27}\.[\w\-]{6,7}\.[\w\-!]{27,}",
    r"[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}", r"SK[0-9a-fA-F]{32}", r"AC[0-9a-f]{32}",
    r"EAA[A-Za-z0-9]{60,}", r"xai-[A-Za-z0-9]{60,}", r"gsk_[A-Za-z0-9]{40,}", r"r8_[A-Za-z0-9]{30,}",
    r"pplx-[A-Za-z0-9]{40,}", r"sk-or-v1-[a-f0-9]{40,}", r"LTAI[A-Za-z0-9]{12,30}",
    r"tfp_[A-Za-z0-9]{40,}", r"pnu_[A-Za-z0-9]{30,}", r"rubygems_[a-f0-9]{48}",
    r"dckr_pat_[\w\-]{20,}", r"atlasv1\.[\w\-]{40,}", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
    r"[ps]k\.eyJ[\w\-]{20,}\.[\w\-]{10,}", r"oy2[a-z0-9]{43}", r"tvly-[A-Za-z0-9]{20,}",
    r"00D[A-Za-z0-9]{12,15}![A-Za-z0-9_.]{60,}", r"bkua_[a-z0-9]{40}", r"tskey-[a-z]+-[A-Za-z0-9\-]{6,}",
    r"tkn\.v1_[A-Za-z0-9+/=]{40,}",
])
_QUOTED_OR_BARE = r"(?:\"(?P<dq>[^\"\n]{1,120})\"|'(?P<sq>[^'\n]{1,120})'|(?P<bare>[^\s\"'`|;,]{2,120}))"

_PASSWORD_FLAG = (r"(?i)(?:\s-u(?:ser)?\s+\S+\s+-p|\s-password|\s--password|\blogin\s+\S+\s+password)"
                  rf"[ \t=\n]+{_QUOTED_OR_BARE}")
_PROVIDER_NEEDLES = ("hf_", "api_org_", "npm_", "pypi-", "sg.", "_v1_", "dp.", "shp", "sq0", "xkeysib-",
                     "dapi", "hvs.", "hvb.", "hvr.", "atatt3", "atbb", "glc_", "lin_", "ntn_", "sntr", "sgp_",
                     "squ_", "sqp_", "sqa_", "akcp", "ops_", "key-", "-us", "nrak-", "nrii-", "nraa-", "nrjs-",
                     "fo1_", "hrku-", "da2-", ":aa", ".", "q~", "sk", "ac", "eaa", "xai-", "gsk_", "r8_",
                     "pplx-", "sk-or-", "ltai", "tfp_", "pnu_", "rubygems_", "dckr_pat_", "atlasv1.",
                     "pmak-", "oy2", "tvly-", "00d", "bkua_", "tskey-", "tkn.v1_")

_DETECTORS: tuple[_Detector, ...] = (
    # Private keys: the whole block, escaped newlines and quoted concatenations included.
    _d("private-key", r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:.{0,20000}?-----END[ A-Z0-9]*"
       r"PRIVATE KEY(?: BLOCK)?-----|(?:[^\n]*\n?){0,60}?(?:\n\s*\n|\Z))", "private key", check=None, flags=re.S),
    _d("private-key", r"PuTTY-User-Key-File-\d+:.*?Private-Lines:\s*\d+\s*\n(?:[A-Za-z0-9+/=]+\n?)+",
       "putty-user-key", check=None, flags=re.S),
    _d("private-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}", "age-secret-key"),
    _d("private-key", r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]{20,}", "ls0tls1crudjti"),  # base64 of "-----BEGIN"
    _d("password-hash", r"\$(?:1|2[abxy]?|5|6|8|9|apr1|y|argon2(?:id|i|d)|krb5\w+)\$[^\s'\"`,;]{8,}", "$",
       check=None),
    _d("aws-access-key", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)"
       r"[A-Z0-9]{16}\b", ("a3t", "akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa",
                          "anva", "apka")),
    _d("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255})",
       ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _d("gitlab-token", r"\b(?:gl(?:pat|dt|rt|ptt|ft|imt|agent|oas|cbt|soat|ffct|sa|feed)-"
       r"[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})", ("gl", "gr1348941")),
    _d("slack-token", r"\bxox[abposre]-[A-Za-z0-9\-]{10,}|\bxapp-[A-Za-z0-9\-/]{10,}", ("xox", "xapp-")),
    _d("slack-webhook", r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]+",
       "hooks.slack.com"),
    _d("webhook-url", r"https?://(?:discord(?:app)?\.com/api/webhooks|outlook\.office(?:365)?\.com/webhook"
       r"|[\w\-]+\.webhook\.office\.com/webhookb2|hooks\.zapier\.com/hooks/catch"
       r"|[\w\-.]+/(?:[\w\-.]+/)*webhooks?)/[^\s'\"<>]*[A-Za-z0-9]{12,}[^\s'\"<>]*", "hook"),
    _d("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{20,}",
       ("_live_", "_test_", "_prod_", "whsec_")),
    _d("anthropic-key", r"\bsk-ant-[a-z]+\d*-[A-Za-z0-9_\-]{20,}", "sk-ant-"),
    _d("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]*T3BlbkFJ[A-Za-z0-9_\-]+"
       r"|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|\bsk-[A-Za-z0-9]{32,}", "sk-"),
    _d("google-api-key", r"\bAIza[0-9A-Za-z_\-]{30,}", "aiza"),
    _d("google-oauth", r"\bya29\.[0-9A-Za-z_\-]{20,}|\bGOCSPX-[A-Za-z0-9_\-]{20,}|\b1//0[A-Za-z0-9_\-]{30,}",
       ("ya29.", "gocspx-", "1//0")),
    _d("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ?[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]*)?", "eyj"),
    _d("jwt", r"\bey[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}", "ey"),
    _d("provider-token", rf"(?<![A-Za-z0-9_\-])(?:{_PROVIDER_TOKENS})(?![A-Za-z0-9_])", _PROVIDER_NEEDLES,
       check=lambda v: _real(v) and _word_coverage(v) < 0.65),
    # user:password@ inside any URL or connection string (the password only).
    _d("url-password", r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://[^\s:/?#@'\"]*:(?P<v>[^\s@/'\"]+)@", "://", "v",
       lambda v: not _PLACEHOLDER.match(v) and len(set(v)) > 1),
    _d("url-password", r"(?i)[?&](?:access_token|token|api_?key|apikey|key|secret|password|pwd|sig|"
       r"client_secret|auth)=(?P<v>[^\s&#'\"<>]{6,})", "=", "v"),
    _d("auth-header", r"(?i)\b(?:authorization|proxy-authorization)\s*[:=]\s*[\"']?(?:basic|bearer|token|"
       r"api-token|apikey|digest|key|sso-key|ssws)[ \t]+(?P<v>[A-Za-z0-9+/=_\-.~:]{6,})", "authorization", "v"),
    _d("auth-header", r"(?i)\bbearer[ \t:]+(?P<v>[A-Za-z0-9+/=_\-.~]{16,})", "bearer", "v", looks_random),
    _d("auth-header", r"(?i)\bauthorization\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9+/=_\-.~:@]{16,})", "authorization", "v"),
    # .NET/NuGet config: <add key="ClearTextPassword" value="…"/>
    _d("secret-assignment", r"(?i)key\s*=\s*[\"'][^\"']*(?:password|secret|token|apikey|api_key)[\"']\s+"
       r"value\s*=\s*[\"'](?P<v>[^\"']{3,})[\"']", "value", "v"),
    _d("basic-auth", r"(?:^|\s)(?:-u|--user)[ \t]+[\"']?[^\s\"':]*:(?P<v>[^\s\"']+)", ("-u", "--user"), "v"),
    # `-p secret` after `-u user`, PowerShell `-Password x`, netrc `login u password p`.
    _d("password-flag", _PASSWORD_FLAG, ("-p", "password"), ("bare", "dq", "sq")),
    # Prose: "the password is 'hunter2'", "my password is hunter2!".
    _d("secret-in-prose", r"(?i)\b(?:password|passphrase|passcode|pwd|secret|token|api key)\b[^\n\"'.]{0,40}?"
       r"\b(?:is|was|are|=|:)[ \t]+(?:\"(?P<dq>[^\"\n]{2,64})\"|'(?P<sq>[^'\n]{2,64})')",
       ("pass", "pwd", "secret", "token", "api key"), ("dq", "sq")),
    _d("secret-in-prose", r"(?i)\b(?:password|passphrase|passcode|pwd)\b[^\n.?!\"']{0,40}?\b(?:is|was|=|:)[ \t]+"
       r"(?P<v>(?=[^\s]*[\d!@#$%^&*])[^\s\"',;()]{4,64}?)(?=[.,;)]?(?:\s|$))", ("pass", "pwd"), "v"),
)


def _code_between_literals(value: str) -> bool:
    """`" + getPassword() + "` captured between two string literals is code, not a value."""
    stripped = value.strip()
    return (stripped[:1] in "+.,)]" or stripped[-1:] in "+.(,[") and value != stripped or stripped[:1] in ",)]"


# `name <binder> value`, where the name ends in a word that means "this is secret". The regex
# finds that last word; the rest of the name is read backwards from it (cheaper than a lazy prefix).
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (?:pass(?:word|wd|phrase)?|pwd|secrete?s?|token|credentials?|key|sas|pat|auth|authtoken|bearer|login)
    (?![A-Za-z0-9_])(?:\[\d*\])?\\?["'`]?\)?          # maybe quoted, maybe name[] (php)
    [ \t]*(?::{1,3}=|\?=|=>|===|==|!==|!=|:|=|\s(?=\\?["']))[ \t]*@?   # a binder, or a space before a quote
    (?:
        \\?"(?P<dq>[^"\n\\]{1,200})\\?" | \\?'(?P<sq>[^'\n\\]{1,200})\\?' | `(?P<bq>[^`\n]{1,200})`
      | (?P<bare>[^\s"'`,;\[<>{}()\\][^\s"'`;]{0,200})
    )""")
_NAME_BEFORE = re.compile(r"[A-Za-z0-9_.\-]*$")
_NOT_SECRET_NAME = re.compile(r"(?i)public|^pub|(?:id|name|url|uri|path|file|type|label|length|size|"
                              r"format|field|column|hint|prompt|mode|version|endpoint|var|vault|"
                              r"policy|arn|store|provider|location|ref|count|expiry|expires)$")
_PASSWORDISH = re.compile(r"(?i)(?:pass(?:word|wd|phrase)?|pwd|secret[es]?|credentials?)$")
_STRONG_NAME = re.compile(r"(?i)(?:token|auth|authtoken|bearer|pat|sas|(?:api|access|private|secret|"
                          r"license|master|client|app|signing|encryption|account|deploy|service|"
                          r"server|subscription|insert|auth|admin|write|webhook)[_\-.]?key)$")


def _assignment_value(match: re.Match[str]) -> tuple[int, int] | None:
    """The span of the value to redact, or None when the assignment is not a credential."""
    start = match.start()
    keyword_end = start + re.match(r"[A-Za-z]+", match.group(0)).end()
    prefix = _NAME_BEFORE.search(match.string, max(0, start - 60), start).group(0)
    name = (prefix + match.string[start:keyword_end]).strip("_.-")
    if _NOT_SECRET_NAME.search(re.split(r"[.]", name)[-1]):
        return None
    group = next(g for g in ("dq", "sq", "bq", "bare") if match.group(g) is not None)
    value = match.group(group)
    if value.startswith(_MARKER_PREFIX) or _is_placeholder(value) or _code_between_literals(value):
        return None
    quoted = group != "bare"
    if not quoted:
        value = value.rstrip(".,)")
        if not value or _EXPRESSION.match(value) or value.startswith(("$", "%", "@", "\\", "#{")):
            return None
    if _is_pathlike(value) or value.startswith(("arn:", "#")):
        return None
    if group == "bq" and re.search(r"\s", value):  # `command substitution`, not a literal
        return None
    if _PASSWORDISH.search(name):  # any literal is the secret itself
        ok = len(value) >= 4
    elif _STRONG_NAME.search(name):  # tokens and named keys: literals of key length
        ok = len(value) >= 8 and (quoted or _classes(value) >= 2 or len(value) >= 16) and (
            quoted or not _is_identifier_like(value))
    else:  # `login`, `<anything>_key`: only values that look generated
        min_len = 20 if name.lower().endswith("login") else 8
        ok = looks_random(value, min_len=min_len) or (
            len(value) >= max(min_len, 20) and _classes(value) >= 2 and not _is_identifier_like(value))
    value_start = match.start(group)
    return (value_start, value_start + len(value)) if ok else None


# A secret word ending an identifier, then (a short gap later, same line) a generated-looking token.
_NEARBY = re.compile(
    r"(?i)(?:(?<![A-Za-z])|(?-i:(?<=[a-z])(?=[A-Z])))(?P<kw>secrets?|tokens?|api[_\-\s]?key|apikey|key|password|passwd|pwd|pat|private(?:[_\-\s]?key)?|"
    r"access(?:[_\-\s]?(?:key|token))?|auth(?:[_\-\s]?token)?|credentials?|license(?:[_\-\s]?key)?|bearer)"
    r"(?:[_\-]?(?:key|token|secret|access|private))*"
    r"(?:(?!\w)[^\S\n]*[:=]?[^\n]{0,24}?(?<![\w/\\.\-$])|[_\-])"
    r"(?P<v>[A-Za-z0-9][A-Za-z0-9_\-+/=.~!]{11,})")
# Long generated-looking tokens anywhere (no context needed).
_LONG_TOKEN = re.compile(r"(?<![\w/\\.\-+=$])(?P<v>[A-Za-z0-9][A-Za-z0-9_\-+/]{23,}+={0,2})(?![\w/\\]|\.[A-Za-z0-9])")
# An alphabet or digit listing ("abcdefghij…", "0123456789"): a charset constant, not a key.
_SEQUENCE = re.compile(r"(?i)abcdefghij|klmnopqrst|0123456789|qwertyuiop")
_HEX_OR_UUID = re.compile(r"^(?:[0-9a-f]+|[0-9A-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})$")
_PREFILTER = re.compile(
    r"(?i)pass|pwd|secret|token|key|auth|cred|bearer|login|BEGIN|\s-[up]\s|--user|://|@|\$\w+\$|[A-Za-z0-9_\-+/=.~]{16,}")


_CODE_OR_CHECKSUM = re.compile(r"==|->|::|\(\)|^(?i:md5|sha\d*|crc\d*)[=:\-]")


def _near_keyword_value(value: str) -> bool:
    """Next to a secret word the bar is lower: long, not a word, a name, a path or a placeholder."""
    if _is_placeholder(value) or _is_pathlike(value) or _is_identifier_like(value):
        return False
    if _CODE_OR_CHECKSUM.search(value) or re.search(r"=[^=]", value):  # `key=value` pairs, not one token
        return False
    if value.isdigit():
        return len(value) >= 16
    if len(value) >= 20:
        return _entropy(value) >= 2.0
    return len(value) >= 12 and any(c.isdigit() for c in value) and _classes(value) >= 2 and _entropy(value) >= 2.5


def _nearby_value(match: re.Match[str]) -> tuple[int, int] | None:
    start = match.start("kw")
    identifier = re.search(r"[\w.\-]*$", match.string[max(0, start - 40):start]).group(0)
    if re.search(r"(?i)public|pub$", identifier):  # publicKey, public_token: meant to be shared
        return None
    value = match.group("v").rstrip(".")
    if value.startswith(_MARKER_PREFIX) or not _near_keyword_value(value):
        return None
    return match.start("v"), match.start("v") + len(value)


def _long_token_value(match: re.Match[str]) -> tuple[int, int] | None:
    value = match.group("v")
    if (_HEX_OR_UUID.match(value) or not looks_random(value, min_len=24) or _SEQUENCE.search(value)
            or _reads_as_words(value)):
        return None
    classes, entropy = _classes(value), _entropy(value)
    if not ((classes == 3 and entropy >= 3.6) or (len(value) >= 32 and entropy >= 3.9)):
        return None
    return match.start("v"), match.end("v")


_SECRET_WORDS = ("pass", "pwd", "secret", "token", "cred", "key", "sas", "pat", "auth", "bearer", "login",
                 "access", "private", "license")
_LONG_RUN = re.compile(r"[A-Za-z0-9_\-+/]{24}")
_CONTEXT_DETECTORS: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], tuple[int, int] | None],
                                tuple[str, ...]], ...] = (
    ("secret-assignment", _ASSIGNMENT, _assignment_value, _SECRET_WORDS),
    ("secret-near-keyword", _NEARBY, _nearby_value, _SECRET_WORDS),
    ("high-entropy-token", _LONG_TOKEN, _long_token_value, ()),
)


def _replace_spans(text: str, spans: list[tuple[int, int]], kind: str) -> str:
    marker = MARKER.format(kind)
    out, last = [], 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(marker)
        last = end
    out.append(text[last:])
    return "".join(out)


def _find_all(haystack: str, needle: str) -> list[int]:
    found, index = [], haystack.find(needle)
    while index != -1:
        found.append(index)
        index = haystack.find(needle, index + 1)
    return found


def _matches_at(pattern: re.Pattern[str], text: str, starts: list[int]) -> list[re.Match[str]]:
    """Non-overlapping matches of `pattern` beginning at one of `starts` (sorted)."""
    matches, end = [], -1
    for start in starts:
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None and match.end() > start:
            matches.append(match)
            end = match.end()
    return matches


def _first_group(match: re.Match[str], groups: tuple[int | str, ...]) -> int | str | None:
    for group in groups:
        if match.group(group) is not None:
            return group
    return None


def redact(text: str) -> RedactionResult:
    """Replace every credential found in `text` with a `[REDACTED:<kind>]` marker."""
    if not text or not _PREFILTER.search(text):
        return RedactionResult(text, 0, ())
    lowered = text.lower()
    count = 0
    kinds: list[str] = []

    def apply(kind: str, spans: list[tuple[int, int]]) -> None:
        nonlocal text, lowered, count
        text = _replace_spans(text, spans, kind)
        lowered = text.lower()
        count += len(spans)
        if kind not in kinds:
            kinds.append(kind)

    for detector in _DETECTORS:
        if not any(needle in lowered for needle in detector.needles):
            continue
        spans = []
        for match in detector.pattern.finditer(text):
            group = _first_group(match, detector.groups)
            value = match.group(group) if group is not None else None
            if value is None or value.startswith(_MARKER_PREFIX):
                continue
            if detector.check is None or detector.check(value):
                spans.append(match.span(group))
        if spans:
            apply(detector.kind, spans)
    for kind, pattern, pick, needles in _CONTEXT_DETECTORS:
        if needles:  # both start with a secret word: try the pattern only where one occurs
            starts = sorted({i for word in needles for i in _find_all(lowered, word)})
            matches = _matches_at(pattern, text, starts)
        elif _LONG_RUN.search(text):
            matches = pattern.finditer(text)
        else:
            continue
        spans = [span for m in matches if (span := pick(m)) is not None]
        if spans:
            apply(kind, spans)
    return RedactionResult(text, count, tuple(kinds))
