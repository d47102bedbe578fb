"""A scope's context pack as the daemon keeps it between hook requests (context_server.py):
its memories decrypted once, best first, with their terms, updated in place when memories
change. It offers the same reads as the no-daemon path's SQL source (fast_read.DirectSource), so
hook_reply's `answer` runs unchanged over either.

No read walks the whole scope (issue 15, 100k memories): the session-start footer's count is
kept as memories change (only those with an end date are tested against `now`), a prompt is
scored among the holders of its weightier words (prompt_corpus.py), and a change moves only
the items it touches."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from itertools import groupby, islice
from operator import itemgetter

from memvet.daemon import prompt_corpus as pc
from memvet.store import context_pack as cp
from memvet.store import prompt_match as pm
from memvet.store.vocabulary import MemoryStatus

WALK_FROM = 4  # a score held by L of n items: walk the pack when L*L > WALK_FROM*n, else sort


class CachedSource:
    """A scope's active and disputed memories, decrypted once, best first, with their terms;
    updated in place when memories change (`update`), never rebuilt for one approval."""

    def __init__(self, items: list[cp.PackItem]) -> None:
        self.items = items
        self._index = pm.TermIndex(items)  # terms computed once here, not on every prompt
        self._terms = pc.PackTerms(self._index)
        self._steady = 0  # active items without an end: in force once their valid_from is past
        self._steady_from: str | None = None  # the latest of their valid_from (or later)
        self._tested: dict[str, cp.PackItem] = {}  # active items tested against `now` each time
        for item in items:
            self._count(item, 1)

    def update(self, changed: set[str], items: list[cp.PackItem]) -> None:
        """`changed`: ids of memories that changed (any scope); `items`: the new state of those
        this pack holds now (in its scope, active or disputed)."""
        with self._terms.lock:
            self._update(changed, items)

    def _update(self, changed: set[str], items: list[cp.PackItem]) -> None:
        held = changed & self._index.held()  # a new memory is in no pack yet: nothing to drop
        moves = len(held) + len(items)
        kept = list(self.items)  # a copy (in C): a request reading the old list keeps it whole
        for mid in held:  # each old state found where its rank puts it, not by a scan
            old: cp.PackItem = self._index.items[self._index.position(mid)]  # type: ignore[assignment,index]
            at = bisect.bisect_left(kept, _later(old), key=_later)
            if at < len(kept) and kept[at].id == mid:
                del kept[at]
            else:  # not where its rank says (never expected): found the long way
                kept = [i for i in kept if i.id != mid]
            self._count(old, -1)
        self._terms.drop(held, moves)
        for item in items:  # best first: each new state goes where its rank puts it
            kept.insert(bisect.bisect_left(kept, _later(item), key=_later), item)
            self._count(item, 1)
        self.items = kept
        self._index.replace(changed, items)
        self._terms.add((item.id for item in items), moves)

    def _count(self, item: cp.PackItem, step: int) -> None:
        """The footer's count: an active item without an end date stays in force."""
        if item.status != MemoryStatus.ACTIVE:
            return
        if step < 0 and self._tested.pop(item.id, None) is not None:
            return
        if item.valid_to is not None or item.expires_at is not None or item.valid_from is None:
            if step > 0:
                self._tested[item.id] = item
            return
        self._steady += step
        if step > 0 and (self._steady_from is None or item.valid_from > self._steady_from):
            self._steady_from = item.valid_from  # a removal keeps it: still an upper bound

    def ranked(self) -> Iterator[cp.PackItem]:
        return iter(self.items)

    def count_active(self, now: str) -> int:
        if self._steady_from is not None and now < self._steady_from:  # one not yet in force
            self._retest(now)
        return self._steady + cp.count_active(self._tested.values(), now)

    def _retest(self, now: str) -> None:
        """Items in force only later than `now` join those tested each time (once)."""
        self._steady, self._steady_from = 0, None
        for item in self.items:
            if item.id in self._tested:
                continue
            if item.status == MemoryStatus.ACTIVE and item.valid_from > now:  # type: ignore[operator]
                self._tested[item.id] = item
            else:
                self._count(item, 1)

    def fill(self, items: list[cp.PackItem]) -> None:
        pass  # already decrypted

    def index(self) -> pm.TermIndex:
        return self._index

    def relevant(self, prompt: str, given: set[str], now: str) -> Iterator[cp.PackItem]:
        """prompt_match.relevant's answer, in its order, read only as far as the hook reads."""
        ranked = self.items
        corpus = pc.prompt_corpus(self._terms, prompt)
        if corpus is None:  # a value type named: the whole corpus answers
            corpus = self._index.corpus
        scored = pm.prompt_scores(corpus, prompt)
        return best_first(scored, self._index.items, ranked, given, now)


class _Later:
    """A rank key that sorts the best last, so bisect can search a best-first list."""

    __slots__ = ("key",)

    def __init__(self, key: tuple) -> None:
        self.key = key

    def __lt__(self, other: _Later) -> bool:
        return self.key > other.key


def _later(item: cp.PackItem) -> _Later:
    return _Later(cp.rank_key(item))


def best_first(
    scored: list[tuple[int, float]],
    at: list[cp.PackItem | None],
    ranked: list[cp.PackItem],
    given: set[str],
    now: str,
) -> Iterator[cp.PackItem]:
    """`scored`'s items (by position in `at`) in prompt_match.relevant's order, by score then
    rank, tested (given, in force) as read: the budget takes a few dozen of 10k matches, and
    sorting them all was most of a prompt's time (issue 15). Scores are sorted in C; the items
    of one score (the holders of the same units: often thousands) are rank-sorted when few, else
    picked off `ranked` (the pack, best first) in about n/L steps each, as far as they are read.
    Ids are unique in a pack, so either way is the full sort's order. (`ranked` is a list an
    update replaces, never changes; an item dropped meanwhile leaves None in `at`.)"""
    scored.sort(key=itemgetter(1), reverse=True)
    for _, level in groupby(scored, key=itemgetter(1)):
        members = [item for position, _ in level if (item := at[position]) is not None]
        if len(members) ** 2 <= WALK_FROM * len(ranked):
            ordered: Iterator[cp.PackItem] = iter(sorted(members, key=cp.rank_key, reverse=True))
        else:
            held = set(members)  # by identity: the pack's own item objects
            ordered = islice((item for item in ranked if item in held), len(held))
        for item in ordered:
            if item.id not in given and cp.in_force(item, now):
                yield item
