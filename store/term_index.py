"""The recall index: blind tokens of each memory's terms, so a question finds the memories that
can answer it without decrypting the scope (issue 15; what it reveals: docs/threat-model.md).

A token is HMAC-SHA256 under the `term` key (HKDF of the data key, label TERM_LABEL) of one
normalised term, cut to TOKEN_BYTES. A memory's postings are the tokens of its statement's terms
as relevance.py expands them (stems, compounds, concepts, synonym groups: a paraphrase still
finds it), of its subject's terms, and one of its slot (normalised subject): one row per distinct
(token, memory, field), never a count. The postings hold no state: reads join the memories
table, so approving, retiring, restoring or undoing needs no index write. Text changes do: SQLite
triggers (migration m007) queue every inserted row and every changed statement or subject in
`term_stale`, and every deleted row takes its postings along, whatever code path wrote it. Stale
memories are read directly until the next writer re-indexes them (`reindex_stale`).

Standard library only at import, like fast_read.py: the no-daemon hook loads it.
"""

from __future__ import annotations

from memvet.store.row_mac import keyed_digest

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook's prompt path loads this module
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

TERM_LABEL = "memvet/term/v1"
TOKEN_BYTES = 16  # 128 bits: no two terms of one store meet by chance
STATEMENT, SUBJECT, SLOT = 0, 1, 2  # the field a token came from
REINDEX_BATCH = 500  # stale memories re-indexed per statement batch
PROBE_MAX = 2000  # holders checked by id lookups; more: the scope's ids are read once

SCHEMA_SQL = (
    # Columns in key order: SQLite 3.40's quick_check misreads a WITHOUT ROWID table otherwise.
    "CREATE TABLE term_postings (token BLOB NOT NULL, memory_id VARCHAR(48) NOT NULL, "
    "field INTEGER NOT NULL, PRIMARY KEY (token, memory_id, field)) WITHOUT ROWID",
    "CREATE INDEX ix_term_postings_memory ON term_postings (memory_id)",
    "CREATE TABLE term_stale (memory_id VARCHAR(48) NOT NULL PRIMARY KEY)",
    # Every path that writes memory text, present or future, queues the row: none can be missed.
    "CREATE TRIGGER term_stale_insert AFTER INSERT ON memories BEGIN "
    "INSERT OR IGNORE INTO term_stale (memory_id) VALUES (NEW.id); END",
    "CREATE TRIGGER term_stale_update AFTER UPDATE OF statement_ct, subject_ct, id ON memories "
    "BEGIN INSERT OR IGNORE INTO term_stale (memory_id) VALUES (NEW.id); END",
    "CREATE TRIGGER term_postings_delete AFTER DELETE ON memories BEGIN "
    "DELETE FROM term_postings WHERE memory_id = OLD.id; "
    "DELETE FROM term_stale WHERE memory_id = OLD.id; END",
)
DELETE_SQL = "DELETE FROM term_postings WHERE memory_id = ?"
INSERT_SQL = "INSERT OR IGNORE INTO term_postings (token, memory_id, field) VALUES (?, ?, ?)"
UNSTALE_SQL = "DELETE FROM term_stale WHERE memory_id = ?"
STALE_SQL = "SELECT memory_id FROM term_stale"
IDS_SQL = "SELECT value FROM json_each(?)"  # a list of ids as one parameter
SLOT_PREFIX = "slot\x1f"  # a slot's token never equals a term's
CLASS_PREFIX = "\x01"  # a corpus position standing for a class (recall_classes.py): no id starts so


def token(key: bytes, term: str) -> bytes:
    return keyed_digest(key, term.encode("utf-8"))[:TOKEN_BYTES]  # HMAC-SHA256, pads cached


def statement_terms(statement: str) -> frozenset[str]:
    from memvet.store.relevance import expanded  # compiles the vocabularies: loaded on first use

    return expanded(statement)


def slot_term(subject: str) -> str | None:
    from memvet.store.slots import normalise_subject

    normal = normalise_subject(subject)
    return SLOT_PREFIX + normal if normal else None


def postings(key: bytes, memory_id: str, statement: str, subject: str) -> list[tuple]:
    """The (token, memory id, field) rows of one memory."""
    rows = {(token(key, t), memory_id, STATEMENT) for t in statement_terms(statement)}
    if subject:
        rows.update((token(key, t), memory_id, SUBJECT) for t in statement_terms(subject))
        slot = slot_term(subject)
        if slot is not None:
            rows.add((token(key, slot), memory_id, SLOT))
    return sorted(rows)


def reindex(
    run: Callable[..., object],
    run_many: Callable[..., object],
    key: bytes,
    texts: Iterable[tuple[str, str, str]],
) -> int:
    """Replace the postings of each (id, statement, subject) and clear its stale mark.
    run(sql, params) / run_many(sql, rows): the caller's connection, sqlite3 or SQLAlchemy."""
    count = 0
    rows: list[tuple] = []
    ids: list[tuple[str]] = []
    for memory_id, statement, subject in texts:
        ids.append((memory_id,))
        rows.extend(postings(key, memory_id, statement, subject))
        count += 1
        if len(ids) >= REINDEX_BATCH:
            _flush(run_many, ids, rows)
            ids, rows = [], []
    if ids:
        _flush(run_many, ids, rows)
    return count


