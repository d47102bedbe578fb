"""Recall's blind ranking without a Python object per holder of a common word (issue 15).

A word most memories hold ("module" in a store of modules) named every one of them, so recall
built sets, shares and bounds of 100k ids. Yet a memory's blind score depends only on which of
the question's lookup terms it holds, in its statement and in its subject. So the terms are split
by how many postings they have: a rare term's holders are listed (at most COMMON_FROM each) and
probed for the common terms; every other memory holds common terms only, and the memories holding
exactly the same common terms form one class, counted in SQL (intersection counts, inclusion and
exclusion) and never listed. relevance.Question runs over this corpus as over any other: a class is
one position that weighs as many texts as it has members (`ClassCorpus.count`), so every weight,
share and bound is the figure the listed corpus gives. The ranking takes from a class only the
members it reads (the highest ids, as `best` breaks ties), found walking one posting list:
class_ranking.py ranks.

`plan` returns None where the listed path (recall_index.py) is as cheap or the classes would not
be (no common term; too many; a scope that leaves out more than OUTSIDE_MAX memories): both give
the same result (tests/store/test_recall_classes.py compares them over random stores).
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations

from memvet.store import term_index as ti
from memvet.store.class_ranking import ClassCorpus, class_key
from memvet.store.memory_counts import TERM_COUNT_SQL

TYPE_CHECKING = False  # recall_read.py's path imports this module without typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

COMMON_FROM = 2000  # postings from which a (term, field) is common: its holders are not listed
# The prompt hook lists holders cheaply (no subject bonus, no bound ranking): classes pay off later.
PROMPT_COMMON_FROM = 10_000
MAX_COMMON = 4  # common (term, field) pairs at most: 2**k - 1 intersection counts
OUTSIDE_MAX = 5000  # memories left out of the scope (or stale) that are probed and subtracted
WALK_BATCH = 256  # rows per step when a class's members are walked
DENSE_RATIO = 4  # a posting list this many times the others' union is probed, not read
_HAS = (  # row `a` of the postings: its memory holds (token, field) too
    "EXISTS (SELECT 1 FROM term_postings b "
    "WHERE b.token = ? AND b.field = ? AND b.memory_id = a.memory_id)"
)
# the ids of a JSON list that hold (token, field): the list probed, the postings not walked
_WITHIN_SQL = (
    "SELECT json_group_array(value) FROM json_each(?) WHERE EXISTS (SELECT 1 FROM "
    "term_postings WHERE token = ? AND field = ? AND memory_id = value)"
)
_HOLDERS_SQL = "SELECT json_group_array(memory_id) FROM term_postings WHERE token = ? AND field = ?"


class Plan:
    """The common terms of one question in one scope, and who is listed: the holders of a
    rare term (`listed`: id -> mask of the common pairs it holds), and the classes: memories
    holding the same common statement terms and no rare one (statement mask -> members). A
    mask's bit i is `common[i]`, a (term, field) pair; a class member's subject pairs are
    probed as it is walked, never counted."""

    def __init__(self, run: Callable[[str, tuple], list[tuple]], key: bytes) -> None:
        self.run, self.key = run, key
        self.common: list[tuple[str, int]] = []
        self.rare: dict[tuple[str, int], set[str]] = {}
        self.listed: dict[str, int] = {}
        self.own: set[str] = set()  # holders of a rare statement term: positions of their own
        self.classes: dict[int, int] = {}
        self.excluded: set[str] = set()
        self.positions: dict[str, str] = {}
        self._holders: dict[int, set[str]] = {}
        self._every: dict[tuple[int, ...], set[str]] = {}  # (_all_of) bits -> their holders
        # (read_holders) the largest pair's bit -> its holders among the other pairs' holders
        self._within: dict[int, set[str]] = {}

    def tok(self, bit: int) -> tuple[bytes, int]:
        term, field = self.common[bit]
        return ti.token(self.key, term), field

    def bits(self, field: int) -> list[int]:
        return [i for i, (_, f) in enumerate(self.common) if f == field]

    def part(self, mask: int, field: int) -> int:
        return sum(1 << i for i in self.bits(field) if mask >> i & 1)

    def terms_of(self, mask: int, field: int) -> set[str]:
        return {self.common[i][0] for i in self.bits(field) if mask >> i & 1}

    def holders(self, bit: int) -> set[str]:
        """The ids holding common pair `bit` (any scope), read once as one JSON array: reading
        a posting list costs a fraction of probing it row by row (issue 15: the intersection
        counts of four common words probed 100k postings, 54 ms of the prompt hook at 100k)."""
        found = self._holders.get(bit)
        if found is None:
            (ids,) = self.run(_HOLDERS_SQL, self.tok(bit))[0]
            found = self._holders[bit] = set(json.loads(ids))
        return found

    def masks_of(self, ids: Iterable[str]) -> dict[str, int]:
        """id -> the common pairs it holds (postings probed by id, or looked up in the
        holders already read)."""
        ids = sorted(ids)
        masks = dict.fromkeys(ids, 0)
        if not ids:
            return masks
        for bit in range(len(self.common)):
            if bit in self._holders:
                for mid in self._holders[bit].intersection(ids):
                    masks[mid] |= 1 << bit
                continue
            for (mid,) in self.run(
                f"SELECT memory_id FROM term_postings WHERE token = ? AND field = ? "
                f"AND memory_id IN ({ti.IDS_SQL})",
                (*self.tok(bit), json.dumps(ids)),
            ):
                masks[mid] |= 1 << bit
        return masks

    def read_holders(self, counts: list[int], everyone: int | None) -> None:
        """The holder sets the intersection counts need. The largest common statement pair's,
        when it dwarfs the others (a word nearly every memory holds), is read only as far as
        theirs reach: their union probed in it, or taken whole when it is held by `everyone`
        (every memory: postings name existing memories, one row per memory and field)."""
        *small, big = sorted(self.bits(ti.STATEMENT), key=counts.__getitem__)
        reach: set[str] = set().union(*(self.holders(b) for b in small))
        if not small or counts[big] <= DENSE_RATIO * len(reach):
            self.holders(big)
        elif counts[big] == everyone:
            self._within[big] = reach
        else:
            (ids,) = self.run(_WITHIN_SQL, (json.dumps(sorted(reach)), *self.tok(big)))[0]
            self._within[big] = set(json.loads(ids))

    def holding_all(self, bits: tuple[int, ...], counts: list[int]) -> int:
        """How many memories (any scope) hold every pair of `bits`: the holder sets
        intersected, the shortest first (a set read only within the others' reach is never
        first: it is the largest)."""
        if len(bits) == 1:
            return counts[bits[0]]
        return len(self._all_of(tuple(sorted(bits, key=counts.__getitem__))))

    def _all_of(self, bits: tuple[int, ...]) -> set[str]:
        """The holders of every pair of `bits` (shortest list first): the intersection of all
        but the last, kept, with the last's holders."""
        if len(bits) == 1:
            return self.holders(bits[0])
        found = self._every.get(bits)
        if found is None:
            last = bits[-1]
            held = self._within[last] if last in self._within else self.holders(last)
            found = self._every[bits] = self._all_of(bits[:-1]).intersection(held)
        return found

    def count_classes(self, counts: list[int]) -> None:
        """Members of each exact statement mask among the memories neither holding a rare
        statement term nor excluded (inclusion and exclusion over the supersets)."""
        sbits = self.bits(ti.STATEMENT)
        every = {
            sum(1 << b for b in bits): self.holding_all(bits, counts)
            for size in range(1, len(sbits) + 1)
            for bits in combinations(sbits, size)
        }
        one = bin
        exact = {
            mask: sum(
                n * (-1) ** (one(sup).count("1") - one(mask).count("1"))
                for sup, n in every.items()
                if sup & mask == mask
            )
            for mask in every
        }
        left_out = Counter(
            self.part(m, ti.STATEMENT) for mid, m in self.listed.items() if mid in self.own
        )
        left_out.update(self.part(m, ti.STATEMENT) for m in self.masks_of(self.excluded).values())
        self.classes = {m: c - left_out[m] for m, c in exact.items() if c - left_out[m] > 0}

    def member_sql(self, smask: int) -> tuple[str, list[Any]]:
        """SQL of the ids (any scope, listed and stale ones too) holding exactly the common
        statement pairs of `smask`, and its parameters."""
        sbits = self.bits(ti.STATEMENT)
        held = [b for b in sbits if smask >> b & 1]
        others = [b for b in sbits if not smask >> b & 1]
        where = [_HAS] * (len(held) - 1) + [f"NOT {_HAS}"] * len(others)
        sql = "SELECT a.memory_id FROM term_postings a WHERE a.token = ? AND a.field = ?"
        params = [x for b in [*held, *others] for x in self.tok(b)]
        return sql + "".join(f" AND {w}" for w in where), params

    def walk(self, smask: int, named: bool | None, limit: int | None) -> list[tuple[str, int]]:
        """(id, subject mask) of the members of class `smask` (0: memories holding common
        subject terms and no statement term), named or not (None: either), highest id first,
        at most `limit`: one pair's postings walked down, the others checked in SQL, listed
        and excluded ids skipped."""
        sbits, jbits = self.bits(ti.STATEMENT), self.bits(ti.SUBJECT)
        if not smask:  # the union of the subject pairs' postings, merged
            found: dict[str, int] = {}
            for anchor in jbits:
                found.update(self._walk(anchor, [], sbits, True, limit))
            ranked = sorted(found.items(), reverse=True)
            return ranked if limit is None else ranked[:limit]
        held = [b for b in sbits if smask >> b & 1]
        return self._walk(held[0], held[1:], [b for b in sbits if not smask >> b & 1], named, limit)

    def _walk(
        self,
        anchor: int,
        must: list[int],
        must_not: list[int],
        named: bool | None,
        limit: int | None,
    ) -> list[tuple[str, int]]:
        jbits = self.bits(ti.SUBJECT)
        subject = " + ".join(f"({_HAS}) * {1 << b}" for b in jbits) or "0"
        jparams = [x for b in jbits for x in self.tok(b)]
        where: list[str] = [_HAS] * len(must) + [f"NOT {_HAS}"] * len(must_not)
        params = [x for b in [*must, *must_not] for x in self.tok(b)]
        if named is not None:
            where.append(f"({subject}) {'!=' if named else '='} 0")
            params.extend(jparams)
        sql = (
            f"SELECT a.memory_id, {subject} FROM term_postings a WHERE a.token = ? AND "
            f"a.field = ? AND a.memory_id < ?{''.join(f' AND {w}' for w in where)} "
            "ORDER BY a.memory_id DESC LIMIT ?"
        )
        skip = self.excluded.union(self.listed)
        out: list[tuple[str, int]] = []
        below = "\U0010ffff"
        while limit is None or len(out) < limit:
            step = WALK_BATCH if limit is None else max(WALK_BATCH, limit - len(out))
            rows = self.run(sql, (*jparams, *self.tok(anchor), below, *params, step))
            out.extend((mid, mask) for mid, mask in rows if mid not in skip)
            if len(rows) < step:
                break
            below = rows[-1][0]
        return out if limit is None else out[:limit]

    # --- the corpus and the ranking over it --------------------------------------------------
    def corpus(
        self, memories: int, extra: Iterable[frozenset[str]]
    ) -> tuple[ClassCorpus, dict[str, set[str]]]:
        """The Question's corpus: a rare term's statement holders by id; the other memories
        holding common statement terms, as their class (listed ones by id too: `positions`)."""
        by_term = {t: set(ids) for (t, f), ids in self.rare.items() if f == ti.STATEMENT}
        for mid in self.own:
            for term in self.terms_of(self.listed[mid], ti.STATEMENT):
                by_term.setdefault(term, set()).add(mid)
        sizes = {class_key(smask): n for smask, n in self.classes.items()}
        for mid, mask in self.listed.items():
            if mid not in self.own and (position := self.position_of(mask)) is not None:
                self.positions[mid] = position
                sizes.setdefault(position, 0)  # (counted in its class already)
        for key in sizes:
            for term in self.terms_of(int(key[1:]), ti.STATEMENT):
                by_term.setdefault(term, set()).add(key)
        return ClassCorpus(memories, by_term, extra, sizes, self.positions), by_term

    def position_of(self, mask: int) -> str | None:
        smask = self.part(mask, ti.STATEMENT)
        return class_key(smask) if smask else None

    def subject_terms(self, memory_id: str, jmask: int) -> set[str]:
        found = self.terms_of(jmask, ti.SUBJECT)
        found.update(t for (t, f), ids in self.rare.items() if f == ti.SUBJECT and memory_id in ids)
        return found

    def note(self, memory_id: str, smask: int) -> None:
        """A class member read: it scores as its class."""
        if smask:
            self.positions[memory_id] = class_key(smask)

    def place(self, ids: Iterable[str]) -> None:
        """Memories read later (recall's contradiction pass): those holding common statement
        terms only get their class's position."""
        unknown = {m for m in ids if m not in self.listed and m not in self.positions}
        for mid, mask in self.masks_of(unknown - self.excluded).items():
            self.note(mid, self.part(mask, ti.STATEMENT))


