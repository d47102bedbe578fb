"""What every match of a regular expression must contain, read from the pattern itself: the
checker (and generator) of the requirements rules declare, for tests and tools only.

The daemon's prefilter trusts each rule's declared `words` and `keywords` (assets/rules.toml,
assets/filters.toml); this module proves them. For a pattern (parsed with the standard
library's own regex parser, `re._parser`: a private API, so it stays out of the runtime)
`requirement` gives the whole words, or failing that the plain strings, one of which every
match contains; `starts` gives the strings every match at the start of a text begins with.

Exact by construction: a string is required only when every way the pattern can match contains
it; a word counts as whole only where the pattern itself puts a word boundary, the start or end,
or a non-word character on each side of it; letters beyond ASCII, classes, back references and
anything not understood simply add no requirement. Texts are compared lowercased and folded the
way the regex engine folds case (`folded`).
"""

from __future__ import annotations

import functools
import re
import re._parser as sre  # the standard library's own regex parser
from collections.abc import Iterable

from memvet.daemon.extraction.casefold import FOLD, UNFOLDED, WORD, folded  # noqa: F401 - re-exported

_CAP = 64  # strings kept when expanding alternatives ("is|are" x " not")
_SEP = "\x00"  # in an analysed string: non-word characters of unknown length
_ZW = "\x01"  # in an analysed string: a zero-width word boundary, start or end
# Words in most sentences: a poor anchor when the string has another whole word.
_COMMON = frozenset(
    "a an the i we you it is are was be to of in on at as by for with and or but so if "
    "my our your this that these those me us do does not no all each every s t".split()
)
_WORD_CHAR = re.compile(r"\w")
_SPLIT = re.compile(r"(\W)")
_BOUNDARIES = {
    sre.AT_BOUNDARY,
    sre.AT_BEGINNING,
    sre.AT_BEGINNING_STRING,
    sre.AT_BEGINNING_LINE,
    sre.AT_END,
    sre.AT_END_STRING,
    sre.AT_END_LINE,
}
_NON_WORD_CATEGORIES = {sre.CATEGORY_SPACE, sre.CATEGORY_NOT_WORD, sre.CATEGORY_LINEBREAK}

Strings = frozenset[str]


def _char(code: int) -> str | None:
    """A literal character as seen here (lowercase); None when it is a letter beyond ASCII,
    where case folding could make this analysis and the regex engine disagree."""
    char = chr(code)
    if not char.isascii() and char.lower() != char.upper():
        return None
    return char.lower()


def _product(a: Strings, b: Strings) -> Strings | None:
    if a == _EMPTY or b == _EMPTY:
        return b if a == _EMPTY else a
    if len(a) * len(b) > _CAP:
        return None
    return frozenset(x + y for x in a for y in b)


def _union(sets: list[Strings | None]) -> Strings | None:
    if any(s is None for s in sets) or sum(map(len, sets)) > _CAP:
        return None
    return frozenset().union(*sets)


@functools.lru_cache(maxsize=8192)
def _score(strings: Strings) -> tuple[bool, bool, int, int]:
    """Whole words first (the cheap test), then words few sentences have (a requirement one of
    whose words is "the" or "in" lets the rule run on nearly every sentence), then longer
    strings, then fewer."""
    whole = all(_whole_words(s) for s in strings)
    return (
        whole,
        whole and all(_anchor(s) not in _COMMON for s in strings),
        min(6, min(len(_longest_piece(s)) for s in strings)),
        -len(strings),
    )


def _better(a: Strings | None, b: Strings | None) -> Strings | None:
    if a is None or b is None:
        return a if b is None else b
    return a if _score(a) >= _score(b) else b


@functools.lru_cache(maxsize=8192)
def _required(strings: Strings | None) -> Strings | None:
    """`strings` as a requirement: none of them may be empty or only separators."""
    if not strings or any(not s.replace(_SEP, "").replace(_ZW, "") for s in strings):
        return None
    return strings


# What the analysis knows of a piece of pattern: every string it can match (when few); strings
# every non-empty match starts with, and ends with ({""}: unknown); strings one of which every
# match contains (or None); whether it can match the empty string.
Found = tuple[Strings | None, Strings, Strings, Strings | None, bool]
_EMPTY: Strings = frozenset({""})
_UNKNOWN: Found = (None, _EMPTY, _EMPTY, None, False)


def _fixed(strings: Strings) -> Found:
    return strings, strings, strings, _required(strings), "" in strings


def _sequence(items: Iterable) -> Found:
    exact: Strings | None = _EMPTY
    prefix, growing = _EMPTY, True
    run: Strings = _EMPTY  # how every match so far ends
    best: Strings | None = None
    nullable = True
    for op, av in items:
        item_exact, item_prefix, item_suffix, item_required, item_nullable = _node(op, av)
        if item_nullable:
            item_prefix = item_prefix | _EMPTY
        joined = _product(run, item_prefix)  # the end so far, then how this item starts
        best = _better(
            _better(best, item_required), _required(joined if joined is not None else run)
        )
        if growing:
            grown = _product(prefix, item_prefix)
            growing = grown is not None and item_exact is not None
            prefix = grown if grown is not None else prefix
        if item_exact is None:
            exact = None
            run = run | item_suffix if item_nullable else item_suffix
        else:
            exact = _product(exact, item_exact) if exact is not None else None
            run = joined if joined is not None else item_exact
        nullable = nullable and item_nullable
    return exact, prefix, run, _better(best, _required(run)), nullable


