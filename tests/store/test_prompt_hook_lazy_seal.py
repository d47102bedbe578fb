"""The no-daemon prompt hook checks row MACs only of the rows it reaches (issue 15): a tampered
row the pack would serve is still refused and named; one below what the pack serves neither
stops the hook nor changes its answer, and costs no check."""

from __future__ import annotations

import sqlite3

import pytest
from memvet.store import context_pack as cp
from memvet.store import fast_read as fr
from memvet.store import hook_reply as reply
from memvet.store import open_store
from memvet.store import term_index as ti
from store_internals import cipher_of

from .conftest import draft

APP = "/home/dana/src/app"
PROMPT = "fix the flaky billing module fixtures"
EVENT = "user-prompt-submit"
SCOPE = f"{fr.SCOPE_SQL} AND status IN ('active', 'disputed')"  # fast_read's prompt scope
COUNT = 60  # every one holds the prompt's words: one score level, far more than a pack holds
THIRD = "/home/dana/src/third"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMVET_KEY_PROVIDER", "file")
        store = open_store(tmp_path_factory.mktemp("lazy-seal"), user="dana")
    store.import_memories(
        [
            draft(f"Billing module {i} keeps its flaky fixtures in testdata", kind="fact")
            for i in range(COUNT)
        ],
        actor="dana",
    )
    store.import_memories(  # outside APP's scope: scope_holders must leave them out
        [draft(f"Billing module {i} keeps flaky fixtures", workspace=THIRD) for i in range(3)],
        actor="dana",
    )
    conn = sqlite3.connect(str(store.path), isolation_level=None)
    conn.execute("PRAGMA query_only = ON")
    yield store, conn, tmp_path_factory.mktemp("hook-home")
    conn.close()
    store.close()


def hook(world) -> tuple[str | None, list[cp.PackItem], fr.DirectSource]:
    """The hook's answer, what it chose, and the source (for `unreadable`)."""
    store, conn, home = world
    now = cp.stamp(store.now())
    source = fr.DirectSource(conn, cipher_of(store), "dana", APP)
    chosen = cp.choose(source.relevant(PROMPT, set(), now), cp.PROMPT_TOKENS, EVENT, now)
    source.fill(chosen)
    answer = reply.respond(
        fr.DirectSource(conn, cipher_of(store), "dana", APP),
        EVENT,
        {"prompt": PROMPT},
        str(home),
        now,
    )
    return answer, chosen, source


def ranked_ids(world) -> list[str]:
    store, conn, _ = world
    return [r[0] for r in conn.execute(f"SELECT id {fr.SCOPED_SQL}", hook(world)[2].params)]


def tampered(world, memory_id: str):
    """The row's kind (a sealed column) changed behind the store, set back afterwards."""
    store, _, _ = world
    write = sqlite3.connect(str(store.path), isolation_level=None)
    (kind,) = write.execute("SELECT kind FROM memories WHERE id = ?", (memory_id,)).fetchone()
    write.execute("UPDATE memories SET kind = 'constraint' WHERE id = ?", (memory_id,))
    return write, kind


def restore(write: sqlite3.Connection, memory_id: str, kind: str) -> None:
    write.execute("UPDATE memories SET kind = ? WHERE id = ?", (kind, memory_id))
    write.close()


def test_a_tampered_row_below_what_is_served_changes_nothing_and_is_not_checked(world):
    answer, chosen, source = hook(world)
    assert answer and 0 < len(chosen) < COUNT and not source.unreadable
    served = {item.id for item in chosen}
    last = ranked_ids(world)[-1]
    assert last not in served
    write, kind = tampered(world, last)
    try:
        after, chosen_after, source_after = hook(world)
        assert after == answer
        assert [i.id for i in chosen_after] == [i.id for i in chosen]
        assert source_after.unreadable == []  # never reached, never checked
    finally:
        restore(write, last, kind)


