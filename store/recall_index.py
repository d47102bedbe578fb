"""Recall over the term index (term_index.py): which memories a question reads, found from blind
postings, so recall decrypts the few that can answer instead of the whole scope.

Rarity is counted over the whole scope from the postings (how many memories hold each of the
question's terms, and how many the scope has), so every score is the one a recall reading every
memory computes. A memory is read when its word share plus the largest subject bonus could reach
the floor: a superset of what scoring picks. At most MAX_READ are (best blind score first, then
recall's own order). The contradiction pass (recall.py) reads, besides, the memories that share
the best answer's slot or one of its words (`neighbours`), at most MAX_NEIGHBOURS.
"""

from __future__ import annotations

import json

from memvet.store import context_pack as cp
from memvet.store import fast_read as fr
from memvet.store import relevance
from memvet.store import term_index as ti
from memvet.store.records import MEMORY_STATUSES, NEVER_VALID

TYPE_CHECKING = False  # recall_read.py's path imports this module without SQLAlchemy or typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    import sqlalchemy as sa
    from memvet.store.records import Candidate, Memory, Reader

MAX_READ = 200  # memories decrypted as possible answers, at most
MAX_NEIGHBOURS = 150  # memories decrypted for the contradiction pass, at most
IDS_SQL = "SELECT value FROM json_each(?)"  # a list of ids as one parameter
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


# --- keeping the index current ---------------------------------------------------------------------
def _texts(
    conn: sa.Connection, cipher: Any, ids: list[str] | None
) -> Iterator[tuple[str, str, str]]:
    """(id, statement, subject) of memories; one that cannot be decrypted gets no postings
    (reads skip it as unreadable) and is cleared all the same."""
    from memvet.store.slots import derive_subject

    sql = "SELECT id, kind, statement_ct, subject_ct FROM memories"
    rows = (
        conn.exec_driver_sql(sql)
        if ids is None
        else conn.exec_driver_sql(f"{sql} WHERE id IN ({IDS_SQL})", (json.dumps(ids),))
    )
    for rid, kind, statement_ct, subject_ct in rows.all():
        try:
            statement = cipher.decrypt("memories", "statement", rid, statement_ct) or ""
            subject = cipher.decrypt("memories", "subject", rid, subject_ct) or derive_subject(
                statement, kind
            )
        except Exception:  # noqa: BLE001 - IntegrityError: altered, or another key
            yield rid, "", ""
            continue
        yield rid, statement, subject


def _reindex(conn: sa.Connection, cipher: Any, ids: list[str] | None) -> int:
    return ti.reindex(
        conn.exec_driver_sql, conn.exec_driver_sql, cipher.term_key, _texts(conn, cipher, ids)
    )


def index_all(conn: sa.Connection, cipher: Any) -> int:
    """Every memory indexed afresh (migration m007)."""
    return _reindex(conn, cipher, None)


def reindex_stale(conn: sa.Connection, cipher: Any) -> int:
    """The memories whose text changed since they were indexed (the triggers' queue)."""
    stale = [r[0] for r in conn.exec_driver_sql(ti.STALE_SQL).all()]
    return _reindex(conn, cipher, stale) if stale else 0


# --- reading ---------------------------------------------------------------------------------------
def _marks(values: Iterable[Any]) -> str:
    return ",".join("?" * len(list(values)))


