"""Claims and rivalry (issue 13): which values a statement asserts or denies about its subject
(slots.py derives the subject), and when two memories of one slot are rival answers.

Two memories of a slot are rivals when one negates a value the other asserts ("5433, not the
default 5432" against "5432"; a denial against the thing it denies), or when both assert values
of one type (numbers and versions, tool names, paths, code) and those sets share nothing. Word
overlap never makes a rival: values are compared only within one subject.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from memvet.store import text_terms as tt
from memvet.store.slot_vocabulary import LINK_VERBS, LINK_WORDS, PARTS, rewritten
from memvet.store.slots import (
    BOUNDARY,
    FILLER,
    NUMBER,
    TOOLS,
    is_content_word,
    normalise_subject,
    statement_tokens,
)
from memvet.store.subjects import STOPWORDS
from memvet.store.vocabulary import Kind, Polarity

_DENY = Polarity.DENY  # read per statement: a module constant, not a lookup each time

AUXILIARIES = frozenset(
    """is are was were be been being should must can will has have had get gets got not never
no longer don't dont doesn't doesnt don doesn t always also only still""".split()
)  # between a subject and its relation verb
CLAUSE = re.compile(r"[,;:()\[\]!?]|\.(?:\s|$)|\bbut\b|\bso\b|\bthen\b")
CODE_SPAN = re.compile(r"`[^`]+`")  # one value: never split into clauses ("`pnpm test:unit`")
DIRECTORY = re.compile(r"(?<![\w/.`-])([a-z0-9][\w.+#-]*(?:/[\w.+#-]+)*)/(?![\w/])")  # "vendor/"
VALUE_TYPES = ("number", "tool", "path", "code")  # typed values; "word" values are not
NEGATION_CUE = re.compile(
    r"\b(?:not|no longer|never|don'?t|doesn'?t|isn'?t|aren'?t|won'?t|"
    r"cannot|can'?t|without|instead of|rather than|avoid|stop using|"
    r"no more)\b"
)
CHANGE_FROM = re.compile(
    r"\b(?:moved|switched|migrated|changed|went|move|switch|migrate|"
    r"replaced)\b.*?\bfrom\s+(.+?)\s+(?:to|for|with)\b"
)
WHOLE = ("subject", "")  # the value of a statement whose words are all its subject's
# Words that place a statement in one environment: two memories placed in different ones both
# hold ("SQLite locally", "Postgres in production"); stemmed as claim values are.
ENVIRONMENTS = {
    "local": "local",
    "locally": "local",
    "laptop": "local",
    "ci": "ci",
    "staging": "staging",
    "stage": "staging",
    "prod": "production",
    "production": "production",
    "dev": "development",
    "development": "development",
    "macos": "macos",
    "linux": "linux",
    "windows": "windows",
}
# Words that only grant what a rule forbids ("force-pushing main is allowed"): no qualifier.
PERMISSION = frozenset("allow allowed fine ok okay permit permitted may can free freely".split())
# Two procedures of one subject are two tasks unless they clash.
COMPATIBLE_KINDS = (Kind.PROCEDURE,)


@dataclass(frozen=True)
class Claim:
    """What one statement says about its subject: the values it asserts and those it denies,
    each as (type, value) with type one of number, tool, path, code, word."""

    asserted: frozenset[tuple[str, str]]
    negated: frozenset[tuple[str, str]]
    relation: str | None = None  # the verb linking subject and value ("hosted", "kept"), stemmed

    def of_type(self, kind: str) -> frozenset[str]:
        return frozenset(v for t, v in self.asserted if t == kind)

    def typed(self) -> frozenset[str]:
        return frozenset(t for t, _ in self.asserted if t not in ("word", WHOLE[0]))


def _values(segment: str, subject_words: frozenset[str]) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    directories = set(DIRECTORY.findall(segment))  # tokens lose their trailing slash
    for token in statement_tokens(segment):
        if " " in token:
            out.add(("code", " ".join(token.split())))
            out.update(("tool", w) for w in token.split() if w in TOOLS)
        elif NUMBER.fullmatch(token):
            if token not in subject_words:  # a number that names the subject is no value
                out.add(("number", token.lstrip("v")))
        elif token in TOOLS or tt.stem(token) in TOOLS:
            out.add(("tool", token))
        elif (
            "/" in token
            or token in directories
            or re.fullmatch(r"\.?[a-z0-9_-]+\.[a-z0-9]{1,8}", token)
        ):
            out.add(("path", token.rstrip("/")))
        elif (
            is_content_word(token)
            and token not in FILLER
            and token not in LINK_VERBS  # a link is no value ("hosted on Netlify")
            and tt.stem(token) not in subject_words
        ):
            out.add(("word", tt.stem(token)))
    return out


def claim_of(statement: str, polarity: str, subject: str) -> Claim:
    """Split a statement into what it asserts and what it denies. A value after a negation cue in
    the same clause is denied ("not the default 5432", "(not pip)", "don't run npm install"), so
    is the old value of a change ("moved from poetry to uv"); a denial denies everything."""
    text = rewritten(statement.casefold().replace("’", "'"))
    subject_words = frozenset(normalise_subject(subject).split())
    negated: set[tuple[str, str]] = set()
    asserted: set[tuple[str, str]] = set()
    change = CHANGE_FROM.search(text)
    if change:
        negated |= _values(change.group(1), subject_words)
        text = text[: change.start(1)] + " " + text[change.end(1) :]
    denies = False
    for clause in _clauses(text):
        cue = NEGATION_CUE.search(clause)
        if cue:
            asserted |= _values(clause[: cue.start()], subject_words)
            negated |= _values(clause[cue.end() :], subject_words)
            denies = True
        else:
            asserted |= _values(clause, subject_words)
    if not asserted and not negated:
        # Every word is the subject's ("run migrations before deploying"): the statement asserts
        # or denies its subject as a whole.
        (negated if denies else asserted).add(WHOLE)
    if polarity == _DENY:
        negated, asserted = negated | asserted, set()
    asserted -= negated
    return Claim(frozenset(asserted), frozenset(negated), _relation(statement_tokens(text)))


def _clauses(text: str) -> list[str]:
    """The statement's clauses, each code span whole inside one."""
    spans = iter(CODE_SPAN.findall(text))
    masked = CODE_SPAN.sub("\x00", text)
    return [re.sub("\x00", lambda _: next(spans), c) for c in CLAUSE.split(masked)]


