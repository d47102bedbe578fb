"""When two statements say the same rule (admission's near-duplicates, tombstones' restatements).

Two statements are the same rule when they deny or assert alike and the token sets of their
normalised content words (`rule_words`: subjects.content_words, lightly stemmed, filler gone)
are close: Jaccard ≥ `SAME_RULE`, tuned on the dev pairs of
tests/corpus/extraction/same_rule.jsonl and measured on its test pairs (bench_near_duplicates).
Words are never expanded into concepts: "use pnpm" and "use npm" are rivals, not one rule.
Text only: no store, no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memvet.store.lexicon import CONCEPTS, LANGUAGES
from memvet.store.slots import GENERIC
from memvet.store.subjects import content_words, is_negated

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


_CLAUSE = re.compile(r"[,;:.!?()\u2014\u2013]|\s-\s")


def _is_command(value: str) -> bool:
    return value.startswith("`")


def _is_number(value: str) -> bool:
    return (
        not _is_command(value)
        and not value.endswith("/")
        and any(ch.isdigit() for ch in value)
        and "_" not in value
    )


def _is_path(value: str) -> bool:
    return not _is_command(value) and (
        value.endswith("/") or not _is_number(value) and any(ch in "._" for ch in value)
    )


def _is_tool(value: str) -> bool:
    return not (_is_command(value) or _is_number(value) or _is_path(value))


_VALUE_KINDS = (_is_command, _is_number, _is_path, _is_tool)


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
    return RuleWords(words, frozenset(values), frozenset(denied), is_negated(statement))


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


def similarity(a: RuleWords, b: RuleWords) -> float:
    """0 for rivals (values that share nothing, a value one asserts and the other denies, or
    without values opposite polarity); else the mean of the
    Jaccard and the overlap coefficient of their words (a restatement adds words)."""
    if not a.words or not b.words:
        return 0.0
    if a.values and b.values:
        for kind in _VALUE_KINDS:  # "staging listens on 5433" / "… on 3001": one slot, two rules
            mine, theirs = {v for v in a.values if kind(v)}, {v for v in b.values if kind(v)}
            if mine and theirs and not _shared(frozenset(mine), frozenset(theirs)):
                return 0.0
        common = a.values & b.values
        if (a.denied & common) != (b.denied & common):
            return 0.0  # "use npm" / "pnpm, not npm"
    elif a.negated != b.negated:
        return 0.0
    if a.words == b.words:
        return 1.0
    if min(len(a.words), len(b.words)) < MIN_WORDS and not (a.values & b.values):
        return 0.0
    shared = _shared(a.words, b.words)
    jaccard = shared / (len(a.words) + len(b.words) - shared)
    return (jaccard + shared / min(len(a.words), len(b.words))) / 2


def same_rule(a: str, b: str, threshold: float = SAME_RULE) -> bool:
    return similarity(rule_words(a), rule_words(b)) >= threshold
