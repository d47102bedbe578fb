"""Which of a context pack's memories a prompt matches: the pack's term index (`TermIndex`,
kept by the daemon per pack and updated in place) and the prompt's scoring over it (`relevant`,
`prompt_scores`), recall's relevance rule with the prompt hook's floor.

Shared by the daemon's context cache and the no-daemon hook path (fast_read.py), so both pick
the same memories. Imports context_pack and, on first use, relevance.py: the hook's
session-start path never loads it.
"""

from __future__ import annotations

from memvet.store.context_pack import in_force, rank_key

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook ~4 ms
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from memvet.store.context_pack import PackItem

DROP_BY_BISECT = 8  # a term losing more positions at once is filtered in one pass instead


def item_terms(item: PackItem) -> frozenset[str]:
    """The item's terms as relevance.py expands them (synonym groups too): one definition."""
    if item.terms is None:
        from memvet.store.relevance import expanded  # loaded on first use

        item.terms = expanded(item.statement or "")
    return item.terms


class TermIndex:
    """The pack's items as a relevance.Corpus (terms and postings), built once: the daemon keeps
    one per pack and updates it in place when memories change (`replace`); a prompt is scored
    only against items sharing a term. Positions are never reused: a dropped item leaves a hole
    (None) no posting names, a new one takes the next position."""

    def __init__(self, items: list[PackItem]) -> None:
        from memvet.store.relevance import Corpus

        self.items: list[PackItem | None] = list(items)
        self.corpus = Corpus(item_terms(item) for item in items)
        self._at = {item.id: position for position, item in enumerate(items)}

    def held(self) -> set[str]:
        return self._at.keys()  # type: ignore[return-value]

    def position(self, memory_id: str) -> int | None:
        return self._at.get(memory_id)

    def replace(self, ids: Iterable[str], items: Iterable[PackItem]) -> None:
        """Drop the items of `ids`, then add `items` (their new state, or new memories).
        A posting lists positions in ascending order (positions only grow), so a dropped one
        is found by bisection, and a term losing many is filtered once: a word all 100k items
        hold is never scanned once per item dropped (issue 15)."""
        from bisect import bisect_left  # the daemon's only: the hook never updates an index

        postings = self.corpus.postings
        dropped: dict[str, list[int]] = {}
        for mid in ids:
            position = self._at.pop(mid, None)
            if position is None:
                continue
            for term in item_terms(self.items[position]):  # type: ignore[arg-type]
                dropped.setdefault(term, []).append(position)
            self.items[position] = None
            self.corpus.n -= 1
        for term, positions in dropped.items():
            holders = postings[term]
            if len(positions) <= DROP_BY_BISECT:
                for position in positions:
                    at = bisect_left(holders, position)
                    if at < len(holders) and holders[at] == position:
                        del holders[at]
                    else:  # not in order (never expected): found the long way
                        holders.remove(position)
            else:
                gone = set(positions)
                holders[:] = [p for p in holders if p not in gone]
            if not holders:
                del postings[term]
        for item in items:
            position = self._at[item.id] = len(self.items)
            self.items.append(item)
            for term in item_terms(item):
                postings.setdefault(term, []).append(position)
            self.corpus.n += 1


def relevant(
    index: TermIndex, prompt: str, given: set[str], now: str, workspace: str | None = None
) -> Iterator[PackItem]:
    """In-force memories that match the prompt and were not given this session, most relevant
    first (ties keep rank order). Relevance is recall's (relevance.py: the idf-weighted share of
    the prompt's units a memory speaks of, synonyms included) with recall's floor, so the hook
    and `memvet recall` agree on what answers a question. One difference: a prompt is a task, not
    a question, and most of its words describe the task; words no memory in scope speaks of do not
    dilute the share ("containerise the api with Docker" must still find the Docker rule)."""
    scored = []
    for position, score in prompt_scores(index.corpus, prompt, workspace):
        item = index.items[position]
        if item.id not in given and in_force(item, now):  # type: ignore[union-attr]
            scored.append((score, rank_key(item), item))
    scored.sort(key=lambda entry: entry[:2], reverse=True)  # rank order within a score
    return (item for _, _, item in scored)


def prompt_scores(
    corpus: Any, prompt: str, workspace: str | None = None
) -> list[tuple[Any, float]]:
    """(corpus position, relevance) of each text that reaches the prompt floor, by position:
    `relevant`'s scoring, which the no-daemon hook also runs over the term index
    (fast_read.DirectSource.relevant, whose corpus's positions are memory ids, read or not)."""
    from memvet.store.relevance import PROMPT_ABSENT_WEIGHT, PROMPT_FLOOR, Question, noise_of

    question = Question(prompt, corpus, noise_of([workspace]), absent_weight=PROMPT_ABSENT_WEIGHT)
    if not question.total:
        return []
    # A share is at most its word share (the focus factor only lowers it), and a text that
    # holds none of the weightier units holds at most the lighter ones' weight: when that stays
    # below the floor, only the holders of a weightier unit are looked at (a word every memory
    # holds is light, and names them all: issue 15).
    total, shared = question.total, question.shared
    light, order = 0.0, sorted(range(len(question.units)), key=question.weights.__getitem__)
    while order and (light + question.weights[order[0]]) / total < PROMPT_FLOOR - 1e-9:
        light += question.weights[order.pop(0)]
    held = set().union(*(corpus.holders(question.units[i]) for i in order))
    near = sorted(p for p in held.intersection(shared) if shared[p] / total >= PROMPT_FLOOR)
    return [
        (position, round(score, 6))
        for position, score in question.shares(near).items()
        if score >= PROMPT_FLOOR
    ]
