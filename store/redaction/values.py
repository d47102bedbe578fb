"""Value checks for the secret detectors: is this literal key material, or a placeholder, a name,
a path, a hash? Every detector asks these questions about the value it found, so they are kept
cheap: every regex is compiled at import. Nothing is cached: values may be secrets, and a cache
would keep them (or pieces of them) in the daemon's memory."""

from __future__ import annotations

import math
import re
from collections import Counter

from memvet.store.lazy_pattern import LazyPattern

# The one redaction marker, `[REDACTED:<kind>]`; everything that looks for markers uses these.
MARKER = "[REDACTED:{}]"
MARKER_PREFIX = MARKER.partition("{")[0]
# The marker as a regex source (kinds are lower-case names), for finding markers in text.
MARKER_REGEX = re.escape(MARKER_PREFIX) + r"[a-z0-9\-]+" + re.escape(MARKER.partition("}")[2])


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    size = len(value)
    counts = Counter(value).values() if size > 256 else map(value.count, set(value))
    return -sum(n / size * math.log2(n / size) for n in counts) if size else 0.0


def char_classes(value: str) -> int:
    """How many of lower case, upper case, digits the value uses (0-3)."""
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
    )


# --- placeholders ------------------------------------------------------------------------------

# The whole value is a reference or template, not a literal: ${VAR}, $VAR, $(cmd), #{ruby},
# %VAR%, {{jinja}}, <your-token>, [PASSWORD], {braced}, @TOKEN@, %s, ****.
_TEMPLATE = LazyPattern(
    r"""\\?\$\{?[\w.\-]+\}? | \$\(.*\) | \#\{.*\} | %[\w.]+%? | \{\{.*\}\} | <.*>
                          | &lt;.*&gt; | \[[^\[\]]*\] | \{[^{}]*\} | @\w+@ | %[sdr] | \*+""",
    re.VERBOSE,
)
# Anywhere in the value, a sign that it was masked, cut short, or written as an example:
# runs of x, *, #, dots; an ellipsis; a long run of zeros; <angle>;
# a word such as EXAMPLE, dummy, placeholder, redacted, changeme, your_api_key. (Runs of dashes
# or underscores: _BLANKS.)
# (Matched on the lower-cased value, without (?i), so the regex engine can skip ahead by first
# character; the words are plain substring tests.)
_MASK = LazyPattern(
    r"xxxx|\*\*\*|###|\.\.\.|…|00000000|<[^<>\s]+>|your[_\-\s]?(?:api|key|token|secret|pass)"
    r"|123e4567-e89b-12d3"
)  # the last: RFC 4122's example UUID, every doc's placeholder
# Blanks written over a value (`sk_live_________`, `AKIA----…`) mask it when they are a good part
# of it; a run of four in a long random body (`HRKU-AAlQ…Hg_____w4_…`) leaves a token.
_BLANKS = LazyPattern(r"____|----")
_MASK_WORDS = ("example", "sample", "dummy", "placeholder", "redacted", "changeme", "fake")
# Template fragments inside a value ("${USER}-${PASS}", "{{ vault_pw }}x"): a placeholder when
# almost nothing literal is left once they are removed.
_EMBEDDED_TEMPLATE = LazyPattern(r"\$\{[^}]*\}|\{\{[^}]*\}\}|\$\([^)]*\)|%\w+%|\$\w+|<[^<>]*>")

# Words that only name a secret or describe a value ("insert_key_here", "somefakekey",
# "notapassword", "ACCESS_TOKEN"). Kept to self-description on purpose: "hunter" or "falcon" are
# not in it. Such a value is a placeholder when it also says it is not real (a word from _FAKE),
# is one generic word ("secret", "token"), or is written as a CONSTANT_NAME (a reference).
_SELF_DESCRIBING = frozenset(
    """
    a an the my your our some any this that it is here me not no none null nil empty undefined unset
    default new old real fake dummy mock stub test testing sample example demo placeholder redacted
    hidden masked secret secrets password passwords passwd pass pwd passphrase token tokens key keys
    api apikey access auth credential credentials value values string str text insert put enter
    replace change changeme set goes xxx foo bar baz qux todo tbd fixme private public client user
    username name id app service account dev prod local too short long valid invalid random
    generated do dont use with for of to and or in on bearer basic""".split()
)
_FAKE = frozenset(
    """fake dummy mock stub test testing sample example demo placeholder redacted not no none
    null nil empty undefined unset insert enter replace changeme your xxx foo bar baz qux todo tbd fixme
    invalid dont""".split()
)