def test_a_tampered_row_the_pack_would_serve_is_refused_and_named(world):
    answer, chosen, _ = hook(world)
    first = chosen[0]
    assert first.statement in answer
    write, kind = tampered(world, first.id)
    try:
        after, chosen_after, source_after = hook(world)
        assert source_after.unreadable == [first.id]
        assert first.id not in {i.id for i in chosen_after}
        assert after and first.statement not in after
        # the rest keep their order: the next row takes the refused one's place
        assert [i.id for i in chosen_after][: len(chosen) - 1] == [i.id for i in chosen][1:]
    finally:
        restore(write, first.id, kind)
    assert hook(world)[0] == answer


def joined_holders(conn, key: bytes, terms: list[str], params: tuple) -> dict[str, set[str]]:
    """The postings joined with the scope in one SQL query: what scope_holders must return."""
    out: dict[str, set[str]] = {}
    for term in terms:
        found = {
            r[0]
            for r in conn.execute(
                f"SELECT p.memory_id FROM term_postings p JOIN memories ON memories.id = "
                f"p.memory_id WHERE p.token = ? AND p.field = {ti.STATEMENT} AND {SCOPE} "
                f"AND p.memory_id NOT IN (SELECT memory_id FROM term_stale)",
                (ti.token(key, term), *params),
            )
        }
        if found:
            out[term] = found
    return out


@pytest.mark.parametrize("probe_max", [0, ti.PROBE_MAX])  # read the scope once / look ids up
def test_scope_holders_are_the_postings_joined_with_the_scope(world, monkeypatch, probe_max):
    """Each way of checking the scope gives the join's holders: id lookups, the scope read,
    and, given the counts, the ids outside a scope that holds most memories."""
    store, conn, _ = world
    monkeypatch.setattr(ti, "PROBE_MAX", probe_max)
    key = cipher_of(store).term_key
    terms = ["bill", "fixtur", "flaky", "testdata", "7", "nowhere"]
    everyone = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    found, most = {}, {}
    for workspace in (APP, THIRD, "/home/dana/src/other"):
        params = fr.DirectSource(conn, cipher_of(store), "dana", workspace).params
        want = found[workspace] = joined_holders(conn, key, terms, params)
        assert ti.scope_holders(conn, key, terms, SCOPE, params) == want
        (inside,) = conn.execute(f"SELECT count(*) FROM memories WHERE {SCOPE}", params).fetchone()
        assert ti.scope_holders(conn, key, terms, SCOPE, params, (inside, everyone)) == want
        most[workspace] = inside * 2 > everyone
    assert most == {APP: True, THIRD: False, "/home/dana/src/other": False}
    assert len(found[APP]["bill"]) == COUNT and len(found[APP]["7"]) == 1  # common and rare
    assert len(found[THIRD]["bill"]) == 3 and "7" not in found[THIRD]
    assert "nowhere" not in found[APP] and found["/home/dana/src/other"] == {}


def test_a_scope_holding_every_memory_is_not_read(tmp_path, monkeypatch):
    """One workspace and nothing else: the counts say so, and the holders come from the postings
    alone, the same as the join's."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    monkeypatch.setattr(ti, "PROBE_MAX", 0)
    store = open_store(tmp_path, user="dana")
    try:
        store.import_memories(
            [draft(f"Billing module {i} keeps flaky fixtures") for i in range(5)], actor="dana"
        )
        conn = sqlite3.connect(str(store.path), isolation_level=None)
        params = fr.DirectSource(conn, cipher_of(store), "dana", APP).params
        key, terms = cipher_of(store).term_key, ["bill", "flaky", "3", "nowhere"]
        queries: list[str] = []

        def run(sql: str, args: tuple) -> list[tuple]:
            queries.append(sql)
            return conn.execute(sql, args).fetchall()

        got = ti.scope_postings(run, key, terms, SCOPE, params, (ti.STATEMENT,), counts=(5, 5))
        want = joined_holders(conn, key, terms, params)
        assert {term: ids for (term, _), ids in got.items()} == want
        assert len(want["bill"]) == 5 and len(want["3"]) == 1
        assert not [q for q in queries if "FROM memories" in q]  # the scope was never read
        conn.close()
    finally:
        store.close()
