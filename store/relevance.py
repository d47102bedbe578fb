"""How well a memory answers a question: the ranking half of recall (recall.py decides).

A question's terms (text_terms.terms: stemmed content words, tool concepts) are expanded with
synonyms.py's curated vocabulary, less words that say nothing about the subject: question
noise ("remember", "before", month names) and the words of the workspace's own name (every
memory of `shop-api` is about shop-api). A memory's relevance is the idf-weighted share of the
question's terms it holds, rarity measured over the scope's memories and candidates; a question
word nothing in scope uses weighs ABSENT_WEIGHT of its idf, so a question about something memvet
was never told is not answered by the one common word it shares with a memory. A memory whose
subject (the slot it fills, slots.py) the question names gets SUBJECT_BONUS of its subject's
share on top: a subject match counts over plain word overlap. A what/which question names what
it asks for (its focus: "which rust EDITION"); when nothing in scope speaks of part of it, every
memory keeps only FOCUS_MISS of its score, bonus included: the Rust version is no edition. An
attribute ("version", "port", "host") is spoken of by a value of its type (ATTRIBUTE_TYPES) when
the memory also speaks of something else the question names ("pins Terraform 1.9.2" for "which
terraform version?").

A second pass over the dev split's misses added: an answer to a what/which question must itself
speak of the focus ("what should I use for X?" asks for X); "how long" is the question's form;
a word held only through its concept or synonym group weighs CONCEPT_SHARE (the word itself ranks
first); a text naming only another environment than the question's is no answer.

A third pass (80 more dev questions, tests/eval/user/dev_questions.py) found the false answers
sharing one attribute word with a memory of another thing: the question's qualifier (whose
attribute, who does what, what a task is done to: question_shape.py) must be known to the scope as
its focus must, and the focus factor applies to the whole score, subject bonus included.

The hook's prompt path ranks with this same rule (prompt_match.relevant over a Corpus the
daemon keeps per pack), without the subject bonus (the hook decrypts no subjects), with its own
calibration: PROMPT_ABSENT_WEIGHT and PROMPT_FLOOR. So this module stays light: no SQLAlchemy,
no typing at run time.

FLOOR is the relevance below which a memory is no answer (recall then says UNKNOWN /
insufficient_evidence). FLOOR, ABSENT_WEIGHT, FOCUS_MISS and the prompt's pair were calibrated
on development data only, the dev split of the user-side evaluation (tests/eval/user; never its
frozen test split), in the middle of the plateau a sweep found, and checked on the 176 gold
cases of tests/eval/cases: see docs/benchmarks.md, "Relevance". Measured against it (eval.json,
user_side.relevance_comparison): a small embedding model shipped inside a PyPI package
(wordllama) ranked worse on the dev split alone and no better blended, and takes about a second
to load, so it is not used (and never on the hook's path).
"""

from __future__ import annotations

import math
import os
import re

from memvet.store import text_terms as tt
from memvet.store.question_shape import (
    focus_terms,
    go_language,
    how_words,
    qualifier_terms,
)
from memvet.store.synonyms import compile_groups

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook's prompt path loads this module
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any, Protocol

    class Holding(Protocol):
        """What a question reads of a corpus: its size and who speaks of a unit (positions for
        Corpus, memory ids for term_index.IdCorpus)."""

        n: int

        def holders(self, unit: frozenset[str]) -> set[Any]: ...


FLOOR = 0.25  # calibrated on the dev splits (docs/benchmarks.md, "Relevance")
SUBJECT_BONUS = 0.4  # added times the share of the memory's subject the question names
ABSENT_WEIGHT = 0.5  # weight of a question word nothing in scope uses, times its idf
# The prompt hook's own calibration: a prompt is a task, most of its words describe the task, so
# words no memory speaks of weigh nothing; its floor is set on the same dev split.
PROMPT_FLOOR = 0.3
PROMPT_ABSENT_WEIGHT = 0.0
# Question words that say nothing about the subject; time words too (as_of carries the time).
QUERY_NOISE = tt.terms(
    "tell know remember recall said say told memory memories okay ok anything something whether "
    "back old before earlier previous previously ago last formerly currently nowadays today "
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec still"
)

