"""Reading a few fields of a one-line JSON object from its bytes, without decoding the rest.

Most transcript bytes are tool output and model text that can never hold a user prompt; the
parsers use these helpers to learn a line's type, a handful of small fields and the shape of a
message from the raw bytes, and decode the whole line only when it may hold a prompt. Every
answer is exact for well-formed JSON whose keys are written plainly (no duplicate keys, no
`\\u` escapes inside key names: hosts never write either); whatever cannot be read with
certainty raises `NotPlain`, and the caller decodes the line instead.

Why it is exact: the head pattern consumes top-level `"key": scalar` pairs from the opening
brace, so its captures are top-level fields. A tail window that begins after the last `}` or `]`
before the closing brace lies after every nested value, so a `"key":` found there is a top-level
key too (it cannot start inside a string: a string holds no bare `"`, and keys are restricted to
word characters, which never follow a string's closing quote in valid JSON).
"""

from __future__ import annotations

import json
import re

WS = rb"[ \t\r\n]*"
STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
NON_STRING = rb"(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+\-]?[0-9]+)?|true|false|null)"
SCALAR = rb"(?:" + STRING + rb"|" + NON_STRING + rb")"
TAIL_WINDOW = 2048  # top-level fields after the last nested value (ids, times) are short

_KEY = re.compile(WS + rb'"([A-Za-z_][A-Za-z0-9_]*)"' + WS + rb":" + WS)
_SCALAR_VALUE = re.compile(WS + rb"(" + SCALAR + rb")")
_NON_STRING = re.compile(NON_STRING)
_STRUCTURE = re.compile(rb'["\[\]{}]')
_SPACE = re.compile(WS)


class NotPlain(Exception):
    """The bytes do not say for certain: decode the line."""


def head_pattern(keys: tuple[str, ...]) -> re.Pattern[bytes]:
    """Matches the top-level `"key": scalar` pairs at the start of an object; named groups hold
    the raw values of `keys`. Its end is where the first nested value (or the closing brace) is."""
    captures = b"|".join(k.encode() + rb'"' + WS + rb":" + WS + rb"(?P<" + k.encode() + rb">" + SCALAR + rb")"
                         for k in keys)
    pair = rb'"(?:' + captures + rb'|[A-Za-z_][A-Za-z0-9_]*"' + WS + rb":" + WS + SCALAR + rb")"
    return re.compile(rb"\{" + WS + rb"(?:" + pair + WS + rb"(?:," + WS + rb"|(?=\})))*")


class TopLevel:
    """The top-level scalars of one line: from the head match, else from the tail, else absent
    when the key is nowhere in the line; NotPlain when it sits between nested values."""

    __slots__ = ("line", "values", "end", "whole", "_tail")

    def __init__(self, line: bytes, head: re.Match[bytes]) -> None:
        self.line = line
        self.values = head.groupdict()
        self.end = head.end()  # where the first nested value (or the closing brace) is
        self.whole = self.end >= len(line) - 1  # the head read every pair
        self._tail = -1

    def raw(self, name: str) -> bytes | None:
        raw = self.values[name]
        if raw is not None or self.whole:
            return raw
        if self._tail < 0:
            self._tail = tail_start(self.line)
        key = b'"' + name.encode() + b'"'
        raw = tail_value(self.line, key, self._tail)
        if raw is None and key in self.line:
            raise NotPlain
        return raw

    def text(self, name: str) -> str | None:
        return text(self.raw(name))


def tail_start(line: bytes) -> int:
    """Where the top-level pairs after the last nested value begin (within the last window)."""
    end = len(line) - 1
    low = max(0, end - TAIL_WINDOW)
    return max(line.rfind(b"}", low, end), line.rfind(b"]", low, end), low - 1) + 1


