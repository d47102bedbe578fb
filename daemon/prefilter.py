"""Which extraction rules can possibly match a sentence, decided before running any of them.

Scoring a sentence runs dozens of rule regexes, most of them tried at every position. Each
pattern is analysed once for what every match must contain: a whole word from a small set
("never", "prefer", "decided", ...), or failing that a short string ("?", ": "). A sentence
without any of them cannot match, so the regex is not run. The sentence's words are collected in
one C-level pass; the few plain strings are looked up with `in`. The rules' own `keywords` keep
their meaning (a rule with keywords is tried only when the lowercased sentence contains one).

Exact: a word or string is required only when every way the pattern can match contains it; a
word counts as whole only where the pattern itself puts a word boundary or a non-word character
on both sides of it; and the sentence is case-folded the way the regex engine folds it (`_FOLD`).
Anything the analysis does not understand makes the rule run unconditionally.
"""

from __future__ import annotations

import re
import re._parser as sre  # the standard library's own regex parser
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memvet.daemon.rules import Rule, Rules

_CAP = 256  # strings kept when expanding alternatives ("is|are" x " not")
_SEP = "\x00"  # in an analysed string: a word boundary, or non-word characters of unknown length
# Characters the regex engine, ignoring case, matches to an ASCII letter while str.lower() does
# not turn them into it: folded first, so the words seen here are the ones the regex sees.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
_UNFOLDED = re.compile("[\u0130\u0131\u017f]")
_WORD = re.compile(r"\w+")
# Words in most sentences: a poor anchor when the string has another whole word.
_COMMON = frozenset("a an the i we you it is are was be to of in on at as by for with and or but so if "
                    "my our your this that these those me us do does not no all each every s t".split())
_WORD_CHAR = re.compile(r"\w")
_BOUNDARIES = {sre.AT_BOUNDARY, sre.AT_BEGINNING, sre.AT_BEGINNING_STRING, sre.AT_BEGINNING_LINE,
               sre.AT_END, sre.AT_END_STRING, sre.AT_END_LINE}
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
    if len(a) * len(b) > _CAP:
        return None
    return frozenset(x + y for x in a for y in b)


def _union(sets: list[Strings | None]) -> Strings | None:
    if any(s is None for s in sets) or sum(map(len, sets)) > _CAP:
        return None
    return frozenset().union(*sets)


def _score(strings: Strings) -> tuple[bool, int, int]:
    """Whole words first (the cheap test), then longer strings, then fewer."""
    return (all(_whole_words(s) for s in strings), min(6, min(max(map(len, s.split(_SEP))) for s in strings)),
            -len(strings))


def _better(a: Strings | None, b: Strings | None) -> Strings | None:
    if a is None or b is None:
        return a if b is None else b
    return a if _score(a) >= _score(b) else b


def _required(strings: Strings | None) -> Strings | None:
    """`strings` as a requirement: none of them may be empty or only separators."""
    if not strings or any(not s.replace(_SEP, "") for s in strings):
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
        best = _better(_better(best, item_required), _required(joined if joined is not None else run))
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
        return _fixed(frozenset({_SEP if av in _BOUNDARIES else ""}))
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
        return (_union([f[0] for f in found]), _union([f[1] for f in found]) or _EMPTY,
                _union([f[2] for f in found]) or _EMPTY,
                None if any(r is None for r in required) else frozenset().union(*required),
                any(f[4] for f in found))
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


def _whole_words(text: str) -> list[str]:
    """The words of an analysed string known to be whole words wherever it matches."""
    pieces = re.split(r"(\W)", text)  # words, then the separators between them (_SEP is one)
    words = []
    for i in range(0, len(pieces), 2):
        word = pieces[i]
        if word and 0 < i < len(pieces) - 1:  # bounded on both sides inside the string
            words.append(word)
    return words