class IndexedScope:
    """One question's view of one scope through the index: the memories worth reading, the
    rarity of each term, and later the best answer's neighbours."""

    def __init__(self, store: Any, reader: Reader, query: str, candidates: list[Candidate]) -> None:
        self.store, self.key = store, store.cipher.term_key
        # The scope rule is fast_read's SQL twin of core.scope_clause (a reader of one workspace).
        self.scope_sql = f"{fr.SCOPE_SQL} AND m.status IN ({_marks(MEMORY_STATUSES)})"
        # The same rule kept off the scope's indexes, so a walk follows the recency index.
        self.walk_scope_sql = f"{fr.ID_SCOPE_SQL} AND +m.status IN ({_marks(MEMORY_STATUSES)})"
        self.scope_params = (
            store.cipher.blind_index("user", reader.user),
            store.cipher.blind_index("workspace", reader.workspace),
            *MEMORY_STATUSES,
        )
        with store._read() as conn:
            self.stale = self._stale_memories(conn)
            self.noise = self._noise(conn, reader)
            self.terms = relevance.lookup_terms(query, self.noise)
            count = conn.exec_driver_sql(
                f"SELECT count(*) FROM memories m WHERE {self.scope_sql}", self.scope_params
            ).scalar_one()
            holders, subject_hits = self._holders(conn, self.terms)
            for memory in self.stale:
                for term in relevance.expanded(memory.statement):
                    holders.setdefault(term, set()).add(memory.id)
                if relevance.expanded(memory.subject) & self.terms:
                    subject_hits.add(memory.id)
            self.corpus = ti.ScopeTerms(
                count, holders, (relevance.expanded(c.statement) for c in candidates)
            )
            wanted = self._worth_reading(query, subject_hits)
            read = self._read_memories(conn, wanted)
        self.memories = sorted([*read, *self.stale], key=lambda m: m.id)
        self.memories.sort(key=lambda m: m.recorded_at, reverse=True)  # list_memories' order
        self.corpus.read(m.id for m in self.memories)

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

    def _postings(
        self, conn: sa.Connection, tokens: dict[bytes, str], fields: tuple[int, ...]
    ) -> Iterator[tuple[str, str, int]]:
        """(term, memory id, field) of memories in scope holding one of `tokens`."""
        if not tokens:
            return
        sql = (
            f"SELECT p.token, p.memory_id, p.field FROM term_postings p CROSS JOIN memories m "
            f"ON m.id = p.memory_id WHERE p.token IN ({_marks(tokens)}) "
            f"AND p.field IN ({_marks(fields)}) AND {self.scope_sql} "
            f"AND p.memory_id NOT IN (SELECT memory_id FROM term_stale)"
        )
        for token, mid, field in conn.exec_driver_sql(
            sql, (*tokens, *fields, *self.scope_params)
        ).all():
            yield tokens[bytes(token)], mid, field

    def _holders(
        self, conn: sa.Connection, terms: frozenset[str]
    ) -> tuple[dict[str, set[str]], set[str]]:
        tokens = {ti.token(self.key, t): t for t in terms}
        holders: dict[str, set[str]] = {}
        subject_hits: set[str] = set()
        for term, mid, field in self._postings(conn, tokens, (ti.STATEMENT, ti.SUBJECT)):
            if field == ti.STATEMENT:
                holders.setdefault(term, set()).add(mid)
            else:
                subject_hits.add(mid)
        return holders, subject_hits

    def _worth_reading(self, query: str, subject_hits: set[str]) -> list[str]:
        """Memories (not stale) whose blind score can reach the floor, best first."""
        question = relevance.Question(query, ti.IdCorpus(self.corpus), self.noise)
        stale = {m.id for m in self.stale}
        bound: dict[str, float] = {}
        for mid in {*question.shared, *subject_hits}:
            if isinstance(mid, str) and not mid.startswith("\x00") and mid not in stale:
                score = question.share(mid) + (
                    relevance.SUBJECT_BONUS if mid in subject_hits else 0
                )
                if score >= relevance.FLOOR:
                    bound[mid] = score
        ranked = sorted(bound, key=lambda mid: (round(bound[mid], 2), mid), reverse=True)
        return ranked[:MAX_READ]

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
        counts = {
            bytes(tok): held
            for tok, held in conn.exec_driver_sql(
                f"SELECT token, count(*) FROM term_postings WHERE token IN ({_marks(tokens)}) "
                "AND field IN (?, ?) GROUP BY token",
                (*tokens, *fields),
            ).all()
        }
        for tok in tokens:
            if counts.get(tok, 0) > WALK_FROM * limit:
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
        tokens = {ti.token(self.key, t): t for t in cp.terms(best.statement)}
        slot = ti.slot_term(best.subject)
        if slot is not None:
            tokens[ti.token(self.key, slot)] = slot
        shared: dict[str, list] = {}
        limit = MAX_NEIGHBOURS + len(loaded)
        with self.store._read() as conn:
            for tok, mid, recorded in self._newest_holders(conn, list(tokens), limit):
                if mid not in loaded:
                    entry = shared.setdefault(mid, [0, 0, recorded])
                    entry[0 if tokens[tok] == slot else 1] += 1  # one slot: recency alone decides
            wanted = sorted(
                shared,
                key=lambda mid: (shared[mid][0], shared[mid][0] or shared[mid][1], shared[mid][2]),
                reverse=True,
            )[:MAX_NEIGHBOURS]
            found = self._read_memories(conn, wanted)
        return [m for m in found if m.retired_reason not in NEVER_VALID]