# A "what/which" question's answer must speak of what it asks for, or keeps FOCUS_MISS of its
# score: "which rust edition?" is not answered by the Rust version (calibrated on the dev split).
FOCUS_MISS = 0.25
# A text that speaks of a question's word only through its concept or synonym group ("pnpm" for
# "yarn": both package managers) holds CONCEPT_SHARE of its weight: the word itself ranks first.
CONCEPT_SHARE = 0.9
# Environments exclude each other: a text naming only another one than the question names is no
# answer ("which schema does the prod target use?" against the dev target's schema).
ENVIRONMENTS = frozenset({"≈production", "≈staging", "≈development"})
# Attributes a question asks the value of, and the type of value that states one (stemmed as
# text_terms.terms stems): a text holding such a value speaks of the attribute ("which terraform
# version?" and "pins Terraform 1.9.2"). recall_slots.unstated_attribute uses the same table.
ATTRIBUTE_TYPES = {
    "port": "number",
    "version": "number",
    "id": "number",
    "number": "number",
    "size": "number",
    "limit": "number",
    "timeout": "number",
    "period": "number",
    "host": "host",
    "hostnam": "host",
    "url": "host",
    "address": "host",
    "endpoint": "host",
}
VALUE_TOKENS = {"number": "#number", "host": "#host"}  # tokens no text can spell
VALUES = frozenset(VALUE_TOKENS.values())
_NUMBER = re.compile(r"v?\d+(?:[.-]\d+)*")
_YEAR = re.compile(r"(?:19|20)\d\d")  # a year is no value of an attribute
_NUMBER_START = frozenset("v0123456789")
# A host: a dotted name ("staging.tidepool.dev"), a path, a name with a number ("legacy-db-01").
_HOST = re.compile(r"[a-z][a-z0-9-]*\.[a-z0-9.-]*[a-z]|.*/.*|[a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d+")


_GROUPS, _GROUP_PHRASES = compile_groups(tt.plain_terms)
_PHRASES = (*tt.CONCEPT_PHRASES, *_GROUP_PHRASES)


def expanded(text: str) -> frozenset[str]:
    """text_terms.terms plus the synonym groups the text names (single words or phrases)."""
    base = tt.terms(text) | go_language(text)
    groups = {g for term in base for g in _GROUPS.get(term, ())}
    groups.update(token for phrase, token in _GROUP_PHRASES if phrase <= base)
    # Cheap tests first: this runs for every memory on the hook's prompt path.
    if any(t[0] in _NUMBER_START and _NUMBER.fullmatch(t) and not _YEAR.fullmatch(t) for t in base):
        groups.add(VALUE_TOKENS["number"])
    if any(("." in t or "/" in t or "-" in t) and _HOST.fullmatch(t) for t in base):
        groups.add(VALUE_TOKENS["host"])
    return base | groups


def _units(text: str, noise: frozenset[str]) -> list[tuple[frozenset[str], frozenset[str]]]:
    """(unit, the question's own terms it stands for), one per word or named phrase: a unit is
    the set of terms that would show a memory speaks of it (the word, its concepts, its synonym
    groups, the value type an attribute takes). A phrase ("front matter", "go live") is one unit
    in place of its words."""
    base = (tt.plain_terms(text) | go_language(text)) - noise
    out: list[tuple[frozenset[str], frozenset[str]]] = []
    used: set[str] = set()
    for phrase, token in _PHRASES:
        if phrase <= base:
            out.append((frozenset({token}), phrase))
            # An attribute word stays a unit of its own: "push a new VERSION out" still asks
            # for a version, the phrase only adds what the release is called.
            used |= phrase - ATTRIBUTE_TYPES.keys()
    for term in sorted(base - used - how_words(text)):  # "how long", unless "long line"
        kind = ATTRIBUTE_TYPES.get(term)
        extra = (VALUE_TOKENS[kind],) if kind else ()
        out.append(
            (
                frozenset({term, *tt.CONCEPTS.get(term, ()), *_GROUPS.get(term, ()), *extra}),
                frozenset({term}),
            )
        )
    return out


def units(text: str, noise: frozenset[str]) -> list[frozenset[str]]:
    """What a question asks about, one unit per word or named phrase (see _units)."""
    return [unit for unit, _ in _units(text, noise)]


def lookup_terms(query: str, noise: frozenset[str]) -> frozenset[str]:
    """Every term whose holders a Question over `query` reads: its units', and the other
    environments when it names one (an index-backed corpus fetches only these)."""
    found = frozenset().union(*units(query, noise))
    return found | ENVIRONMENTS if found & ENVIRONMENTS else found


def name_terms(workspaces: Iterable[str | None]) -> frozenset[str]:
    """The terms of the workspaces' own folder names (noise inside their scope)."""
    out: set[str] = set()
    for path in workspaces:
        if path:
            out |= tt.terms(os.path.basename(path.rstrip("/")))
    return frozenset(out)


def idf_of(df: int, n: int) -> float:
    return math.log(1.0 + n / (1 + df))