def _node(op, av) -> Found:
    if op is sre.LITERAL:
        char = _char(av)
        return _UNKNOWN if char is None else _fixed(frozenset({char}))
    if op is sre.IN:
        chars = frozenset(_char(code) for kind, code in av if kind is sre.LITERAL)
        if None not in chars and len(chars) == len(av):
            return _fixed(chars)
        return _fixed(frozenset({_SEP})) if _non_word_class([(op, av)]) else _UNKNOWN
    if op is sre.AT:
        return _fixed(frozenset({_ZW if av in _BOUNDARIES else ""}))
    if op is sre.SUBPATTERN:
        return _sequence(av[3])
    if op is sre.ATOMIC_GROUP:
        return _sequence(av)
    if op is sre.ASSERT:  # a lookaround: zero-width, but the sentence holds what it sees
        return _EMPTY, _EMPTY, _EMPTY, _sequence(av[1])[3], True
    if op is sre.ASSERT_NOT:
        return _fixed(_EMPTY)
    if op is sre.BRANCH:
        found = [_sequence(alternative) for alternative in av[1]]
        required = [f[3] for f in found]
        return (
            _union([f[0] for f in found]),
            _union([f[1] for f in found]) or _EMPTY,
            _union([f[2] for f in found]) or _EMPTY,
            None if any(r is None for r in required) else frozenset().union(*required),
            any(f[4] for f in found),
        )
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return _repeat(*av)
    return _UNKNOWN  # any character, a back reference: nothing to require


def _non_word_class(body) -> bool:
    """`\\s`, `\\W`, `[,;:]`: a class of characters none of which is a word character."""
    if len(body) != 1:
        return False
    op, av = body[0]
    items = [(op, av)] if op is not sre.IN else av
    for kind, value in items:
        if kind is sre.CATEGORY and value in _NON_WORD_CATEGORIES:
            continue
        if kind is sre.LITERAL and not _WORD_CHAR.match(chr(value)):
            continue
        return False
    return True


def _repeat(low: int, high: int, body) -> Found:
    if _non_word_class(body):  # `\\s+`, `[,;]*`: separators of unknown length (maybe none)
        return _fixed(frozenset({_SEP}) if low else frozenset({"", _SEP}))
    exact, prefix, suffix, required, nullable = _sequence(body)
    if low == 0:
        optional = _EMPTY | exact if high == 1 and exact is not None else None
        return (optional, prefix, suffix, None, True) if optional is None else _fixed(optional)
    power: Strings | None = exact if low == high else None
    for _ in range(low - 1):
        power = _product(power, exact) if power is not None and exact is not None else None
    return power, prefix, suffix, required, nullable


def _longest_piece(text: str) -> str:
    """The longest part of an analysed string that is plain text (zero-width marks dropped)."""
    return max(text.replace(_ZW, "").split(_SEP), key=len)


def starts(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Lowercase strings one of which text must start with (as `folded` gives it) for
    `pattern.match` to succeed; None when there is no such list."""
    return _starts(pattern.pattern, pattern.flags)


@functools.lru_cache(maxsize=256)
def _starts(pattern: str, flags: int) -> tuple[str, ...] | None:
    try:
        _, prefixes, _, _, nullable = _sequence(sre.parse(pattern, flags))
    except Exception:
        return None
    found = {p.replace(_ZW, "").split(_SEP)[0] for p in prefixes}
    return None if nullable or "" in found else tuple(sorted(found))


@functools.lru_cache(maxsize=8192)
def _whole_words(text: str) -> tuple[str, ...]:
    """The words of an analysed string known to be whole words wherever it matches."""
    pieces = _SPLIT.split(text)  # words, then the separators between them (_SEP is one)
    words = []
    for i in range(0, len(pieces), 2):
        word = pieces[i]
        if word and 0 < i < len(pieces) - 1:  # bounded on both sides inside the string
            words.append(word)
    return tuple(words)


def _anchor(text: str) -> str | None:
    """The whole word of an analysed string a prefilter looks for: the least common, longest."""
    return max(_whole_words(text), key=lambda w: (w not in _COMMON, len(w)), default=None)


def requirement(pattern: re.Pattern[str]) -> tuple[Strings | None, Strings | None]:
    """(whole words one of which every match has, strings one of which every match contains);
    either may be None."""
    return _requirement(pattern.pattern, pattern.flags)


@functools.lru_cache(maxsize=1024)  # rules are loaded again and again (tests, overlays)
def _requirement(pattern: str, flags: int) -> tuple[Strings | None, Strings | None]:
    try:
        required = _sequence(sre.parse(pattern, flags))[3]
    except Exception:  # an engine detail changed: no prefilter, the rule simply always runs
        return None, None
    if required is None:
        return None, None
    anchors = [_anchor(s) for s in required]
    words = None if None in anchors else frozenset(anchors)
    pieces = frozenset(_longest_piece(s) for s in required)
    return words, pieces