def requirement(pattern: re.Pattern[str]) -> tuple[Strings | None, Strings | None]:
    """(whole words one of which every match has, strings one of which every match contains);
    either may be None."""
    try:
        required = _sequence(sre.parse(pattern.pattern, pattern.flags))[3]
    except Exception:  # an engine detail changed: no prefilter, the rule simply always runs
        return None, None
    if required is None:
        return None, None
    anchors = [max(_whole_words(s), key=lambda w: (w not in _COMMON, len(w)), default=None) for s in required]
    words = None if None in anchors else frozenset(anchors)
    pieces = frozenset(max(s.split(_SEP), key=len) for s in required)
    return words, pieces


class Prefilter:
    """`candidates(...)` has bit `bits[id(rule)]` set when that rule may match the sentence."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.bits = {id(rule): 1 << i for i, rule in enumerate(rules)}
        self._word_bits: dict[str, int] = {}  # required word -> rules
        self._strings: list[tuple[str, int]] = []  # rules that need one of a few strings
        self._free = 0  # rules without a requirement of their own
        self._gated = 0  # rules with keywords
        self._word_keywords: dict[str, int] = {}  # keywords of word characters only -> rules
        self._other_keywords: dict[int, tuple[str, ...]] = {}  # rule -> its other keywords
        for rule in rules:
            bit = self.bits[id(rule)]
            if rule.keywords:
                self._gated |= bit
                self._other_keywords[bit] = tuple(k for k in rule.keywords if not _WORD.fullmatch(k))
                for keyword in rule.keywords:
                    if _WORD.fullmatch(keyword):
                        self._word_keywords[keyword] = self._word_keywords.get(keyword, 0) | bit
            words, strings = requirement(rule.pattern)
            if words is not None:
                for word in words:
                    self._word_bits[word] = self._word_bits.get(word, 0) | bit
            elif strings is not None and len(strings) <= 8:
                self._strings += [(s, bit) for s in strings]
            else:
                self._free |= bit
        self._tokens: dict[str, tuple[int, int]] = {}  # sentence word -> (word rules, keyword rules)

    def _token(self, token: str) -> tuple[int, int]:
        """A keyword of word characters occurs in a sentence only inside one of its words."""
        keywords = 0
        for keyword, bits in self._word_keywords.items():
            if keyword in token:
                keywords |= bits
        found = (self._word_bits.get(token, 0), keywords)
        if len(self._tokens) >= 50_000:
            self._tokens.clear()
        self._tokens[token] = found
        return found

    def candidates(self, sentence: str, lowered: str) -> int:
        """`lowered` is `sentence.lower()`, where keywords are looked for."""
        words = keywords = 0
        tokens = self._tokens
        for token in _WORD.findall(lowered):
            found = tokens.get(token) or self._token(token)
            words |= found[0]
            keywords |= found[1]
        if _UNFOLDED.search(sentence) is not None:  # fold case as the regex engine does
            words = 0
            for token in _WORD.findall(sentence.translate(_FOLD).lower()):
                words |= self._word_bits.get(token, 0)
        mask = self._free | words
        for string, bit in self._strings:
            if not mask & bit and string in lowered:
                mask |= bit
        for bit in _bits(mask & self._gated & ~keywords):  # a rule with keywords needs one
            if not any(keyword in lowered for keyword in self._other_keywords[bit]):
                mask ^= bit
        return mask


def _bits(mask: int) -> Iterable[int]:
    while mask:
        bit = mask & -mask
        mask ^= bit
        yield bit


_CACHE: dict[int, tuple[weakref.ref, Prefilter]] = {}


def prefilter_for(rules: Rules) -> Prefilter:
    """One prefilter per loaded rule set (a pipeline is built per file pass)."""
    key = id(rules)
    cached = _CACHE.get(key)
    if cached is not None and cached[0]() is rules:
        return cached[1]
    built = Prefilter((*rules.reject, *rules.durable, *rules.kinds, *rules.correction, *rules.scope,
                       *rules.polarity))
    _CACHE[key] = (weakref.ref(rules, lambda _ref, key=key: _CACHE.pop(key, None)), built)
    return built
