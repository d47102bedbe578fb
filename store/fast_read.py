"""The hook's read path without the daemon: memvet.db through `sqlite3`, fields through
`cryptography`'s AES-GCM, nothing else of the store (no SQLAlchemy, no SQLModel, no records).

The store is opened and its fields decrypted by fast_keys.py; the workspace filter is the blind
index, the scope rule store/scope.py's, rendered as SQL. The daemon's context server uses the
same source and hook_reply.respond, so both paths give the same context.
"""

from __future__ import annotations

import hmac
import sqlite3

from memvet.store import context_pack as cp
from memvet.store import memory_counts as counts
from memvet.store import row_mac
from memvet.store import scope as scope_rule
from memvet.store import term_index as ti
from memvet.store.vocabulary_values import LIVE_STATUSES, MemoryStatus

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook ~4 ms
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any, Protocol

    from memvet.store.prompt_match import TermIndex

    class Cipher(Protocol):
        def decrypt(
            self, table: str, column: str, row_id: str, blob: bytes | None
        ) -> str | None: ...
        def blind_index(self, field: str, value: str | None) -> str | None: ...

        row_key: bytes
        term_key: bytes


CT_OVERHEAD = 2 + 1 + 8 + 12 + 16  # MV1 ciphertext: magic, version, dek id, nonce, tag
# records.Memory.auto_admitted in SQL: approved by the admission policy, not by a person.
AUTO_SQL = "approved_by LIKE 'policy:%'"
# An `unsettled` mark contests a line only beside a live rival of its own slot (one subject
# index): a correction that also replaced a memory of another subject ("moved off yarn" against
# "run tests with yarn") leaves that one's slot with a single answer, as recall reads it.
CONFLICT_SQL = (
    "CASE WHEN conflict_state = 'unsettled' AND NOT EXISTS (SELECT 1 FROM memories AS rival "
    "WHERE rival.subject_bidx = memories.subject_bidx AND rival.id != memories.id "
    "AND rival.status IN {live} AND rival.conflict_state = 'unsettled') THEN 'none' "
    "ELSE conflict_state END"
)
COLUMNS = (
    "id, kind, status, source_type, importance, recorded_at, valid_from, valid_to, "
    f"expires_at, length(statement_ct), length(usage_boundary_ct), {row_mac.MEMORY_SQL}, "
    "{conflict}, subject_bidx, length(subject_ct), {auto}"
)
SEALED_AT = 11  # where the row MAC's columns start in COLUMNS
ROW_MAC_AT = SEALED_AT + len(row_mac.SEALED["memories"][1])
SLOT_AT = ROW_MAC_AT + 1  # conflict state, subject index, subject length (issue 13)
AUTO_AT = SLOT_AT + 3  # auto-admitted (selective mode), issue 9
TEXTS_AT = AUTO_AT + 1  # statement_ct, usage_boundary_ct, subject_ct, when selected after COLUMNS
TIER_SQL = "CASE source_type {} ELSE {} END".format(
    " ".join(f"WHEN '{k}' THEN {v}" for k, v in cp.SOURCE_TIER.items()), cp.LAST_TIER
)
SCOPE_SQL = scope_rule.SCOPE_SQL  # params: the user and workspace blind indexes
# The same rule with unary + on its columns: SQLite then keeps to the id lookups of a query
# that names its rows (an index on the scope would scan it whole).
ID_SCOPE_SQL = scope_rule.sql(scope_rule.SCOPE, "+{}_bidx")[0]
RANK_SQL = f"ORDER BY {TIER_SQL}, importance DESC, recorded_at DESC, id DESC"  # cp.rank_key
# the live statuses as an SQL list, from the one definition: "('active', 'disputed')"
LIVE_IN = "({})".format(", ".join(f"'{s}'" for s in LIVE_STATUSES))
COLUMNS = COLUMNS.format(conflict=CONFLICT_SQL.format(live=LIVE_IN), auto=AUTO_SQL)
SCOPED_SQL = f"FROM memories WHERE {SCOPE_SQL} AND status IN {LIVE_IN} {RANK_SQL}"
IN_FORCE_SQL = scope_rule.IN_FORCE_SQL  # params: now, now, now
FIRST_PAGE = 256  # rows sorted with a LIMIT (a cheap top-N sort); rarely does a pack read more


