"""A scope's context pack as the daemon keeps it between hook requests (context_server.py):
its memories decrypted once, best first, with their terms, updated in place when memories
change. It offers the same reads as the no-daemon path's SQL source (context_pack.py), so
hook_reply's `answer` runs unchanged over either."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from memvet.store import context_pack as cp


class CachedSource:
    """A scope's active and disputed memories, decrypted once, best first, with their terms;
    updated in place when memories change (`update`), never rebuilt for one approval."""

    def __init__(self, items: list[cp.PackItem]) -> None:
        self.items = items
        self._index = cp.TermIndex(items)  # terms computed once here, not on every prompt

    def update(self, changed: set[str], items: list[cp.PackItem]) -> None:
        """`changed`: ids of memories that changed (any scope); `items`: the new state of those
        this pack holds now (in its scope, active or disputed)."""
        held = changed & self._index.held()  # a new memory is in no pack yet: nothing to drop
        kept = [i for i in self.items if i.id not in held] if held else self.items
        for item in items:  # best first: each new state goes where its rank puts it
            kept.insert(bisect.bisect_left(kept, _later(item), key=_later), item)
        self.items = kept
        self._index.replace(changed, items)

    def ranked(self) -> Iterator[cp.PackItem]:
        return iter(self.items)

    def count_active(self, now: str) -> int:
        return cp.count_active(self.items, now)

    def fill(self, items: list[cp.PackItem]) -> None:
        pass  # already decrypted

    def index(self) -> cp.TermIndex:
        return self._index

    def relevant(self, prompt: str, given: set[str], now: str) -> Iterator[cp.PackItem]:
        return cp.relevant(self._index, prompt, given, now)


class _Later:
    """A rank key that sorts the best last, so bisect can search a best-first list."""

    __slots__ = ("key",)

    def __init__(self, key: tuple) -> None:
        self.key = key

    def __lt__(self, other: _Later) -> bool:
        return self.key > other.key


def _later(item: cp.PackItem) -> _Later:
    return _Later(cp.rank_key(item))