def plan(
    run: Callable[[str, tuple], list[tuple]],
    key: bytes,
    terms: Iterable[str],
    excluded: Callable[[], set[str] | None],
    fields: tuple[int, ...] = (ti.STATEMENT, ti.SUBJECT),
    common_from: int | None = None,
    everyone: int | None = None,
) -> Plan | None:
    """The plan of one question, or None when listing every holder is as good (see above).
    excluded(): the ids of memories out of the scope and of stale ones (None: too many), asked
    only when some term is common. fields: those the question reads (the prompt hook: the
    statement alone, it gives no subject bonus). common_from: COMMON_FROM unless given.
    everyone: how many memories the store holds, when the caller knows (read_holders)."""
    found = Plan(run, key)
    common_from = COMMON_FROM if common_from is None else common_from
    counts: dict[tuple[str, int], int] = {}
    for term in sorted(terms):  # the trigger-kept counts (memory_counts.py): nothing walked
        for field in fields:
            found_n = run(TERM_COUNT_SQL, (ti.token(key, term), field))
            counts[term, field] = found_n[0][0] if found_n else 0
    found.common = [pair for pair, n in counts.items() if n > common_from]
    if not found.common or len(found.common) > MAX_COMMON:
        return None
    left_out = excluded()
    if left_out is None or len(left_out) > OUTSIDE_MAX:
        return None
    found.excluded = left_out
    rare = [pair for pair, n in counts.items() if 0 < n <= common_from]
    for term, field in rare:
        (ids,) = run(_HOLDERS_SQL, (ti.token(key, term), field))[0]
        held = set(json.loads(ids)) - left_out
        if held:
            found.rare[term, field] = held
    found.listed = found.masks_of(set().union(*found.rare.values()))
    found.own = set().union(*(ids for (_, f), ids in found.rare.items() if f == ti.STATEMENT))
    common_counts = [counts[pair] for pair in found.common]
    if found.bits(ti.STATEMENT):
        found.read_holders(common_counts, everyone)
    found.count_classes(common_counts)
    return found