def tail_value(line: bytes, key: bytes, start: int) -> bytes | None:
    """The raw scalar of top-level `key` (given as b'"key"') found at or after `start`, the
    start of the tail; None when it is not there. NotPlain when its value is not a scalar."""
    at = line.find(key, start)
    while at >= 0:
        after = _SPACE.match(line, at + len(key)).end()
        if line[after:after + 1] == b":":
            found = _SCALAR_VALUE.match(line, after + 1)
            if found is None:
                raise NotPlain  # a nested value
            return found.group(1)
        at = line.find(key, at + 1)  # that was a string value, not the key
    return None


def text(raw: bytes | None) -> str | None:
    """A raw scalar as `text_of` would see the decoded value: a str, or None for the others."""
    if raw is None or raw[:1] != b'"':
        return None
    try:
        return json.loads(raw) if b"\\" in raw else raw[1:-1].decode("utf-8")
    except ValueError:  # also UnicodeDecodeError
        raise NotPlain from None


def skip_string(line: bytes, at: int) -> int:
    """The end of the string that opens at `at`."""
    find = line.find
    pos = at + 1
    while True:
        pos = find(b'"', pos)
        if pos < 0:
            raise NotPlain
        if line[pos - 1] != 92:  # not escaped
            return pos + 1
        back = pos - 1
        while line[back] == 92:
            back -= 1
        if (pos - 1 - back) % 2 == 0:  # an even run of backslashes escapes only itself
            return pos + 1
        pos += 1


def skip_nested(line: bytes, at: int) -> int:
    """The end of the object or array that opens at `at`."""
    depth, pos, search = 0, at, _STRUCTURE.search
    while True:
        found = search(line, pos)
        if found is None:
            raise NotPlain
        pos = found.start()
        char = line[pos]
        if char == 34:
            pos = skip_string(line, pos)
            continue
        depth += 1 if char in (123, 91) else -1
        pos += 1
        if depth == 0:
            return pos


def skip_value(line: bytes, at: int) -> int:
    try:
        char = line[at]
    except IndexError:
        raise NotPlain from None
    if char == 34:
        return skip_string(line, at)
    if char == 123 or char == 91:
        return skip_nested(line, at)
    found = _NON_STRING.match(line, at)
    if found is None:
        raise NotPlain
    return found.end()


def fields(line: bytes, at: int, wanted: frozenset[bytes], *, stop: int = 0
           ) -> tuple[dict[bytes, tuple[int, int]], int]:
    """The value spans of the `wanted` keys of the object at `at`, and the object's end. With
    `stop`, returns as soon as that many were found (the end is then -1)."""
    spans: dict[bytes, tuple[int, int]] = {}
    pos = _SPACE.match(line, at + 1).end()
    if line[pos:pos + 1] == b"}":
        return spans, pos + 1
    while True:
        key = _KEY.match(line, pos)
        if key is None:
            raise NotPlain
        name, start = key.group(1), key.end()
        end = skip_value(line, start)
        if name in wanted:
            spans[name] = (start, end)
            if len(spans) == stop:
                return spans, -1
        char = line[end:end + 1]
        if char != b"," and char != b"}":
            end = _SPACE.match(line, end).end()
            char = line[end:end + 1]
        if char == b"}":
            return spans, end + 1
        if char != b",":
            raise NotPlain
        pos = end + 1


def next_item(line: bytes, pos: int, first: bool) -> int:
    """In an array: the start of the next element after `pos` (just past `[` when `first`,
    else just past the previous element), or -1 at the closing bracket."""
    pos = _SPACE.match(line, pos).end()
    char = line[pos:pos + 1]
    if not first:
        if char == b"]":
            return -1
        if char != b",":
            raise NotPlain
        pos = _SPACE.match(line, pos + 1).end()
    elif char == b"]":
        return -1
    if pos >= len(line):
        raise NotPlain
    return pos


def opens(line: bytes, at: int, key: bytes) -> int:
    """If the pair at `at` (where a head pattern stopped) is `key` with an object or array
    value, the position of its `{` or `[`; else -1."""
    found = _KEY.match(line, at)
    if found is None or found.group(1) != key or line[found.end():found.end() + 1] not in (b"{", b"["):
        return -1
    return found.end()
