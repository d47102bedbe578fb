"""Recall over the term index (term_index.py): which memories a question reads, found from blind
postings, so recall decrypts the few that can answer instead of the whole scope.

Rarity is counted over the whole scope from the postings (how many memories hold each of the
question's terms, and how many the scope has), so every score is the one a recall reading every
memory computes. A memory is read when its word share plus its subject bonus could reach the
floor: a superset of what scoring picks. The bonus is counted from the subject's postings (the
question terms it holds over its terms less noise) when at most PROBE_MAX memories need it to
reach the floor, else taken at its largest. At most MAX_READ are read (best blind score first,
then recall's own order). A scope holding most memories is checked by the ids outside it. The contradiction pass (recall.py) reads, besides, the memories that share
the best answer's slot or one of its words (`neighbours`), at most MAX_NEIGHBOURS.
"""

from __future__ import annotations

import json

from memvet.store import class_ranking as cr
from memvet.store import fast_read as fr
from memvet.store import recall_classes as rc
from memvet.store import relevance
from memvet.store import term_index as ti
from memvet.store import text_terms as tt
from memvet.store.records import MEMORY_STATUSES, NEVER_VALID

TYPE_CHECKING = False  # recall_read.py's path imports this module without SQLAlchemy or typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    import sqlalchemy as sa
    from memvet.store.records import Candidate, Memory, Reader

MAX_READ = 200  # memories decrypted as possible answers, at most
MAX_NEIGHBOURS = 150  # memories decrypted for the contradiction pass, at most
# A token's newest holders in scope: its postings joined and sorted (params: token, 2 fields,
# scope, limit), or, for a common token, the memories walked newest first along the
# recorded_at index, each probed in the postings (token, 2 fields twice, scope, limit).
_JOIN_SQL = (
    "SELECT p.memory_id, m.recorded_at FROM term_postings p CROSS JOIN memories m "
    "ON m.id = p.memory_id WHERE p.token = ? AND p.field IN (?, ?) AND {scope} "
    "ORDER BY m.recorded_at DESC, m.id LIMIT ?"
)
_HELD = "FROM term_postings p WHERE p.token = ? AND p.memory_id = m.id AND p.field IN (?, ?)"
_WALK_SQL = (
    f"SELECT m.id, m.recorded_at, (SELECT count(*) {_HELD}) FROM memories m "
    f"WHERE EXISTS (SELECT 1 {_HELD}) AND {{scope}} ORDER BY m.recorded_at DESC, m.id LIMIT ?"
)
WALK_FROM = 4  # walk when a token has this many times `limit` postings (in any scope)
_MORE_THAN_SQL = (  # a token's postings, counted up to a limit (params: token, 2 fields, limit)
    "SELECT count(*) FROM (SELECT 1 FROM term_postings WHERE token = ? AND field IN (?, ?) LIMIT ?)"
)


# --- reading ---------------------------------------------------------------------------------------
def _marks(values: Iterable[Any]) -> str:
    return ",".join("?" * len(list(values)))