_WORDS_AND_SEPARATORS = LazyPattern(r"[A-Za-z][A-Za-z_\-. ]*")
_LETTER_RUN = LazyPattern(r"[a-z]+")
_CONSTANT_NAME = LazyPattern(r"[A-Z_]+")


def _spelling(chunk: str) -> tuple[str, ...] | None:
    """`chunk` (lower-case letters) split into self-describing words, or None (word-break DP)."""
    best: list[tuple[str, ...] | None] = [None] * (len(chunk) + 1)
    best[0] = ()
    for end in range(1, len(chunk) + 1):
        for start in range(max(0, end - 12), end):
            before = best[start]
            if before is not None and chunk[start:end] in _SELF_DESCRIBING:
                best[end] = (*before, chunk[start:end])
                break
    return best[-1]


def is_self_describing(value: str, *, lone_word_ok: bool = False) -> bool:
    if len(value) > 60 or not _WORDS_AND_SEPARATORS.fullmatch(value):
        return False
    words: list[str] = []
    for chunk in _LETTER_RUN.findall(value.lower()):
        spelled = _spelling(chunk)
        if spelled is None:
            return False
        words.extend(spelled)
    constant_name = value.isupper() and _CONSTANT_NAME.fullmatch(value) is not None
    lone_word = len(words) == 1 and not lone_word_ok
    return bool(words) and (lone_word or constant_name or any(w in _FAKE for w in words))


def _run_lengths(text: str) -> list[int]:
    """Lengths of runs where each character is the previous one ±1 or equal (abcd, 4321, aaaa)."""
    runs, length, step = [], 1, None
    for prev, cur in zip(text, text[1:], strict=False):
        delta = ord(cur) - ord(prev)
        if delta in (-1, 0, 1) and (step is None or delta == step):
            length, step = length + 1, delta
        else:
            runs.append(length)
            length, step = (2, delta) if delta in (-1, 0, 1) else (1, None)
    runs.append(length)
    return runs


def is_typed_pattern(value: str) -> bool:
    """Typed by a person, not generated: alphabet or digit runs (abcdefgh, 12345678, a1B2c3D4),
    one character repeated, or a short chunk repeated (abcd1234abcd1234). A random key of the
    same length almost never has a 6-long ordered run or repeats its 4-grams."""
    value = value[:256]  # a pattern shows in its first 256 characters; keeps 2 KB blobs cheap
    letters = "".join(c for c in value.lower() if c.isalpha())
    digits = "".join(c for c in value if c.isdigit())
    for part, longest in ((value, 8), (letters, 6), (digits, 6)):
        if len(part) >= longest and (
            part is value or len(value) >= 16
        ):  # short passwords: raw only
            runs = _run_lengths(part)
            if max(runs) >= longest or (
                len(part) >= 16 and sum(r for r in runs if r >= 4) * 2 >= len(part)
            ):
                return True
    if len(value) >= 12:
        grams = [value[i : i + 4] for i in range(len(value) - 3)]
        if len(set(grams)) * 2 < len(grams):
            return True
    return len(value) >= 4 and max(_run_lengths(value)) == len(value)  # "1234", "aaaa", "dcba"


def is_masked(value: str) -> bool:
    """Shown masked, truncated or as an example, or one character repeated (aaaa…end, 0000…aa):
    not the secret itself, whatever its shape."""
    lowered = value.lower()
    if (
        _MASK.search(lowered)
        or len(set(value)) <= 2
        or any(word in lowered for word in _MASK_WORDS)
    ):
        return True
    if _BLANKS.search(value) and (value.count("_") + value.count("-")) * 4 >= len(value):
        return True
    return len(value) >= 8 and max(map(value.count, set(value[:256]))) * 5 >= len(value) * 3


