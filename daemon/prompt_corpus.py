"""A pack's corpus as one prompt reads it (context_cache.CachedSource.relevant, issue 15).

prompt_match.prompt_scores only ever scores the holders of the prompt's weightier units (the
lighter ones together stay below the floor), yet relevance.Question built a set of the holders
of every unit and a share for each: a word every memory holds ("module" in a store of modules)
named all 100k of them on every prompt. `PromptCorpus` answers `holders` among those
candidates only, while each unit still weighs what it weighs in the whole pack (`count`, and a
`Held` is true when anyone in the pack holds the unit): for every candidate, every membership
Question tests is the whole corpus's, so the scores are the same figures
(tests/daemon/runtime/test_prompt_corpus.py compares them). A question naming a value type
("which port?") weighs its value unit by who holds it beside another named word, which is no
count of a unit: `prompt_corpus` returns None there and the pack's whole corpus answers.
"""

from __future__ import annotations

import threading

from memvet.store import prompt_match as pm
from memvet.store import relevance

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

SET_FROM = 512  # postings at least this long are also kept as sets: intersected, never walked
MAX_UNIT_COUNTS = 4096  # units whose pack-wide holder count is kept (memory stays bounded)
MAX_COUNTED_CHANGES = 64  # more changed items at once: forget the counts rather than adjust them
MAX_BRANCHES = 512  # a long prompt's bound search gives up here (the cruder cut still holds)


class Held(set):
    """The holders of a unit among a prompt's candidates; `whole`: how many hold it in the pack."""

    __slots__ = ("whole",)

    def __init__(self, whole: int) -> None:
        super().__init__()
        self.whole = whole

    def __bool__(self) -> bool:
        return self.whole > 0


class PackTerms:
    """What a pack's prompts read besides the postings: long postings as sets, and the number
    of items holding a unit in any of its terms. Kept exact as items leave and join the
    TermIndex: the pack's update holds `lock` over `drop`, prompt_match.TermIndex.replace and
    `add`, so a prompt answered meanwhile (its own client thread) never caches a half-done
    change; a set is replaced, never changed, so one a prompt is reading stays whole."""

    def __init__(self, index: pm.TermIndex) -> None:
        self.index = index
        self.lock = threading.Lock()
        self._sets: dict[str, set[int]] = {}
        self._counts: dict[frozenset[str], int] = {}

    def posting(self, term: str) -> Iterable[int]:
        with self.lock:
            found = self.index.corpus.postings.get(term, ())
            if len(found) < SET_FROM:
                return tuple(found)
            held = self._sets.get(term)
            if held is None:
                held = self._sets[term] = set(found)
            return held

    def count(self, unit: frozenset[str]) -> int:
        with self.lock:
            postings = self.index.corpus.postings
            lists = [found for term in unit if (found := postings.get(term))]
            if len(lists) <= 1:
                return len(lists[0]) if lists else 0
            found = self._counts.get(unit)
            if found is None:
                if len(self._counts) >= MAX_UNIT_COUNTS:
                    self._counts.clear()
                found = self._counts[unit] = len(set().union(*lists))
            return found

    def drop(self, ids: Iterable[str], changes: int) -> None:
        self._move(ids, -1, changes)

    def add(self, ids: Iterable[str], changes: int) -> None:
        self._move(ids, 1, changes)

    def _move(self, ids: Iterable[str], step: int, changes: int) -> None:
        """Caller holds `lock`."""
        if changes > MAX_COUNTED_CHANGES:
            self._counts.clear()
        moved: dict[str, set[int]] = {}
        for mid in ids:
            position = self.index.position(mid)
            if position is None:
                continue
            terms = pm.item_terms(self.index.items[position])  # type: ignore[arg-type]
            for term in terms.intersection(self._sets):
                moved.setdefault(term, set()).add(position)
            for unit in self._counts:
                if not unit.isdisjoint(terms):
                    self._counts[unit] += step
        for term, positions in moved.items():  # one copy per term (in C), whatever the count
            held = self._sets[term]
            self._sets[term] = held | positions if step > 0 else held - positions


class PromptCorpus:
    """The pack's corpus for one prompt: holders among `within` only, weights pack-wide."""

    def __init__(self, terms: PackTerms, within: set[int]) -> None:
        self.n = terms.index.corpus.n
        self._terms, self._within = terms, within

    def holders(self, unit: frozenset[str]) -> Held:
        held = Held(self._terms.count(unit))
        for term in unit:
            held.update(self._within.intersection(self._terms.posting(term)))
        return held

    def count(self, held: Held) -> int:
        return held.whole


def prompt_corpus(terms: PackTerms, prompt: str) -> PromptCorpus | None:
    """The corpus of `prompt` (see the module's doc), or None: the whole one answers."""
    noise = relevance.noise_of([None])  # prompt_match.prompt_scores' noise: no workspace
    units = [u - noise for u in relevance.units(prompt, noise)]
    units = [u for u in units if u]
    if any(not u.isdisjoint(relevance.VALUES) for u in units):
        return None
    n, absent = terms.index.corpus.n, relevance.PROMPT_ABSENT_WEIGHT
    counts = [terms.count(u) for u in units]
    weights = [relevance.idf_of(c, n) * (1.0 if c else absent) for c in counts]
    total = sum(weights)
    if not total:
        return PromptCorpus(terms, set())
    order = sorted(range(len(units)), key=weights.__getitem__, reverse=True)
    holders = [_holders(terms, units[i]) for i in order]
    floor = (relevance.PROMPT_FLOOR - 1e-6) * total  # a little low: a superset is still exact
    within = _reaching(holders, [weights[i] for i in order], floor)
    if within is None:  # too many branches: prompt_scores' own cut, the weightier units' holders
        light, kept = 0.0, sorted(range(len(units)), key=weights.__getitem__)
        while kept and (light + weights[kept[0]]) / total < relevance.PROMPT_FLOOR - 1e-9:
            light += weights[kept.pop(0)]
        within = set().union(*(holders[order.index(i)] for i in kept))
    return PromptCorpus(terms, within)


def _holders(terms: PackTerms, unit: frozenset[str]) -> set[int] | Iterable[int]:
    found = [terms.posting(term) for term in unit]
    found = [f for f in found if f]
    return found[0] if len(found) == 1 else set().union(*found)


def _reaching(
    holders: list[set[int] | Iterable[int]], weights: list[float], floor: float
) -> set[int] | None:
    """Who may hold units weighing `floor` or more (units heaviest first): each branch either
    takes unit i (its candidates narrowed to the unit's holders) or leaves it, and is cut when
    the units left cannot make up what it still needs. Intersections of the narrowed candidates
    in C, never a Python loop per holder (a word every memory holds only narrows). None: more
    than MAX_BRANCHES branches."""
    rest = [sum(weights[i:]) for i in range(len(weights))] + [0.0]
    branches = 0

    def reach(i: int, need: float, among: set[int] | None) -> set[int]:  # None: anyone
        nonlocal branches
        branches += 1
        if branches > MAX_BRANCHES:
            raise _TooMany
        if need <= 0:
            return set() if among is None else among  # (never None: the floor is above 0)
        if rest[i] < need or among is not None and not among:
            return set()
        held = holders[i]
        narrowed = among.intersection(held) if among is not None else set(held)
        return reach(i + 1, need - weights[i], narrowed) | reach(i + 1, need, among)

    try:
        return reach(0, floor, None)
    except _TooMany:
        return None


class _TooMany(Exception):
    pass