def ruleset_recorded(conn: sqlite3.Connection) -> str | None:
    """The redaction rule-set version the store's text was last swept with (redaction_sweep)."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = 'redaction_ruleset'").fetchone()
    return row[0] if row else None


# --- the memories in scope ------------------------------------------------------------------------
def _item(row: tuple) -> cp.PackItem:
    item = cp.PackItem(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9] - CT_OVERHEAD,
        (row[10] or CT_OVERHEAD) - CT_OVERHEAD,
    )
    item.conflict, item.slot = row[SLOT_AT] or "none", row[SLOT_AT + 1]
    item.subject_len = (row[SLOT_AT + 2] or CT_OVERHEAD) - CT_OVERHEAD
    item.auto = bool(row[AUTO_AT])
    return item


class DirectSource:
    """Active and disputed memories of one scope, straight from SQL, best first. A row whose
    row MAC or ciphertext fails authentication is left out and its id kept in `unreadable`:
    one bad row never silences the rest."""

    def __init__(
        self, conn: sqlite3.Connection, cipher: Cipher, user: str, workspace: str | None
    ) -> None:
        self.conn, self.cipher = conn, cipher
        self.params = (cipher.blind_index("user", user), cipher.blind_index("workspace", workspace))
        self._row_key = cipher.row_key
        self.unreadable: list[str] = []
        self._plan: Any = None  # recall_classes.Plan of the last prompt (relevant)

    def _sealed(self, row: tuple) -> bool:
        """The row's lifecycle, scope and validity are as the key-holder wrote them."""
        stored = row[ROW_MAC_AT]
        if isinstance(stored, str) and hmac.compare_digest(
            stored, row_mac.mac(self._row_key, "memories", row[0], row[SEALED_AT:ROW_MAC_AT])
        ):
            return True
        self.unreadable.append(row[0])
        return False

    def _items(self, rows: Iterable[tuple]) -> Iterator[cp.PackItem]:
        return (_item(row) for row in rows if self._sealed(row))

    def ranked(self) -> Iterator[cp.PackItem]:
        """Best first, lengths only: nothing is decrypted until `fill`. The first page comes
        from a LIMIT query, which SQLite sorts with a bounded heap instead of sorting the whole
        scope; the rest only if the pack reads past it."""
        query = f"SELECT {COLUMNS} {SCOPED_SQL}"
        rows = self.conn.execute(f"{query} LIMIT {FIRST_PAGE}", self.params).fetchall()
        yield from self._items(rows)
        if len(rows) == FIRST_PAGE:
            yield from self._items(
                self.conn.execute(f"{query} LIMIT -1 OFFSET {FIRST_PAGE}", self.params)
            )

    def ruleset_recorded(self) -> str | None:
        return ruleset_recorded(self.conn)

    def count_active(self, now: str) -> int:
        """In-force active memories in scope (the footer's count): the trigger-kept counts
        with the few not (yet) in force taken from indexes (memory_counts.py, issue 15)."""
        return counts.in_force(self.conn, self.params, MemoryStatus.ACTIVE, now)

    def _decrypt(self, item: cp.PackItem, statement: bytes, boundary: bytes | None) -> bool:
        """False (and the id kept) when a ciphertext fails: the item stays without text."""
        try:
            item.statement = self.cipher.decrypt("memories", "statement", item.id, statement)
            item.boundary = self.cipher.decrypt("memories", "usage_boundary", item.id, boundary)
        except Exception:  # FastReadError here, IntegrityError from the daemon's FieldCipher
            item.statement = item.boundary = None
            self.unreadable.append(item.id)
            return False
        return True

    def fill(self, items: list[cp.PackItem]) -> None:
        by_id = {item.id: item for item in items}
        marks = ",".join("?" * len(by_id))
        for rid, statement, boundary, subject in self.conn.execute(
            f"SELECT id, statement_ct, usage_boundary_ct, subject_ct FROM memories "
            f"WHERE id IN ({marks})",
            list(by_id),
        ):
            if self._decrypt(by_id[rid], statement, boundary):
                self._subject(by_id[rid], subject)

    def _subject(self, item: cp.PackItem, blob: bytes | None) -> None:
        """A contested item is shown by its subject (context_pack.contested)."""
        if cp.contested(item):
            try:
                item.subject = self.cipher.decrypt("memories", "subject", item.id, blob)
            except Exception:  # as _decrypt: a failing ciphertext leaves the slot unnamed
                self.unreadable.append(item.id)

    def all_items(self) -> list[cp.PackItem]:
        """Everything in scope, decrypted, best first (user-prompt-submit needs every text)."""
        items = []
        for row in self.conn.execute(
            f"SELECT {COLUMNS}, statement_ct, usage_boundary_ct, subject_ct {SCOPED_SQL}",
            self.params,
        ):
            if self._sealed(row):
                item = _item(row)
                if self._decrypt(item, row[TEXTS_AT], row[TEXTS_AT + 1]):
                    self._subject(item, row[TEXTS_AT + 2])
                    items.append(item)
        return items

    def index(self) -> TermIndex:
        from memvet.store import prompt_match as pm  # a prompt's only: session start skips it

        return pm.TermIndex(self.all_items())

    def relevant(self, prompt: str, given: set[str], now: str) -> Iterator[cp.PackItem]:
        """prompt_match.relevant over the term index: the prompt's terms are looked up as blind tokens,
        rarity counted from the postings, and only the memories that reach the floor are read
        (their rows; their text only if `fill` chooses them). Memories written since the last
        re-index (term_stale) are read whole, as `all_items` reads every one."""
        from memvet.store import prompt_match as pm
        from memvet.store.relevance import lookup_terms, noise_of

        scope = f"{SCOPE_SQL} AND status IN {LIVE_IN}"
        stale = self._rows_of(
            [
                r[0]
                for r in self.conn.execute(
                    f"SELECT memory_id FROM term_stale CROSS JOIN memories ON memories.id = memory_id "
                    f"WHERE {scope}",
                    self.params,
                )
            ],
            texts=True,
        )
        terms = lookup_terms(prompt, noise_of([None]))
        count = counts.in_scope(self.conn, self.params, LIVE_STATUSES)
        everyone = counts.everyone(self.conn)
        scores = self._class_scores(prompt, terms, scope, (count, everyone), stale)
        if scores is None:  # every holder listed
            holders = ti.scope_holders(
                self.conn, self.cipher.term_key, terms, scope, self.params, (count, everyone)
            )
            for item in stale:
                for term in pm.item_terms(item):
                    holders.setdefault(term, set()).add(item.id)
            scores = dict(pm.prompt_scores(ti.ScopeTerms(count, holders), prompt))  # by id
        return self._by_score(scores, {item.id: item for item in stale}, given, now)

    def _class_scores(
        self, prompt: str, terms: frozenset[str], scope: str, counts: tuple[int, int], stale: list
    ) -> dict[str, float] | None:
        """prompt_scores with the memories that hold common words only counted as classes
        (recall_classes.py): the scores of listing every holder, a class's key standing for its
        members (`_by_score` reads them ranked by SQLite). None: every holder is listed."""
        from memvet.store import prompt_match as pm
        from memvet.store import recall_classes as rc

        inside, everyone = counts

        def left_out() -> set[str] | None:
            out = {r[0] for r in self.conn.execute(ti.STALE_SQL)}
            if everyone - inside > rc.OUTSIDE_MAX:
                return None
            if everyone > inside:
                sql = f"SELECT id FROM memories WHERE ({scope}) IS NOT 1"
                out.update(r[0] for r in self.conn.execute(sql, self.params))
            return out

        plan = rc.plan(
            lambda sql, params: self.conn.execute(sql, params).fetchall(),
            self.cipher.term_key,
            terms,
            left_out,
            (ti.STATEMENT,),
            rc.PROMPT_COMMON_FROM,
            everyone,
        )
        if plan is None:
            return None
        corpus, holders = plan.corpus(inside, ())
        for item in stale:
            for term in pm.item_terms(item):
                holders.setdefault(term, set()).add(item.id)
        self._plan = plan  # _by_score reads a class's members through it
        return dict(pm.prompt_scores(corpus, prompt))

    def _by_score(
        self, scores: dict[str, float], known: dict[str, cp.PackItem], given: set[str], now: str
    ) -> Iterator[cp.PackItem]:
        """Best score first, rank order within a score; rows read one score at a time, so a
        pack that is full after the best few never reads the thousands below them."""
        import heapq

        levels: dict[float, list[str]] = {}
        for mid, score in scores.items():
            if mid not in given:
                levels.setdefault(score, []).append(mid)
        for score in sorted(levels, reverse=True):
            ids = levels[score]
            read = cp.ranked(known[m] for m in ids if m in known)
            unread = self._ranked_rows([m for m in ids if m not in known and not _is_class(m)])
            members = [self._class_rows(m, given) for m in ids if _is_class(m)]
            for item in heapq.merge(read, unread, *members, key=cp.rank_key, reverse=True):
                if cp.in_force(item, now):
                    yield item

    def _class_rows(self, key: str, given: set[str]) -> Iterator[cp.PackItem]:
        """The members of a class (recall_classes.Plan) in scope, in rank order: neither listed
        (a rare word's holders) nor stale (read whole) nor given this session."""
        plan = self._plan
        members, params = plan.member_sql(int(key[1:]))
        rows = self.conn.execute(
            f"SELECT {COLUMNS} FROM memories WHERE id IN ({members}) AND {SCOPE_SQL} "
            f"AND status IN {LIVE_IN} AND id NOT IN (SELECT memory_id FROM term_stale) "
            f"AND id NOT IN (SELECT value FROM json_each(?)) {RANK_SQL}",
            (*params, *self.params, _json_list(sorted(plan.listed))),
        )
        return (item for item in self._items(rows) if item.id not in given)

    def _ranked_rows(self, ids: list[str]) -> Iterator[cp.PackItem]:
        """The sealed rows of these ids in rank order (SQLite sorts them: ORDER BY is the rank
        rule), each row's MAC checked only when the pack reaches it: a tampered row the pack
        would serve is still refused and named, one it never reaches costs nothing (issue 15:
        checking all 10k rows of a common word's level was a third of the hook's time)."""
        if not ids:
            return
        yield from self._items(
            self.conn.execute(
                f"SELECT {COLUMNS} FROM memories WHERE id IN (SELECT value FROM json_each(?)) "
                f"{RANK_SQL}",
                (_json_list(ids),),
            )
        )

    def scoped_items(self, ids: Iterable[str]) -> list[cp.PackItem]:
        """Those of these memories that are in scope, active or disputed, decrypted (what
        `all_items` holds of them): the daemon's pack takes them in after a change."""
        return self._rows_of(list(ids), texts=True, scoped=True)

    def _rows_of(
        self, ids: list[str], *, texts: bool = False, scoped: bool = False
    ) -> list[cp.PackItem]:
        """The sealed rows of these ids as items (decrypted too with `texts`)."""
        if not ids:
            return []
        extra = ", statement_ct, usage_boundary_ct, subject_ct" if texts else ""
        scope = f" AND {ID_SCOPE_SQL} AND +status IN {LIVE_IN}" if scoped else ""
        rows = self.conn.execute(
            f"SELECT {COLUMNS}{extra} FROM memories WHERE id IN "
            f"(SELECT value FROM json_each(?)){scope}",
            (_json_list(ids), *(self.params if scoped else ())),
        )
        items = []
        for row in rows:
            if self._sealed(row):
                item = _item(row)
                if not texts:
                    items.append(item)
                elif self._decrypt(item, row[TEXTS_AT], row[TEXTS_AT + 1]):
                    self._subject(item, row[TEXTS_AT + 2])
                    items.append(item)
        return items


def _is_class(position: str) -> bool:
    return position.startswith(ti.CLASS_PREFIX)  # recall_classes.class_key


def _json_list(values: list[str]) -> str:
    """Ids as one JSON parameter for json_each: any number of them, whatever they hold."""
    import json

    return json.dumps(values)