class Corpus:
    """A scope's texts as expanded terms, with postings: the rarity side of relevance. Recall
    builds one per question; the hook's prompt path (prompt_match.TermIndex) keeps one per pack.
    Noise is taken out of the question, not the texts, so one corpus serves any workspace."""

    def __init__(self, texts: Iterable[frozenset[str]]) -> None:
        self.texts = list(texts)
        self.n = len(self.texts)
        self.postings: dict[str, list[int]] = {}
        for position, words in enumerate(self.texts):
            for term in words:
                self.postings.setdefault(term, []).append(position)

    def holders(self, unit: frozenset[str]) -> set[int]:
        """The texts that speak of a unit in any of its terms."""
        out: set[int] = set()
        for term in unit:
            out.update(self.postings.get(term, ()))
        return out


class Question:
    """One question against one corpus: its units, their weights, each text's share."""

    def __init__(
        self,
        query: str,
        corpus: Holding,
        noise: frozenset[str],
        *,
        absent_weight: float = ABSENT_WEIGHT,
        focus_miss: float = FOCUS_MISS,
    ) -> None:
        found = [(unit - noise, source) for unit, source in _units(query, noise)]
        found = [(unit, source) for unit, source in found if unit]
        self.units = [unit for unit, _ in found]
        self.q = frozenset().union(*self.units) if self.units else frozenset()
        holders = [corpus.holders(unit) for unit in self.units]
        # A value is the attribute's only beside something else the question names ("terraform
        # 1.9.2" for "which terraform version?"; any number is no Go version).
        named = set().union(
            *(h for u, h in zip(self.units, holders, strict=True) if not u & VALUES)
        )
        holders = [
            h if not u & VALUES else corpus.holders(u - VALUES) | (h & named)
            for u, h in zip(self.units, holders, strict=True)
        ]
        # What a what/which question asks for: when nothing in scope speaks of part of it, what
        # shares the question's other words is no answer ("which rust edition?").
        wanted = focus_terms(query, noise)
        known = wanted | qualifier_terms(query, noise)  # what it asks for, and whose it is
        self.focus_miss = focus_miss
        self.unknown_focus = any(
            not h for (_, source), h in zip(found, holders, strict=True) if source & known
        )
        # Who speaks of what it asks for: an answer must (None: the question asks for nothing).
        focus = [h for (_, source), h in zip(found, holders, strict=True) if source & wanted]
        self.focus_holders = set().union(*focus) if focus else None
        self.focus_units = [u for u, source in found if source & wanted]
        self.environments = self.q & ENVIRONMENTS
        self.elsewhere: set[Any] = set()  # texts naming only environments the question does not
        if self.environments:
            self.elsewhere = corpus.holders(ENVIRONMENTS - self.environments) - corpus.holders(
                frozenset(self.environments)
            )
        # A unit's rarity is that of its meaning: the texts that speak of it in any of its words.
        # (A corpus may count a position as many texts: recall_classes.ClassCorpus.)
        count = getattr(corpus, "count", len)
        self.weights = [idf_of(count(h), corpus.n) * (1.0 if h else absent_weight) for h in holders]
        self.total = sum(self.weights)
        # What the question names that no text in scope speaks of (recall's attribute check).
        self.absent = [unit for unit, h in zip(self.units, holders, strict=True) if not h]
        literal = [
            h if len(u) == 1 else corpus.holders(source) & h
            for (u, source), h in zip(found, holders, strict=True)
        ]
        self.shared: dict[Any, float] = {}
        shared = self.shared
        for weight, held, own in zip(self.weights, holders, literal, strict=True):
            concept = weight * CONCEPT_SHARE
            # Each text's credits summed in unit order; a text's first credit is set, not added
            # to 0.0 (the same float), in C: a word every memory holds names 10k (issue 15).
            first = held.difference(shared)
            for position in held.intersection(shared):
                shared[position] += weight if position in own else concept
            shared.update(dict.fromkeys(first & own, weight))
            shared.update(dict.fromkeys(first - own, concept))

    def share(self, position: Any) -> float:
        """The weighted share of the question's units that text `position` speaks of (less, when
        it is silent on what the question asks for)."""
        if not self.total:
            return 0.0
        return self.shared.get(position, 0.0) / self.total * self.focus_factor(position)

    def shares(self, positions: Iterable[Any]) -> dict[Any, float]:
        """`share` of many texts at once, the same figures (recall's blind ranking takes the
        share of every holder in scope: thousands of calls, issue 15)."""
        shared, total, miss = self.shared, self.total, self.focus_miss
        if not total:
            return dict.fromkeys(positions, 0.0)
        if self.unknown_focus:
            return {p: shared.get(p, 0.0) / total * miss for p in positions}
        out: dict[Any, float] = dict.fromkeys(positions, 0.0)  # in order; each set below, in C
        speaking = out.keys() - self.elsewhere
        if self.focus_holders is not None:
            speaking &= self.focus_holders
        out.update({p: shared.get(p, 0.0) / total for p in speaking})  # factor 1: the same float
        out.update({p: shared.get(p, 0.0) / total * miss for p in out.keys() - speaking})
        return out

    def focus_factor(self, position: Any) -> float:
        """1, or FOCUS_MISS when a what/which question asks for what nothing in scope, or not
        this text, speaks of ("what is the cache host?" is not answered by the postgres port
        when only a retired memory speaks of the cache)."""
        speaks = self.focus_holders is None or position in self.focus_holders
        return self._factor(speaks and position not in self.elsewhere)

    def _factor(self, speaks_of_focus: bool) -> float:
        return self.focus_miss if self.unknown_focus or not speaks_of_focus else 1.0

    def overlap(self, words: frozenset[str]) -> float:
        """The same share for a text outside the corpus."""
        if not self.total:
            return 0.0
        held = [bool(unit & words) for unit in self.units]
        other = any(h for unit, h in zip(self.units, held, strict=True) if not unit & VALUES)
        held = [
            h and (not unit & VALUES or other or bool(unit - VALUES & words))
            for unit, h in zip(self.units, held, strict=True)
        ]
        weight = sum(w for w, h in zip(self.weights, held, strict=True) if h)
        speaks = self.focus_holders is None or any(unit & words for unit in self.focus_units)
        if self.environments and words & ENVIRONMENTS and not words & self.environments:
            speaks = False
        return weight / self.total * self._factor(speaks)

    def subject_bonus(self, subject: frozenset[str]) -> float:
        """A subject (the slot a memory fills) the question names counts over word overlap."""
        return SUBJECT_BONUS * len(subject & self.q) / len(subject) if subject else 0.0


