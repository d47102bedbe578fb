"""Which extraction rules can possibly match a sentence, decided before running any of them.

Scoring a sentence runs dozens of rule regexes, most of them tried at every position. A rule
declares what every match has (assets/rules.toml): one of a few whole words (`words`: "never",
"prefer", "decided", ...), or failing that one of a few strings (`contains`: "?", ": "). A
sentence without any of them cannot match, so the regex is not run. The sentence's words are
collected in one C-level pass and looked up in a per-word cache (words repeat). Right before
a rule that declares strings is run, one of them is looked for in the sentence (`needed`: a
C-level `in`, far cheaper than a regex tried at every position; only then, as most rules the
prefilter lets through are never run). The rules' own
`keywords` keep their meaning: a rule with keywords is tried only when the lowercased sentence
contains one of them. A rule that declares nothing is always tried.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING

from memvet.daemon.extraction.casefold import FOLD, UNFOLDED, WORD

if TYPE_CHECKING:
    from memvet.daemon.extraction.rule_types import Rule, Rules


class Prefilter:
    """`candidates(...)` has bit `bits[id(rule)]` set when that rule may match the sentence.

    Per word of the sentence (cached: words repeat) it knows which rules need exactly that
    word, and which need a string or list a keyword whose longest run of word characters lies
    inside that word (a run of word characters can only occur inside one of the sentence's
    words). Keywords are then confirmed with `in`; needed strings are confirmed by whoever runs
    the rule, right before it does (`needed`).
    """

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.bits = {id(rule): 1 << i for i, rule in enumerate(rules)}
        self._words: dict[str, int] = {}  # a word a rule needs -> rules
        self._runs: dict[str, int] = {}  # the word run of a string a rule needs -> rules
        self._runless: list[tuple[str, int]] = []  # a needed string without word characters
        self._free = 0  # rules that declare nothing (keywords, if any, still gate them)
        self._gated = 0  # rules with keywords
        self._keywords: dict[str, int] = {}  # a keyword of word characters only -> rules
        self._keyword_runs: dict[str, int] = {}  # the longest word run of another keyword -> rules
        self._other_keywords: dict[int, tuple[str, ...]] = {}
        self._unindexed = 0  # rules with a keyword of no word character at all (": ")
        # bit -> the strings a rule needs, one of them in the folded sentence before it is run
        self.needed: dict[int, tuple[str, ...]] = {}
        for rule in rules:
            bit = self.bits[id(rule)]
            self._index_keywords(rule.keywords, bit)
            if rule.words:
                for word in rule.words:
                    self._words[word] = self._words.get(word, 0) | bit
            elif rule.contains:
                self._index_strings(rule, bit)
                for string in rule.contains:
                    run = max(WORD.findall(string), key=len, default="")
                    if run:
                        self._runs[run] = self._runs.get(run, 0) | bit
                    else:
                        self._runless.append((string, bit))
            else:
                self._free |= bit
        self._tokens: dict[
            str, tuple[int, int, int]
        ] = {}  # sentence word -> (rules, keyword rules, maybe)
        self._scan: dict | None = None  # a trie of the needles (_needle_scan)
        self._needles: dict[str, tuple[int, ...]] = {}

    def _index_keywords(self, keywords: tuple[str, ...], bit: int) -> None:
        if not keywords:
            return
        self._gated |= bit
        self._other_keywords[bit] = tuple(k for k in keywords if not WORD.fullmatch(k))
        for keyword in keywords:
            if WORD.fullmatch(keyword):
                self._keywords[keyword] = self._keywords.get(keyword, 0) | bit
                continue
            run = max(WORD.findall(keyword), key=len, default="")
            if run:
                self._keyword_runs[run] = self._keyword_runs.get(run, 0) | bit
            else:
                self._unindexed |= bit

    def _index_strings(self, rule: Rule, bit: int) -> None:
        """A rule's needed strings, for `needed` when all are lowercase ASCII: a match holds
        one of them, so the sentence folded as the engine folds case (casefold.py) holds it,
        whether the rule ignores case or not (otherwise the regex decides alone)."""
        if all(string.isascii() and string == string.lower() for string in rule.contains):
            self.needed[bit] = rule.contains

    def _token(self, token: str) -> tuple[int, int, int]:
        rules, keywords, maybe = self._words.get(token, 0), 0, 0
        if self._scan is None:
            self._scan, self._needles = _needle_scan(self._runs, self._keywords, self._keyword_runs)
        for needle in _longest_needles(self._scan, token):
            found = self._needles[needle]
            rules, keywords, maybe = rules | found[0], keywords | found[1], maybe | found[2]
        found = (rules, keywords, maybe)
        if len(self._tokens) >= 50_000:
            self._tokens.clear()
        self._tokens[token] = found
        return found

    def candidates(self, sentence: str, lowered: str) -> int:
        """`lowered` is `sentence.lower()`, where keywords are looked for."""
        rules, keywords, maybe = self._free, 0, self._unindexed
        tokens = self._tokens
        for token in WORD.findall(lowered):
            found = tokens.get(token) or self._token(token)
            rules |= found[0]
            keywords |= found[1]
            maybe |= found[2]
        if (
            not sentence.isascii() and UNFOLDED.search(sentence) is not None
        ):  # fold as the engine does
            rules = self._free
            for token in WORD.findall(sentence.translate(FOLD).lower()):
                rules |= (tokens.get(token) or self._token(token))[0]
        for string, bit in self._runless:
            if not rules & bit and string in lowered:
                rules |= bit
        unseen = rules & self._gated & ~keywords  # a rule with keywords needs one
        rules &= ~(unseen & ~maybe)  # none of its keywords can be in the sentence
        for bit in _bits(unseen & maybe):  # one may be: look for it
            if not any(map(lowered.__contains__, self._other_keywords[bit])):
                rules ^= bit
        return rules


def _needle_scan(*maps: dict[str, int]) -> tuple[dict, dict[str, tuple[int, ...]]]:
    """A trie of the needles (the keys of `maps`), for `_longest_needles`; and per needle the
    bits of each map for it and for every shorter needle it starts with (found at the same
    position). A trie walked in Python, not one alternation: compiling that regex was a large
    part of `memvet extract`'s start-up, and words are looked up once each (cached)."""
    needles = sorted(set().union(*maps))
    bits = {n: tuple(_prefixed(n, m) for m in maps) for n in needles}
    tree: dict = {}
    for needle in needles:
        node = tree
        for char in needle:
            node = node.setdefault(char, {})
        node[""] = {}
    return tree, bits


def _longest_needles(tree: dict, token: str) -> set[str]:
    """At each position of `token`, the longest needle of the trie that starts there."""
    found = set()
    for start in range(len(token)):
        node, end, longest = tree, start, 0
        while end < len(token) and (node := node.get(token[end])) is not None:
            end += 1
            if "" in node:
                longest = end
        if longest:
            found.add(token[start:longest])
    return found


def _prefixed(needle: str, bits: dict[str, int]) -> int:
    mask = 0
    for end in range(1, len(needle) + 1):
        mask |= bits.get(needle[:end], 0)
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
    built = Prefilter(
        (
            *rules.reject,
            *rules.durable,
            *rules.kinds,
            *rules.correction,
            *rules.scope,
            *rules.polarity,
        )
    )
    _CACHE[key] = (weakref.ref(rules, lambda _ref, key=key: _CACHE.pop(key, None)), built)
    return built
