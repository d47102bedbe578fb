"""When two statements say the same rule (admission's near-duplicates, tombstones' restatements).

Two statements are the same rule when they deny or assert alike and the token sets of their
normalised content words (`rule_words`: subjects.content_words, lightly stemmed, filler gone)
are close: Jaccard ≥ `SAME_RULE`, tuned on the dev pairs of
tests/corpus/extraction/same_rule.jsonl and measured on its test pairs (bench_near_duplicates).
Words are never expanded into concepts: "use pnpm" and "use npm" are rivals, not one rule.
Rivals never merge, whatever their words share: the values each asserts are claims.py's (the
rival test of approval), and two statements that assert different values of one type, or that
each name a value the other lacks where one of them is a name (a tool, a path, a command:
"Makefile has to stay sorted" / "Cargo.toml has to stay sorted"), are two rules.
Text only: no store, no database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from memvet.store import text_terms as tt
from memvet.store.claims import WHOLE, Claim, claim_of, values_differ
from memvet.store.lexicon import CONCEPTS, LANGUAGES
from memvet.store.slots import GENERIC
from memvet.store.subjects import content_words, is_negated
from memvet.store.vocabulary import Polarity

SAME_RULE = 0.55  # similarity at or above which two statements are one rule (dev pairs)
MIN_WORDS = 2  # fewer content words say too little to match on, unless both say the same
_FILLER = frozenset(
    """ever anything everything something stuff thing things way ones one time
times please thanks now then today also anyway always never stop reach reaching allow allowed don
doesn isn won reopen decid decide decided user style everywhere goes through want how repository
repositories codebase""".split()
)
_SUFFIXES = ("ing", "ies", "ied", "es", "ed", "s")
_QUOTES = re.compile(r"[`'\"“”‘’]")
_CODE = re.compile(r"`([^`]+)`")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.+/#-]*")
_VALUE_SHAPE = re.compile(r"[0-9/._]")  # numbers, versions, paths, files
_LANGUAGES = LANGUAGES
_TOOLS = (
    frozenset(w for words in CONCEPTS.values() for w in words if " " not in w) - GENERIC
) | _LANGUAGES
_NAMES = frozenset({"tool", "path", "code"})  # claim values that name one thing
_PARTS = re.compile(r"[^a-z0-9]+")  # a value's words ("`pnpm up <pkg>`" is "pnpm up pkg")


def _stem(word: str) -> str:
    if len(word) <= 4 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            return stem + "y" if suffix in ("ies", "ied") else stem
    return word


@dataclass(frozen=True)
class RuleWords:
    """What a statement says, for comparing: its content words, which of them are values (a
    path, a number, a command, a tool) and which values it denies ("pnpm, not npm")."""

    words: frozenset[str]
    values: frozenset[str]
    denied: frozenset[str]
    negated: bool
    statement: str

    @cached_property
    def claim(self) -> Claim:
        """Every value it asserts or denies as claims.py reads them (no subject named); read
        only for statements whose words are close enough to merge."""
        return claim_of(self.statement, Polarity.ASSERT, "")

    @cached_property
    def spelled(self) -> frozenset[str]:
        """The words its claim's values are spelled with, to find them in a restatement."""
        return frozenset(w for _, value in _claimed(self.claim) for w in _forms(value))


_CLAUSE = re.compile(r"[,;:.!?()\u2014\u2013]|\s-\s")


def _values(clause: str) -> set[str]:
    found = {
        "`" + " ".join(span.split()) for span in _CODE.findall(clause)
    }  # a command is one value
    for token in _TOKEN.findall(_CODE.sub(" ", clause)):
        bare = token.rstrip(".,-")
        if "/" in token:
            found.add(bare if bare.endswith("/") else bare + "/")  # a path, however it ends
        elif _VALUE_SHAPE.search(bare) or bare in _TOOLS:
            found.add(_stem(bare))
    found.discard("`")
    found.discard("")
    return found


