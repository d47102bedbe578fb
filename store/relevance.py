"""How well a memory answers a question: the ranking half of recall (recall.py decides).

A question's terms (context_pack.terms: stemmed content words, tool concepts) are expanded with
synonyms.py's curated vocabulary, less words that say nothing about the subject: question
noise ("remember", "before", month names) and the words of the workspace's own name (every
memory of `shop-api` is about shop-api). A memory's relevance is the idf-weighted share of the
question's terms it holds, rarity measured over the scope's memories and candidates; a question
word nothing in scope uses weighs in full, so a question about something memvet was never told
is not answered by the one common word it shares with a memory. A memory whose subject (the slot
it fills, slots.py) the question names gets SUBJECT_BONUS of its subject's share on top: a
subject match counts over plain word overlap.

The hook's prompt path ranks with this same rule (context_pack.relevant over a Corpus the
daemon keeps per pack), without the subject bonus: the hook decrypts no subjects. So this module
stays light: no SQLAlchemy, no typing at run time.

FLOOR is the relevance below which a memory is no answer (recall then says UNKNOWN /
insufficient_evidence). It was calibrated on development data only: the dev split of the
user-side evaluation (tests/eval/user; never its frozen test split) and the 176 gold cases of
tests/eval/cases, between the two sets' best points: see docs/benchmarks.md, "Relevance".
Measured against it (eval.json, user_side.relevance_comparison): a small embedding model
shipped inside a PyPI package (wordllama) ranked worse than this on the dev split, alone or
blended, and loads in seconds, so it is not used (and never on the hook's path).
"""

from __future__ import annotations

import os

from memvet.store import context_pack as cp
from memvet.store.synonyms import compile_groups

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook's prompt path loads this module
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

FLOOR = 0.3  # calibrated on the dev splits (docs/benchmarks.md, "Relevance")
SUBJECT_BONUS = 0.4  # added times the share of the memory's subject the question names
ABSENT_WEIGHT = 1.0  # weight of a question word nothing in scope uses, times its idf
# Question words that say nothing about the subject; time words too (as_of carries the time).
QUERY_NOISE = cp.terms(
    "tell know remember recall said say told memory memories okay ok anything something whether "
    "back old before earlier previous previously ago last formerly currently nowadays today "
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec still")

_GROUPS, _GROUP_PHRASES = compile_groups(cp._plain_terms)
_PHRASES = (*cp._CONCEPT_PHRASES, *_GROUP_PHRASES)


def expanded(text: str) -> frozenset[str]:
    """context_pack.terms plus the synonym groups the text names (single words or phrases)."""
    base = cp.terms(text)
    groups = {g for term in base for g in _GROUPS.get(term, ())}
    groups.update(token for phrase, token in _GROUP_PHRASES if phrase <= base)
    return base | groups


def units(text: str, noise: frozenset[str]) -> list[frozenset[str]]:
    """What a question asks about, one unit per word or named phrase: each unit is the set of
    terms that would show a memory speaks of it (the word, its concepts, its synonym groups).
    A phrase ("front matter", "go live") is one unit in place of its words."""
    base = cp._plain_terms(text) - noise
    out: list[frozenset[str]] = []
    used: set[str] = set()
    for phrase, token in _PHRASES:
        if phrase <= base:
            out.append(frozenset({token}))
            used |= phrase
    for term in sorted(base - used):
        out.append(frozenset({term, *cp._CONCEPTS.get(term, ()), *_GROUPS.get(term, ())}))
    return out


def name_terms(workspaces: Iterable[str | None]) -> frozenset[str]:
    """The terms of the workspaces' own folder names (noise inside their scope)."""
    out: set[str] = set()
    for path in workspaces:
        if path:
            out |= cp.terms(os.path.basename(path.rstrip("/")))
    return frozenset(out)


class Corpus:
    """A scope's texts as expanded terms, with postings: the rarity side of relevance. Recall
    builds one per question; the hook's prompt path (context_pack.TermIndex) keeps one per pack.
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

    def __init__(self, query: str, corpus: Corpus, noise: frozenset[str], *,
                 absent_weight: float = ABSENT_WEIGHT) -> None:
        self.units = [u for u in (unit - noise for unit in units(query, noise)) if u]
        self.q = frozenset().union(*self.units) if self.units else frozenset()
        holders = [corpus.holders(unit) for unit in self.units]
        # A unit's rarity is that of its meaning: the texts that speak of it in any of its words.
        self.weights = [cp.idf_of(len(h), corpus.n) * (1.0 if h else absent_weight)
                        for h in holders]
        self.total = sum(self.weights)
        # What the question names that no text in scope speaks of (recall's attribute check).
        self.absent = [unit for unit, h in zip(self.units, holders, strict=True) if not h]
        self.shared: dict[int, float] = {}
        for weight, found in zip(self.weights, holders, strict=True):
            for position in found:
                self.shared[position] = self.shared.get(position, 0.0) + weight

    def share(self, position: int) -> float:
        """The weighted share of the question's units that text `position` speaks of."""
        return self.shared.get(position, 0.0) / self.total if self.total else 0.0

    def overlap(self, words: frozenset[str]) -> float:
        """The same share for a text outside the corpus."""
        if not self.total:
            return 0.0
        return sum(w for unit, w in zip(self.units, self.weights, strict=True)
                   if unit & words) / self.total

    def subject_bonus(self, subject: frozenset[str]) -> float:
        """A subject (the slot a memory fills) the question names counts over word overlap."""
        return SUBJECT_BONUS * len(subject & self.q) / len(subject) if subject else 0.0


def noise_of(workspaces: Iterable[str | None]) -> frozenset[str]:
    """Question noise inside these workspaces' scope."""
    return QUERY_NOISE | name_terms(workspaces)


class Relevance:
    """One question scored against one scope's memories (and candidates, for rarity)."""

    def __init__(self, query: str, memories: Sequence[Any], candidate_texts: Iterable[str] = ()):
        self.noise = noise_of({m.scope.workspace for m in memories})
        self.ids = [m.id for m in memories]
        self.subjects = {m.id: expanded(subject) - self.noise for m in memories
                         if (subject := getattr(m, "subject", ""))}
        corpus = Corpus([*(expanded(m.statement) for m in memories),
                         *(expanded(t) for t in candidate_texts)])
        self.question = Question(query, corpus, self.noise)
        self.q = self.question.q

    def of_text(self, text: str) -> float:
        return self.question.overlap(expanded(text))

    def of(self, position: int) -> float:
        """The memory's relevance: word overlap, plus the bonus for a subject the question names."""
        mid = self.ids[position]
        score = self.question.share(position)
        score += self.question.subject_bonus(self.subjects.get(mid, frozenset()))
        return min(1.0, score)

    def scores(self) -> dict[str, float]:
        return {mid: self.of(i) for i, mid in enumerate(self.ids)}