def noise_of(workspaces: Iterable[str | None]) -> frozenset[str]:
    """Question noise inside these workspaces' scope."""
    return QUERY_NOISE | name_terms(workspaces)


class Relevance:
    """One question scored against one scope's memories (and candidates, for rarity)."""

    def __init__(
        self,
        query: str,
        memories: Sequence[Any],
        candidate_texts: Iterable[str] = (),
        *,
        noise: frozenset[str] | None = None,
        question: Question | None = None,
    ):
        """noise/question: given by recall over the term index (recall_index.py), which reads
        only the memories that can match and counts rarity over the whole scope from its
        postings; its question's positions are memory ids (it ranked every holder with it)."""
        self.noise = noise_of({m.scope.workspace for m in memories}) if noise is None else noise
        self.ids = [m.id for m in memories]
        self.subjects = {
            m.id: expanded(subject) - self.noise
            for m in memories
            if (subject := getattr(m, "subject", ""))
        }
        self._keys: Sequence[Any] = self.ids if question is not None else range(len(self.ids))
        position = getattr(question, "position", None)  # class_ranking.ClassQuestion's
        if position is not None:  # a memory holding common words only scores as its class
            self._keys = [position(mid) for mid in self.ids]
        if question is None:
            corpus = Corpus(
                [
                    *(expanded(m.statement) for m in memories),
                    *(expanded(t) for t in candidate_texts),
                ]
            )
            question = Question(query, corpus, self.noise)
        self.question = question
        self.q = self.question.q

    def of_text(self, text: str) -> float:
        return self.question.overlap(expanded(text))

    def of(self, position: int) -> float:
        """The memory's relevance: word overlap, plus the bonus for a subject the question names."""
        return self._at(self._keys[position], self.subjects.get(self.ids[position], frozenset()))

    def _at(self, position: Any, subject: frozenset[str]) -> float:
        # The focus factor applies to the whole score: a subject match cannot lift a memory
        # silent on what the question asks for back over the floor.
        q = self.question
        share = q.shared.get(position, 0.0) / q.total if q.total else 0.0
        return min(1.0, share + q.subject_bonus(subject)) * q.focus_factor(position)

    def of_outside(self, memory: Any, position: Any) -> float:
        """The same relevance for a memory the corpus holds at `position` but this recall did
        not read up front (recall's contradiction pass reads it later: recall_index.py)."""
        return self._at(position, expanded(getattr(memory, "subject", "") or "") - self.noise)

    def scores(self) -> dict[str, float]:
        return {mid: self.of(i) for i, mid in enumerate(self.ids)}
