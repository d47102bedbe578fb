"""Reading a few fields of a one-line JSON object from its bytes, without decoding the rest.

Most transcript bytes are tool output and model text that can never hold a user prompt. The
parsers learn a line's type, a handful of small fields and the shape of a message from the raw
bytes with anchored patterns and `bytes.find` (C speed; a regex that scans long text is not), and
decode the whole line only when it may hold a prompt or when the bytes do not say for certain:
then `NotPlain` is raised, or the pattern simply does not match, and the caller decodes.

Exact for well-formed JSON written as hosts write it (no duplicate keys, no escapes inside key
names), for two reasons. A head pattern consumes top-level `"key": scalar` pairs from the opening
brace, so what it captures is top-level. A tail window that begins after the last `}` or `]`
before the closing brace lies after every nested value, so a `"key":` found there is top-level
too: it cannot start inside a string (a string holds no bare `"`), and a key of word characters
never follows a string's closing quote in valid JSON.
"""

from __future__ import annotations

import json
import re

from memvet.daemon.hosts.turns import without_lone_surrogates

WS = rb"[ \t\r\n]*"
COLON = WS + rb":" + WS
STRING = rb'"[^"]*+(?<!\\)"'  # no escaped quote inside ([^"] runs fast in the regex engine)
SHORT = rb'"[^"]{0,256}+(?<!\\)"'  # ids, names, types (possessive: no backtracking)
NON_STRING = rb"(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+\-]?[0-9]+)?|true|false|null)"
SCALAR = rb"(?:" + STRING + rb"|" + NON_STRING + rb")"
SMALL = rb"(?:" + SHORT + rb"|" + NON_STRING + rb")"
KEY = rb'"[A-Za-z_][A-Za-z0-9_]*"'
TAIL_WINDOW = 2048  # top-level fields after the last nested value (ids, times) are short

_SCALAR_VALUE = re.compile(COLON + rb"(" + SCALAR + rb")")
_COLON = re.compile(COLON)
_TEXTS: dict[bytes, str] = {}  # raw value -> text: cwd, session id and version repeat on every line


class NotPlain(Exception):
    """The bytes do not say for certain: decode the line."""


def captures(fields: dict[str, bytes]) -> bytes:
    """A `"key": value` pair whose value is captured in a named group for each of `fields`
    (name -> value pattern), or any other key with a small scalar value."""
    named = b"|".join(
        b'"' + name.encode() + b'"' + COLON + b"(?P<" + name.encode() + b">" + value + b")"
        for name, value in fields.items()
    )
    return rb"(?:" + named + rb"|" + KEY + COLON + SMALL + rb")"


def _pair(keys: tuple[str, ...]) -> bytes:
    named = b"|".join(
        name.encode() + b'"' + COLON + b"(?P<" + name.encode() + b">" + SCALAR + b")"
        for name in keys
    )
    return rb'"(?:' + named + rb"|[A-Za-z_][A-Za-z0-9_]*" + b'"' + COLON + SCALAR + rb")"


def head_pattern(keys: tuple[str, ...]) -> re.Pattern[bytes]:
    """Matches the top-level `"key": scalar` pairs at the start of an object, capturing the raw
    values of `keys`; it ends where the first nested value (or the closing brace) is."""
    return re.compile(rb"\{" + WS + rb"(?:" + _pair(keys) + WS + rb"(?:," + WS + rb"|(?=\})))*")


class TopLevel:
    """The top-level scalars of one line, read from a head match (then `top_scalar`)."""

    __slots__ = ("line", "head", "end")

    def __init__(self, line: bytes, head: re.Match[bytes]) -> None:
        self.line, self.head, self.end = line, head, head.end()

    def raw(self, name: str) -> bytes | None:
        return self.head.group(name) or top_scalar(self.line, self.end, b'"' + name.encode() + b'"')

    def text(self, name: str) -> str | None:
        return text(self.raw(name))


def top_scalar(line: bytes, head_end: int, key: bytes) -> bytes | None:
    """The raw scalar of top-level `key` (as b'"key"') that a head match ending at `head_end`
    did not see: from the tail, or None when the key is nowhere in the line. NotPlain when it is
    there but between nested values."""
    if head_end >= len(line) - 1:
        return None  # the head read every pair
    start = tail_start(line)
    raw = tail_value(line, key, start) if start > head_end else None
    if raw is None and key in line:
        raise NotPlain
    return raw


def tail_start(line: bytes) -> int:
    """Where the top-level pairs after the last nested value begin (within the last window)."""
    end = len(line) - 1
    low = max(0, end - TAIL_WINDOW)
    return max(line.rfind(b"}", low, end), line.rfind(b"]", low, end), low - 1) + 1


def tail_value(line: bytes, key: bytes, start: int) -> bytes | None:
    """The raw scalar of top-level `key` (given as b'"key"') at or after `start`, the start of
    the tail; None when it is not there. NotPlain when its value is not a scalar."""
    at = line.find(key, start)
    while at >= 0:
        found = _SCALAR_VALUE.match(line, at + len(key))
        if found is not None:
            return found.group(1)
        if _COLON.match(line, at + len(key)) is not None:
            raise NotPlain  # the key, with a nested value
        at = line.find(key, at + 1)  # that was a string value equal to the key's name
    return None


def text(raw: bytes | None, *, cache: bool = True) -> str | None:
    """A raw scalar as `text_of` sees the decoded value: a str, or None for anything else.
    Cached by default: cwd, session id and version repeat on every line (ids do not)."""
    if raw is None:
        return None
    cached = _TEXTS.get(raw) if cache else None
    if cached is not None:
        return cached
    if raw[:1] != b'"':
        return None
    try:
        value = json.loads(raw) if b"\\" in raw else raw[1:-1].decode("utf-8")
    except ValueError:  # also UnicodeDecodeError
        raise NotPlain from None
    if b"\\u" in raw:
        value = without_lone_surrogates(value)
    if cache and len(raw) <= 512:
        if len(_TEXTS) >= 4096:
            _TEXTS.clear()
        _TEXTS[raw] = value
    return value


def skip_string(line: bytes, at: int) -> int:
    """The end of the string whose opening quote is at `at` (its closing quote + 1)."""
    find = line.find
    pos = at + 1
    for _ in range(16):
        pos = find(b'"', pos)
        if pos < 0:
            raise NotPlain
        if line[pos - 1] != 92:  # not escaped
            return pos + 1
        back = pos - 2
        while line[back] == 92:
            back -= 1
        if (pos - 1 - back) % 2 == 0:  # an even run of backslashes escapes only itself
            return pos + 1
        pos += 1
    # Quoted text (code, JSON): blank the escapes out in C rather than stepping through them.
    rest = line[pos:].replace(b"\\\\", b"__").replace(b'\\"', b"__")
    close = rest.find(b'"')
    if close < 0:
        raise NotPlain
    return pos + close + 1