def _relation(tokens: list[str]) -> str | None:
    """The verb after the statement's leading noun phrase and its auxiliaries ("Logs are KEPT
    for 30 days"), stemmed; None when that word is a generic link ("uses", "runs", "on")."""
    i = 0
    while i < len(tokens) and tokens[i] in STOPWORDS and tokens[i] not in BOUNDARY:
        i += 1  # "the", "our"
    while i < len(tokens) and (
        tokens[i] in LINK_WORDS or (is_content_word(tokens[i]) and tokens[i] not in FILLER)
    ):
        i += 1  # the noun phrase
    while i < len(tokens) and tokens[i] in AUXILIARIES:
        i += 1
    if i == 0 or i >= len(tokens) - 1:
        return None  # the statement's last word is its value ("the default branch is master")
    word = tokens[i]
    if (
        word in BOUNDARY
        or word in LINK_VERBS
        or word in STOPWORDS - {"kept", "used"}
        or not word.isalpha()
    ):
        return None
    return tt.stem(word)


def rivalry(a: Claim, b: Claim, kind_a: str, kind_b: str) -> str | None:
    """How two claims of one subject clash: "negation" (one denies what the other asserts),
    "different_value" (both assert values of one type with nothing in common), or None."""
    for where in _place_tables():
        places = [_places(c, where) for c in (a, b)]
        if all(places) and not places[0] & places[1]:
            return None  # one subject in two environments (staging, production) or two parts
    if kind_a == kind_b == Kind.CONSTRAINT and _is_exception(a, b):
        return None  # a rule and the case it exempts ("dev-only test dependencies are fine")
    if _grants_denied(a, b) or _grants_denied(b, a):
        return "negation"  # "force-pushing main is allowed" against "never force-push main"
    if (kind_a == Kind.CONSTRAINT) != (kind_b == Kind.CONSTRAINT):
        # A rule limits a fact or a habit ("never tabs in YAML"): a boundary, unless it denies
        # exactly what the other asserts, with no qualifier of its own ("don't commit the lockfile").
        rule, other = (a, b) if kind_a == Kind.CONSTRAINT else (b, a)
        exact = rule.negated and rule.negated | rule.asserted <= other.asserted
        return "negation" if exact else None
    denied = (a.asserted & b.negated) | (b.asserted & a.negated)
    agreed = {v for v in a.asserted & b.asserted if v[0] not in ("word", WHOLE[0])}
    if denied and not (agreed and all(t == "word" for t, _ in denied)):
        # Both naming one tool while a qualifier sits after "instead of" is agreement.
        return "negation"
    if kind_a != kind_b:
        # A decision and a procedure of one subject differ in what they say, unless each names
        # a tool of the slot and they name none in common ("format with black", "ruff formats").
        # Numbers too: "we are on Django 4.2" against "we upgraded Django to 5.1".
        for of_type in ("tool", "number"):
            mine, theirs = a.of_type(of_type), b.of_type(of_type)
            if mine and theirs and not mine & theirs:
                return "different_value"
        return None
    if kind_a in COMPATIBLE_KINDS and not (a.typed() & b.typed()) - {"word", "code"}:
        # Two procedures that differ only in words or commands are two tasks (iOS and Android).
        return None
    types = a.typed() & b.typed()
    if not types:
        # No value type in common ("fly.io" against "render"): compare every value as a word.
        if a.relation and b.relation and a.relation != b.relation:
            return None  # two things said of one subject ("kept 30 days", "shipped to Loki")
        link = {a.relation, b.relation}  # the shared verb is no value ("hosted on ...")
        mine = {v for t, v in a.asserted if t != WHOLE[0]} - link
        theirs = {v for t, v in b.asserted if t != WHOLE[0]} - link
        if mine and theirs and not mine & theirs:
            return "different_value"
        # One thing named by one word each ("the develop branch", "the main branch").
        return "different_value" if len(mine - theirs) == len(theirs - mine) == 1 else None
    return "different_value" if values_differ(a, b) else None