def rule_words(statement: str) -> RuleWords:
    folded = statement.casefold()
    values: set[str] = set()
    denied: set[str] = set()
    for clause in _CLAUSE.split(
        _CODE.sub(lambda m: m.group(0).replace(",", " ").replace(".", "\x00"), folded)
    ):
        clause = clause.replace("\x00", ".")
        found = _values(clause)
        values |= found
        if is_negated(clause):
            denied |= found
    words = frozenset(
        _stem(w) for w in content_words(_QUOTES.sub(" ", statement)) if w not in _FILLER
    )
    return RuleWords(words, frozenset(values), frozenset(denied), is_negated(statement), statement)


def _claimed(claim: Claim) -> frozenset[tuple[str, str]]:
    return (claim.asserted | claim.negated) - {WHOLE}


def _forms(value: str) -> set[str]:
    """A value, its stem and its words: how a restatement may spell it again."""
    return {value, tt.stem(value), *(p for p in _PARTS.split(value) if p)}


def _said_in(value: str, spelled: frozenset[str], typos: bool) -> bool:
    if value in spelled or tt.stem(value) in spelled:
        return True
    if not typos or len(value) < 5:
        return False  # `_close` needs five letters
    stem = tt.stem(value)
    return any(
        abs(len(w) - len(value)) <= 2 and (_close(value, w) or _close(stem, w)) for w in spelled
    )


def _unmatched(
    values: Iterable[tuple[str, str]], spelled: frozenset[str], typos: bool
) -> set[tuple[str, str]]:
    """The values the other statement does not say in any spelling (stems, a command's words,
    with `typos` one typo apart too)."""
    out = set()
    for kind, value in values:
        parts = [p for p in _PARTS.split(value) if len(p) > 2] if kind == "code" else [value]
        if not _said_in(value, spelled, typos) and not all(
            _said_in(p, spelled, typos) for p in parts
        ):
            out.add((kind, value))
    return out


def _rivals(a: RuleWords, b: RuleWords) -> bool:
    """Two answers, not one rule said twice: claims.py's different values of one type, or each
    naming a value the other does not say where one of those is a name (a tool, a path, a
    command; "Makefile has to stay sorted" / "Cargo.toml has to stay sorted")."""
    if values_differ(a.claim, b.claim):
        return True
    mine, theirs = set(_claimed(a.claim)), set(_claimed(b.claim))
    for typos in (False, True):  # typo tolerance only narrows, and costs: only if still rivals
        mine, theirs = _unmatched(mine, b.spelled, typos), _unmatched(theirs, a.spelled, typos)
        if not (mine and theirs and any(kind in _NAMES for kind, _ in mine | theirs)):
            return False
    return True


def _close(a: str, b: str) -> bool:
    """One typo apart (a letter changed, added, dropped or two swapped), for words of 5+."""
    if min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _shared(a: frozenset[str], b: frozenset[str]) -> int:
    count, rest = len(a & b), set(b - a)
    for word in a - b:
        twin = next((w for w in rest if _close(word, w)), None)
        if twin is not None:
            count += 1
            rest.discard(twin)
    return count


def similarity(a: RuleWords, b: RuleWords, threshold: float = 0.0) -> float:
    """0 for rivals (`_rivals`, a value one asserts and the other denies, or without values
    opposite polarity); else the mean of the Jaccard and the overlap coefficient of their words
    (a restatement adds words). A score below `threshold` merges nothing: it is returned without
    the rival test, the costly part."""
    if not a.words or not b.words:
        return 0.0
    if a.values and b.values:
        common = a.values & b.values
        if (a.denied & common) != (b.denied & common):
            return 0.0  # "use npm" / "pnpm, not npm"
    elif a.negated != b.negated:
        return 0.0
    if a.words == b.words:
        score = 1.0
    elif min(len(a.words), len(b.words)) < MIN_WORDS and not (a.values & b.values):
        return 0.0
    else:
        shared = _shared(a.words, b.words)
        jaccard = shared / (len(a.words) + len(b.words) - shared)
        score = (jaccard + shared / min(len(a.words), len(b.words))) / 2
    if score < threshold:
        return score
    return 0.0 if _rivals(a, b) else score  # "listens on 5433" / "… on 3001": two rules


def same_rule(a: str, b: str, threshold: float = SAME_RULE) -> bool:
    return similarity(rule_words(a), rule_words(b), threshold) >= threshold