def _flush(run_many: Callable[..., object], ids: list[tuple[str]], rows: list[tuple]) -> None:
    run_many(DELETE_SQL, ids)
    if rows:
        run_many(INSERT_SQL, sorted(rows))  # key order: each B-tree page written once per batch
    run_many(UNSTALE_SQL, ids)


class ScopeTerms:
    """Who in a scope holds each term (memory ids, from the postings or from stale memories
    read directly), and how many texts the scope has: the rarity side of relevance, known
    without decrypting, as a relevance corpus whose positions are memory ids (`extra`: texts
    beside the memories, pending candidates, read whole, keyed by a string no id has). One
    relevance.Question over it ranks every holder before anything is read and then scores what
    is read, exactly, whenever it is read (a word every memory holds names them all: nothing is
    handed out per holder, issue 15)."""

    def __init__(
        self, memories: int, holders: dict[str, set[str]], extra: Iterable[frozenset[str]] = ()
    ) -> None:
        self.by_term = holders
        self.extra = list(extra)
        self.n = memories + len(self.extra)

    def position(self, memory_id: str) -> str:
        return memory_id

    def ids_of(self, unit: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for term in unit:
            out.update(self.by_term.get(term, ()))
        return out

    def extra_keys(self) -> set[str]:
        return {f"\x00{k}" for k in range(len(self.extra))}

    def holders(self, unit: frozenset[str]) -> set[str]:
        found = self.ids_of(unit)
        found.update(f"\x00{k}" for k, words in enumerate(self.extra) if unit & words)
        return found


def scope_holders(
    conn: object,
    key: bytes,
    terms: Iterable[str],
    scope_sql: str,
    params: tuple,
    counts: tuple[int, int] | None = None,
) -> dict[str, set[str]]:
    """term -> ids of memories matching `scope_sql` (over `memories`, unprefixed) whose
    statement holds it, from the postings (stale memories left out: the caller reads those)."""
    run = conn.execute  # type: ignore[attr-defined]
    found = scope_postings(run, key, terms, scope_sql, params, (STATEMENT,), counts=counts)
    return {term: ids for (term, _field), ids in found.items()}


def scope_postings(
    run: Callable[[str, tuple], Iterable[tuple]],
    key: bytes,
    terms: Iterable[str],
    scope_sql: str,
    params: tuple,
    fields: tuple[int, ...],
    *,
    counts: tuple[int, int] | None = None,
) -> dict[tuple[str, int], set[str]]:
    """(term, field) -> ids of memories matching `scope_sql` whose `field` holds the term;
    run(sql, params): the caller's connection's rows. Each token's holders come as one JSON
    array (parsed in C, not a Python row per posting). Few holders are checked against the
    scope one id lookup each; many against the scope's ids, read once: at 10k memories sharing
    a word, that costs a fifth of probing per posting (issue 15), and reading the scope for a
    rare word would cost a thousand times the probes. `counts`: (memories in scope, memories),
    when the caller has them: a scope that holds most memories is read as the ids outside it
    (none at all when it holds every one: one user, one workspace, the usual store)."""
    import json

    tokens = {token(key, t): t for t in terms}
    if not tokens:
        return {}
    marks = ",".join("?" * len(tokens))
    posted = [
        ((tokens[bytes(tok)], field), json.loads(ids))
        for tok, field, ids in run(
            f"SELECT token, field, json_group_array(memory_id) FROM term_postings "
            f"WHERE token IN ({marks}) AND field IN ({','.join(map(str, fields))}) "
            "GROUP BY token, field",
            tuple(tokens),
        )
    ]
    named: set[str] = set().union(*(ids for _, ids in posted))
    if not named:
        return {}
    named_count = len(named)
    inside, everyone = counts or (0, 0)
    if counts and len(named) > PROBE_MAX and everyone - inside < inside:
        in_scope = named
        if everyone > inside:  # SQLite tests every row, Python sees only those outside
            outside = run(f"SELECT id FROM memories WHERE ({scope_sql}) IS NOT 1", params)
            in_scope.difference_update(r[0] for r in outside)
    elif len(named) <= PROBE_MAX:  # CROSS JOIN: the named ids first, each row by its key
        in_scope = {
            r[0]
            for r in run(
                "SELECT memories.id FROM json_each(?) j CROSS JOIN memories "
                f"ON memories.id = j.value WHERE {scope_sql}",
                (json.dumps(sorted(named)), *params),
            )
        }
    else:
        in_scope = {r[0] for r in run(f"SELECT id FROM memories WHERE {scope_sql}", params)}
    in_scope.difference_update(r[0] for r in run(STALE_SQL, ()))
    every = in_scope is named and len(named) == named_count  # none named was left out
    out: dict[tuple[str, int], set[str]] = {}
    for key_, ids in posted:
        held = set(ids) if every else in_scope.intersection(ids)
        if held:
            out[key_] = held
    return out