def values_differ(a: Claim, b: Claim) -> bool:
    """Both assert values of one type (numbers and versions, tools, paths, code) and share none
    of that type: two answers, whatever the words around them (rivals of one slot; for
    same_rule.py, never one rule said twice)."""
    types = a.typed() & b.typed()
    for kind in types:
        if kind == "code" and types - {"code"}:
            continue  # commands differ in flags; their tools and numbers decide
        mine, theirs = a.of_type(kind), b.of_type(kind)
        if mine and theirs and not (mine & theirs):
            return True
    return False


@cache
def _place_tables() -> tuple[dict[str, str], ...]:
    """ENVIRONMENTS and PARTS, each with its words' stems too (claim words are stemmed:
    "staging" -> "stag"); made once, not for every pair of claims (issue 15: stemming them per
    pair was most of a crowded subject's recall)."""
    return tuple(
        {tt.stem(w): place for w, place in where.items()} | where for where in (ENVIRONMENTS, PARTS)
    )


def _places(claim: Claim, places: dict[str, str]) -> frozenset[str]:
    values = claim.asserted | claim.negated
    # a directory names a part too ("apps/"); paths are not stemmed, words are
    found = (
        places.get(v if t == "word" else tt.stem(v)) for t, v in values if t in ("word", "path")
    )
    return frozenset(p for p in found if p is not None)


def _words(values: frozenset[tuple[str, str]]) -> frozenset[str]:
    return frozenset(v for t, v in values if t != WHOLE[0])


def _is_exception(a: Claim, b: Claim) -> bool:
    """One rule denies, the other allows what it denies for a narrower case: the allowing side
    shares the denied values and adds qualifiers of its own beyond words of permission."""
    for rule, other in ((a, b), (b, a)):
        denied, allowed = _words(rule.negated), _words(other.asserted)
        if denied and not rule.asserted and not other.negated and denied & allowed:
            extra = {v for v in allowed - denied if v not in PERMISSION}
            if extra:
                return True
    return False


def _grants_denied(rule: Claim, other: Claim) -> bool:
    """A whole-subject denial against a statement that only permits its subject."""
    granted = _words(other.asserted)
    return WHOLE in rule.negated and not rule.asserted and bool(granted) and granted <= PERMISSION


def asserts_any(claim: Claim, values: frozenset[tuple[str, str]]) -> bool:
    """Does the claim assert one of these (typed) values? How a correction finds what it replaces:
    every memory that asserts the X of "moved from X to Y" or "not X any more"."""
    return bool({v for v in claim.asserted if v[0] != "word"} & values)