class IndexedScope:
    """One question's view of one scope through the index: the memories worth reading, the
    rarity of each term, and later the best answer's neighbours."""

    def __init__(self, store: Any, reader: Reader, query: str, candidates: list[Candidate]) -> None:
        self.store, self.key = store, store.ctx.cipher.term_key
        # The scope rule is fast_read's SQL twin of core.scope_clause (a reader of one workspace).
        self.scope_sql = f"{fr.SCOPE_SQL} AND m.status IN ({_marks(MEMORY_STATUSES)})"
        self.plain_scope_sql = f"{fr.SCOPE_SQL} AND status IN ({_marks(MEMORY_STATUSES)})"
        # The same rule kept off the scope's indexes, so a walk follows the recency index.
        self.walk_scope_sql = f"{fr.ID_SCOPE_SQL} AND +m.status IN ({_marks(MEMORY_STATUSES)})"
        self.scope_params = (
            store.ctx.cipher.blind_index("user", reader.user),
            store.ctx.cipher.blind_index("workspace", reader.workspace),
            *MEMORY_STATUSES,
        )
        with store.ctx.read() as conn:
            self.stale = self._stale_memories(conn)
            self.noise = self._noise(conn, reader)
            self.terms = relevance.lookup_terms(query, self.noise)
            count = conn.exec_driver_sql(
                f"SELECT count(*) FROM memories m WHERE {self.scope_sql}", self.scope_params
            ).scalar_one()
            everyone = conn.exec_driver_sql("SELECT count(*) FROM memories").scalar_one()
            run = lambda sql, params: conn.exec_driver_sql(sql, params).all()  # noqa: E731
            self.plan = rc.plan(
                run, self.key, self.terms, lambda: self._left_out(conn, count, everyone)
            )
            texts = (relevance.expanded(c.statement) for c in candidates)
            if self.plan is not None:  # a common word: its holders counted, never listed
                self.corpus, holders = self.plan.corpus(count, texts)
            else:
                holders, self.subjects = self._holders(conn, self.terms, (count, everyone))
                self.corpus = ti.ScopeTerms(count, holders, texts)
            for memory in self.stale:
                for term in relevance.expanded(memory.statement):
                    holders.setdefault(term, set()).add(memory.id)
            if self.plan is not None:
                wanted = self._worth_reading_classes(conn, query)
            else:
                wanted = self._worth_reading(conn, query, self.subjects)
            read = self._read_memories(conn, wanted)
        self.memories = sorted([*read, *self.stale], key=lambda m: m.id)
        self.memories.sort(key=lambda m: m.recorded_at, reverse=True)  # list_memories' order

    def _stale_memories(self, conn: sa.Connection) -> list[Memory]:
        """Memories the index does not hold yet (written since the last re-index): read whole."""
        stale = [
            r[0]
            for r in conn.exec_driver_sql(
                f"SELECT s.memory_id FROM term_stale s CROSS JOIN memories m ON m.id = s.memory_id "
                f"WHERE {self.scope_sql}",
                self.scope_params,
            ).all()
        ]
        return self._read_memories(conn, stale)

    def _noise(self, conn: sa.Connection, reader: Reader) -> frozenset[str]:
        """relevance.noise_of the workspaces memories in scope belong to (as if all were read)."""
        names: list[str | None] = []
        if (
            reader.workspace is not None
            and conn.exec_driver_sql(
                f"SELECT 1 FROM memories m WHERE {self.scope_sql} AND m.workspace_bidx IS NOT NULL "
                "LIMIT 1",
                self.scope_params,
            ).first()
            is not None
        ):
            names.append(reader.workspace)
        return relevance.noise_of(names)

    def _holders(
        self, conn: sa.Connection, terms: frozenset[str], counts: tuple[int, int]
    ) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """term -> ids in scope holding it in their statement, and in their subject (stale
        memories left out: they are read whole). `counts`: (in scope, all)."""
        found = ti.scope_postings(
            lambda sql, params: conn.exec_driver_sql(sql, params).all(),
            self.key,
            terms,
            self.plain_scope_sql,
            self.scope_params,
            (ti.STATEMENT, ti.SUBJECT),
            counts=counts,
        )
        holders: dict[str, set[str]] = {}
        subjects: dict[str, set[str]] = {}
        for (term, field), ids in found.items():
            (holders if field == ti.STATEMENT else subjects)[term] = ids
        return holders, subjects

    def _left_out(self, conn: sa.Connection, inside: int, everyone: int) -> set[str] | None:
        """Ids the postings may hold that this scope's holders are not: stale memories (read
        whole) and memories out of scope (None when more than recall_classes.OUTSIDE_MAX)."""
        out = {r[0] for r in conn.exec_driver_sql(ti.STALE_SQL).all()}
        if everyone - inside > rc.OUTSIDE_MAX:
            return None
        if everyone > inside:
            out.update(
                r[0]
                for r in conn.exec_driver_sql(
                    f"SELECT id FROM memories WHERE ({self.plain_scope_sql}) IS NOT 1",
                    self.scope_params,
                ).all()
            )
        return out

    def _worth_reading_classes(self, conn: sa.Connection, query: str) -> list[str]:
        """_worth_reading over a recall_classes.Plan: the same memories, none listed per holder
        of a common word."""
        assert self.plan is not None and isinstance(self.corpus, cr.ClassCorpus)
        question = self.question = cr.ClassQuestion(query, self.corpus, self.noise)
        return cr.rank(self.plan, question, lambda ids: self._subject_sizes(conn, ids), MAX_READ)

    def _subject_sizes(self, conn: sa.Connection, ids: list[str]) -> dict[str, int]:
        """id -> how many terms its subject has less question noise (relevance.Relevance's
        `subjects`), counted from its subject postings: one per distinct term."""
        noise = [ti.token(self.key, t) for t in self.noise]
        rows = conn.exec_driver_sql(
            f"SELECT p.memory_id, count(*) FROM json_each(?) j CROSS JOIN term_postings p "
            f"ON p.memory_id = j.value WHERE p.field = {ti.SUBJECT} "
            f"AND p.token NOT IN ({_marks(noise)}) GROUP BY p.memory_id",
            (json.dumps(ids), *noise),
        ).all()
        return dict(rows)

    def _worth_reading(
        self, conn: sa.Connection, query: str, subjects: dict[str, set[str]]
    ) -> list[str]:
        """Memories (not stale) whose blind score can reach the floor, best first: the word
        share exact, the subject bonus exact but for the focus factor (which only lowers it).
        Comprehensions and counts, not a loop per holder: at 100k memories sharing a word,
        every one of them is a holder (issue 15)."""
        question = self.question = relevance.Question(query, self.corpus, self.noise)
        named: set[str] = set().union(*subjects.values())  # a question term in the subject
        held = named.union(question.shared)
        held.difference_update(m.id for m in self.stale)
        held.difference_update(self.corpus.extra_keys())
        floor = relevance.FLOOR - 1e-9  # a bound never falls below the score by rounding
        bonus = relevance.SUBJECT_BONUS
        shares = question.shares(held)
        # Ranked by the bound with the whole bonus, as it may hold.
        bound = {m: s + bonus if m in named else s for m, s in shares.items() if s >= floor}
        # Below the floor unless the subject bonus lifts them.
        maybe = {m: s for m, s in shares.items() if s < floor <= s + bonus and m in named}
        if len(maybe) > ti.PROBE_MAX:  # counting every subject costs more than it saves
            bound.update((mid, score + bonus) for mid, score in maybe.items())
            maybe = {}
        sizes = self._subject_sizes(conn, list(maybe)) if maybe else {}
        asked = [subjects[t] for t in question.q & subjects.keys()]
        for mid, score in maybe.items():
            hits = sum(mid in ids for ids in asked)
            if hits and sizes.get(mid):
                score += bonus * hits / sizes[mid]
                if score >= floor:
                    bound[mid] = score
        return cr.best(bound, MAX_READ)

    def _newest_holders(
        self, conn: sa.Connection, tokens: list[bytes], limit: int
    ) -> Iterator[tuple[bytes, str, str]]:
        """Per token, (token, memory id, recorded_at) of its newest `limit` postings in scope
        (statement or slot; a memory holding it in both counts twice), newest first. A rare
        token's postings are joined and sorted; a common one's (a word most memories hold)
        are found walking the memories newest first, stopping at `limit`, the same rows."""
        fields = (ti.STATEMENT, ti.SLOT)
        if not tokens:
            return
        walk_from = WALK_FROM * limit
        for tok in tokens:
            # Whether a token has more than walk_from postings, counted no further: a word every
            # memory holds is not counted to the end (issue 15: a tenth of recall at 100k).
            common = conn.exec_driver_sql(_MORE_THAN_SQL, (tok, *fields, walk_from + 1))
            if common.scalar_one() > walk_from:
                rows = [
                    (mid, recorded)
                    for mid, recorded, held in conn.exec_driver_sql(
                        _WALK_SQL.format(scope=self.walk_scope_sql),
                        (tok, *fields) * 2 + (*self.scope_params, limit),
                    ).all()
                    for _ in range(held)
                ][:limit]
            else:
                rows = conn.exec_driver_sql(
                    _JOIN_SQL.format(scope=self.scope_sql),
                    (tok, *fields, *self.scope_params, limit),
                ).all()
            for mid, recorded in rows:
                yield tok, mid, recorded

    def _read_memories(self, conn: sa.Connection, ids: list[str]) -> list[Memory]:
        if not ids:
            return []
        by_id = getattr(self.store, "memories_by_id", None)
        if by_id is not None:  # recall_read.py's sqlite3 source decodes its own rows
            return by_id(conn, ids)
        import sqlalchemy as sa
        from memvet.store.core import MEM

        rows = conn.execute(sa.select(MEM).where(MEM.c.id.in_(ids))).all()
        return self.store.ctx.readable(rows, self.store.rows.memory, "memories")

    def neighbours(self, best: Memory, loaded: set[str]) -> list[Memory]:
        """Memories in scope sharing the best answer's slot or one of its words, not yet read,
        that could be evidence against it (never-valid ones are no evidence): those of its slot
        first, then those sharing the most words; newest first within each (the order recall
        lists contradictions in), at most MAX_NEIGHBOURS per token and in all."""
        tokens = {ti.token(self.key, t): t for t in tt.terms(best.statement)}
        slot = ti.slot_term(best.subject)
        if slot is not None:
            tokens[ti.token(self.key, slot)] = slot
        shared: dict[str, list] = {}
        limit = MAX_NEIGHBOURS + len(loaded)
        with self.store.ctx.read() as conn:
            for tok, mid, recorded in self._newest_holders(conn, list(tokens), limit):
                if mid not in loaded:
                    entry = shared.setdefault(mid, [0, 0, recorded])
                    entry[0 if tokens[tok] == slot else 1] += 1  # one slot: recency alone decides
            # Ties (one bulk import shares a record time) go to the highest id, never to the
            # order a set of terms iterates in (that varied with PYTHONHASHSEED).
            wanted = sorted(
                shared,
                key=lambda mid: (
                    shared[mid][0],
                    shared[mid][0] or shared[mid][1],
                    shared[mid][2],
                    mid,
                ),
                reverse=True,
            )[:MAX_NEIGHBOURS]
            found = self._read_memories(conn, wanted)
            if self.plan is not None:  # this read's connection
                self.plan.run = lambda sql, params: conn.exec_driver_sql(sql, params).all()
                self.plan.place(m.id for m in found)
        return [m for m in found if m.retired_reason not in NEVER_VALID]
