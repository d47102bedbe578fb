"""Ranking over recall_classes.Plan: the corpus whose positions are memory ids and classes,
the Question asked over it, and the bound ranking of recall_index.IndexedScope._worth_reading
taken level by level, a class walked only as far as the ranking takes from it (issue 15).

`best` is the listed ranking's rule (the highest bound rounded to 2 places, ties by the highest
id); `best_of` is the same rule over listed ids and lazily walked classes.
"""

from __future__ import annotations

import heapq
from collections import Counter

from memvet.store import relevance
from memvet.store import term_index as ti

TYPE_CHECKING = False  # recall_read.py's path imports this module without typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from memvet.store.recall_classes import Plan


def best(bound: dict[str, float], limit: int) -> list[str]:
    """The `limit` ids of the highest bound rounded to 2 places, ties by id, highest first
    (heapq.nlargest's order), from the counts of each rounded bound: at 100k memories that
    share a word, most tie on one bound, and only ids are compared there."""
    rounded = {mid: round(value, 2) for mid, value in bound.items()}
    cut, above = None, 0
    for level, count in sorted(Counter(rounded.values()).items(), reverse=True):
        if above + count >= limit:
            cut = level
            break
        above += count
    if cut is None:  # fewer than `limit` in all
        return sorted(rounded, key=lambda mid: (rounded[mid], mid), reverse=True)
    high = sorted(((level, mid) for mid, level in rounded.items() if level > cut), reverse=True)
    tied = heapq.nlargest(
        limit - len(high), (mid for mid, level in rounded.items() if level == cut)
    )
    return [mid for _, mid in high] + tied


def best_of(
    bound: dict[str, float], groups: list[tuple[float, Callable[[int], list[str]]]], limit: int
) -> list[str]:
    """`best` over listed ids and groups (bound, take(at most) -> its highest ids), level by
    level from the top: a group is walked only as far as the ranking takes from it, and never
    counted (the cut is the first level that fills what is left)."""
    if not groups:
        return best(bound, limit)
    rounded = {mid: round(value, 2) for mid, value in bound.items()}
    by_level: dict[float, list[Callable[[int], list[str]]]] = {}
    for value, take in groups:
        by_level.setdefault(round(value, 2), []).append(take)
    chosen: list[tuple[float, str]] = []
    for level in sorted(set(rounded.values()) | by_level.keys(), reverse=True):
        room = limit - len(chosen)
        here = [mid for mid, at in rounded.items() if at == level]
        for take in by_level.get(level, ()):
            here.extend(take(room))
        if len(here) >= room:  # the cut: the highest ids of this level fill the rest
            return [mid for _, mid in sorted(chosen, reverse=True)] + heapq.nlargest(room, here)
        chosen.extend((level, mid) for mid in here)
    return [mid for _, mid in sorted(chosen, reverse=True)]


class ClassCorpus(ti.ScopeTerms):
    """ScopeTerms whose positions are memory ids and class keys; a class weighs its members."""

    def __init__(
        self,
        memories: int,
        holders: dict[str, set[str]],
        extra: Iterable[frozenset[str]],
        sizes: dict[str, int],
        positions: dict[str, str],
    ) -> None:
        super().__init__(memories, holders, extra)
        self.sizes, self.positions = sizes, positions

    def count(self, held: Iterable[str]) -> int:
        sizes = self.sizes
        return sum(sizes.get(p, 1) for p in held)

    def position(self, memory_id: str) -> str:
        return self.positions.get(memory_id, memory_id)


def class_key(statement_mask: int) -> str:
    return f"{ti.CLASS_PREFIX}{statement_mask}"


class ClassQuestion(relevance.Question):
    """relevance.Question over a ClassCorpus: `position` gives a memory id's position (its
    class, when it holds common terms only), which relevance.Relevance scores."""

    def __init__(self, query: str, corpus: ClassCorpus, noise: frozenset[str]) -> None:
        super().__init__(query, corpus, noise)
        self.position = corpus.position


def rank(
    plan: Plan,
    question: relevance.Question,
    subject_sizes: Callable[[list[str]], dict[str, int]],
    limit: int,
) -> list[str]:
    """recall_index.IndexedScope._worth_reading over a plan's listed ids and classes: the same
    bounds (word share exact, subject bonus exact when few need it) and the same `best`."""
    floor = relevance.FLOOR - 1e-9
    bonus = relevance.SUBJECT_BONUS
    shared = question.shared
    named_rare = set().union(*(ids for (_, f), ids in plan.rare.items() if f == ti.SUBJECT))
    listed = {  # id -> (position, named)
        mid: (
            mid if mid in plan.own else plan.position_of(mask),
            mid in named_rare or bool(plan.part(mask, ti.SUBJECT)),
        )
        for mid, mask in plan.listed.items()
    }
    listed = {m: pn for m, pn in listed.items() if pn[1] or pn[0] in shared}
    # (statement mask, named): sub-classes; the unnamed only when they share a word.
    parts = [(smask, True) for smask in plan.classes if plan.bits(ti.SUBJECT)]
    parts += [(smask, False) for smask in plan.classes if class_key(smask) in shared]
    if plan.bits(ti.SUBJECT):
        parts.append((0, True))
    spots = {p for p, _ in listed.values()} | {class_key(m) for m, _ in parts if m}
    shares = question.shares(sorted(p for p in spots if p is not None))
    shares[None] = 0.0  # no statement term held: no share
    bound: dict[str, float] = {}
    maybe: dict[str, float] = {}
    groups: list[tuple[float, int, bool | None]] = []  # (bound, statement mask, named)
    lifted: list[tuple[float, int]] = []  # named parts the bonus may lift to the floor
    for mid, (position, named) in listed.items():
        score = shares[position]
        if score >= floor:
            bound[mid] = score + bonus if named else score
        elif named and floor <= score + bonus:
            maybe[mid] = score
    for smask, named in parts:
        score = shares[class_key(smask) if smask else None]
        if score >= floor:
            groups.append((score + bonus if named else score, smask, named))
        elif named and floor <= score + bonus:
            lifted.append((score, smask))
    room = ti.PROBE_MAX + 1 - len(maybe)
    walked = {}
    for score, smask in lifted:
        if room <= 0:
            break
        walked[score, smask] = plan.walk(smask, True, room)
        room -= len(walked[score, smask])
    if room <= 0:  # more than PROBE_MAX need the bonus: each takes the largest
        bound.update((mid, score + bonus) for mid, score in maybe.items())
        groups.extend((score + bonus, smask, True) for score, smask in lifted)
        maybe = {}
    jmasks = {mid: plan.part(plan.listed[mid], ti.SUBJECT) for mid in maybe}
    if room > 0:  # every one walked: each bonus exact
        for (score, smask), members in walked.items():
            for mid, jmask in members:
                maybe[mid], jmasks[mid] = score, jmask
                plan.note(mid, smask)
    sizes = subject_sizes(list(maybe)) if maybe else {}
    for mid, score in maybe.items():
        hits = len(question.q & plan.subject_terms(mid, jmasks[mid]))
        if hits and sizes.get(mid):
            score += bonus * hits / sizes[mid]
            if score >= floor:
                bound[mid] = score
    return best_of(bound, [(v, _taker(plan, m, n)) for v, m, n in groups], limit)


def _taker(plan: Plan, smask: int, named: bool | None) -> Callable[[int], list[str]]:
    def take(limit: int) -> list[str]:
        found = [mid for mid, _ in plan.walk(smask, named, limit)]
        for mid in found:
            plan.note(mid, smask)
        return found

    return take