def is_placeholder(value: str, *, lone_word_ok: bool = False) -> bool:
    """Not a literal secret: empty, punctuation only, a template or reference, a masked or example
    value, or self-describing words. (Typed patterns such as abcdef123456 are *not* placeholders
    here: next to a secret name they may be a weak real secret; is_typed_pattern is for tokens
    found without context.) `lone_word_ok`: where the slot itself is unambiguous (the password
    of a URL's user:password@), a lone word such as "secret" is taken as the (weak) password."""
    stripped = value.strip().strip("'\"`")
    if not stripped or not any(c.isalnum() for c in stripped):
        return True
    if (
        _TEMPLATE.fullmatch(stripped)
        or is_masked(stripped)
        or is_self_describing(stripped, lone_word_ok=lone_word_ok)
    ):
        return True
    if not any(mark in stripped for mark in ("$", "{{", "%", "<")):
        return False
    literal = _EMBEDDED_TEMPLATE.sub("", stripped)
    return literal != stripped and sum(c.isalnum() for c in literal) < 4


# --- names, paths, hashes ------------------------------------------------------------------------

# A path or identifier segment: lower/snake/kebab case, CONSTANT_CASE or one Capitalised word.
_WORDY_SEGMENT = LazyPattern(r"[a-z][a-z0-9_\-]*|[A-Z][a-z0-9_\-]+|[A-Z][A-Z0-9_\-]+")
_CAMEL_PART = LazyPattern(r"[A-Z]{2,}(?=[A-Z][a-z]|$|\d)|[A-Z][a-z]+|[a-z]{2,}|\d{1,3}")
# A name segment: a word, or a word numbered the way standards name things (Keccak256, Gost28147).
_NAME_SEGMENT = LazyPattern(r"[a-z]{3,}|[A-Z][a-z]{2,}\d{0,6}|[A-Z]{3,}")
_HEXISH = LazyPattern(r"[0-9a-fA-F]{4,}")
_THREE_LETTERS = LazyPattern(r"[A-Za-z]{3}")
_CAMEL_BOUNDARY = LazyPattern(r"[a-z][A-Z]|^[A-Z]{2,}[a-z]")
_PATH_SPLIT = LazyPattern(r"[/\\]")
_NAME_SPLIT = LazyPattern(r"[._\-:/]")
_FILE_SUFFIX = LazyPattern(r"\.[A-Za-z]{1,5}$")


def is_camel_identifier(segment: str) -> bool:
    """`getMasterUserPassword`, `SecurityIdentifier`, `rememberMeLabel`: made of whole words."""
    parts = _CAMEL_PART.findall(segment)
    words = [p for p in parts if not p.isdigit()]
    return (
        len(words) >= 2
        and "".join(parts) == segment
        and len(parts) - len(words) <= 1
        and 3 <= max(map(len, words)) <= 15  # a name has a word in it: AbCeFG123 has none
        and _CAMEL_BOUNDARY.search(segment) is not None
    )


def _is_wordy(segment: str) -> bool:
    base = segment.split(".")[0]
    return (
        bool(base)
        and (_WORDY_SEGMENT.fullmatch(base) is not None or is_camel_identifier(base))
        and sum(c.isdigit() for c in base) * 3 <= len(base)
        and _THREE_LETTERS.search(base) is not None
    )


def is_pathlike(value: str) -> bool:
    """A file path, URL or dotted identifier: separated segments that read like names."""
    if value.startswith(("./", "../", "~/", "#/")) or "://" in value:
        return True
    segments = [s for s in _PATH_SPLIT.split(value) if s]
    if value.startswith("/") and len(segments) == 1:  # /tmp is a path, /k8Zq2R… an AWS secret
        return _is_wordy(segments[0]) or _FILE_SUFFIX.search(segments[0]) is not None
    if len(segments) < 2:
        return False
    wordy = sum(1 for s in segments if _is_wordy(s))
    if wordy * 2 < len(segments):  # a path is mostly names; a base64 blob has a few by chance
        return False
    return wordy >= 2 or (wordy >= 1 and _FILE_SUFFIX.search(segments[-1]) is not None)


def is_rooted_path(value: str) -> bool:
    """`/private/var/folders/xz/7k2m…/T/tmpa1b2`: an absolute path whose first two folders are
    names; random folders further down (temp dirs, hashes) do not make it key material."""
    if not value.startswith(("/", "~/")):
        return False
    segments = [s for s in _PATH_SPLIT.split(value.lstrip("~")) if s]
    return len(segments) >= 3 and _is_wordy(segments[0]) and _is_wordy(segments[1])


# The token a position lies in, read backwards from it.
_TOKEN_BEFORE = LazyPattern(r"[^\s\"'`=,(]*$")


def inside_arn(text: str, at: int) -> bool:
    """`arn:aws:secretsmanager:…:secret:prod/db-password-AbCdEf`: a secret word inside an ARN
    names the resource (policy: ARNs are public identifiers)."""
    return always(_TOKEN_BEFORE.search(text, max(0, at - 200), at)).group(0).startswith("arn:")


def is_identifier_like(value: str) -> bool:
    """`jetbrains.mps.v8_elimination`, `DOC_Vector_5_32`, `env.SOME_PASSWORD`: names, not keys."""
    segments = _NAME_SPLIT.split(value)
    if len(segments) == 1:
        return is_camel_identifier(value)
    named = [
        s
        for s in segments
        if (_NAME_SEGMENT.fullmatch(s) or is_camel_identifier(s)) and not _HEXISH.fullmatch(s)
    ]
    return len(named) >= 2 and sum(map(len, named)) * 2 >= len(value)


_WORD_RUN = LazyPattern(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}(?![a-z])")
_VOWELS = frozenset("aeiouyAEIOUY")


def word_coverage(value: str) -> float:
    """Share of the value spelled by pronounceable word runs: high for names, low for key material."""
    covered = sum(
        len(run)
        for run in _WORD_RUN.findall(value)
        if sum(c in _VOWELS for c in run) * 10 >= len(run) * 3
    )
    return covered / len(value) if value else 0.0


def reads_as_words(value: str) -> bool:
    return is_identifier_like(value) or word_coverage(value) >= 0.65


# `client_id = "…"`, `clientId: '…'`, `APP_ID=…`, `publicToken = "…"` right before a value: an
# OAuth client or app id, or a value its name calls public (policy: public identifiers).
PUBLIC_NAME_BEFORE = LazyPattern(
    r"(?i)(?:(?:client|app(?:lication)?)[_\-.]?id|public[\w\-.]*)[\"'`]?[ \t]*(?:=|:|=>)[ \t]*[\"'`]?\Z"
)


def is_publishable(value: str) -> bool:
    """Publishable keys (pk_live_…, pk_test_…) are embedded in web pages by design."""
    return value.startswith(("pk_live_", "pk_test_"))


_HASH_OR_UUID = LazyPattern(r"[0-9a-fA-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def is_hash_like(value: str) -> bool:
    """Hex digests, commit SHAs and UUIDs: ordinary identifiers unless a secret name is attached."""
    return _HASH_OR_UUID.fullmatch(value) is not None


def is_named_path(value: str) -> bool:
    """`key/54348bc1-…`, `projects/<uuid>/settings`: segments that are names or hashes/UUIDs,
    with at least one name, as in ARNs and REST paths."""
    segments = [s for s in _PATH_SPLIT.split(value) if s]
    return (
        len(segments) >= 2
        and all(is_hash_like(s) or _is_wordy(s) for s in segments)
        and any(not is_hash_like(s) for s in segments)
    )


def is_named_hash(value: str) -> bool:
    """`node-modules-<sha>`, `build-cache-<hex>`: two or more names, then a digest (cache keys,
    resource names): an identifier. One name (`glpat-…`, `whsec-…`) may be a provider's mark."""
    *names, last = value.split("-")
    return (
        len(names) >= 2
        and len(last) >= 7
        and is_hash_like(last)
        and all(_is_wordy(name) for name in names)
    )


def looks_random(value: str, *, min_len: int = 16) -> bool:
    """A token that reads like generated key material rather than a word, path or number."""
    if len(value) < min_len or is_placeholder(value) or is_pathlike(value):
        return False
    if value.isdigit():
        return len(value) >= 20
    if char_classes(value) < 2 or is_identifier_like(value):
        return False
    return entropy(value) >= (3.0 if len(value) < 24 else 3.3)


def always(match: re.Match[str] | None) -> re.Match[str]:
    """A match that cannot fail where it is tried (`[…]*`, or the word a larger match starts
    with): never None."""
    assert match is not None
    return match
