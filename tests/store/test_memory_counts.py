"""The trigger-kept counts (store/memory_counts.py, migration m012) against COUNT(*) over the
rows: after every write path, after a migration of an older store, after a crash mid-transaction;
and the direct hook's footer count against the COUNT it replaced, at several instants."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import timedelta

import sqlalchemy as sa
from memvet.store import Edits, open_store
from memvet.store import context_pack as cp
from memvet.store import fast_read as fr
from memvet.store import memory_counts as mc
from memvet.store.schema import current_version
from store_internals import cipher_of, engine_of

from .conftest import draft

A, B = "/home/dana/src/app", "/home/dana/src/other"
SCOPES = [("dana", A), ("dana", B), ("dana", None), ("eve", A)]


def kept(conn: sqlite3.Connection) -> tuple[dict, dict]:
    memories = {
        tuple(r[:4]): r[4] for r in conn.execute("SELECT * FROM memory_counts WHERE n != 0")
    }
    terms = {(bytes(r[0]), r[1]): r[2] for r in conn.execute("SELECT * FROM term_counts WHERE n")}
    return memories, terms


def counted(conn: sqlite3.Connection) -> tuple[dict, dict]:
    """What the counts must say: COUNT(*) over the rows themselves."""
    memories = {
        tuple(r[:4]): r[4]
        for r in conn.execute(
            "SELECT user_bidx, ifnull(workspace_bidx, ''), status, "
            "valid_to IS NULL AND expires_at IS NULL, count(*) FROM memories GROUP BY 1, 2, 3, 4"
        )
    }
    terms = {
        (bytes(r[0]), r[1]): r[2]
        for r in conn.execute("SELECT token, field, count(*) FROM term_postings GROUP BY 1, 2")
    }
    return memories, terms


def footer_by_count(source: fr.DirectSource, now: str) -> int:
    """The footer's count as it was read before the counts: one COUNT over the scope."""
    sql = (
        f"SELECT count(*) FROM memories WHERE {fr.SCOPE_SQL} AND status = 'active' "
        f"AND {fr.IN_FORCE_SQL}"
    )
    return source.conn.execute(sql, (*source.params, now, now, now)).fetchone()[0]


def check(store) -> None:  # noqa: ANN001
    conn = sqlite3.connect(str(store.path))
    try:
        want = counted(conn)
        assert kept(conn) == want
        assert sum(want[0].values()) == mc.everyone(conn)
        now = store.now()
        instants = [
            now - timedelta(days=400),
            now,
            now + timedelta(days=2),
            now + timedelta(days=400),
        ]
        for user, workspace in SCOPES:
            source = fr.DirectSource(conn, cipher_of(store), user, workspace)
            live = conn.execute(
                f"SELECT count(*) FROM memories WHERE {fr.SCOPE_SQL} AND status IN {fr.LIVE_IN}",
                source.params,
            ).fetchone()[0]
            assert mc.in_scope(conn, source.params, ("active", "disputed")) == live
            for at in instants:
                stamp = cp.stamp(at)
                assert source.count_active(stamp) == footer_by_count(source, stamp), (user, at)
    finally:
        conn.close()


def approve(store, statement: str, **kwargs):  # noqa: ANN001, ANN003
    edits = kwargs.pop("edits", Edits())
    return store.approve(
        store.admit(draft(statement, **kwargs)).candidate_id, actor="t", edits=edits
    )


def test_the_counts_follow_every_write_path(store, clock):
    check(store)  # empty
    first = approve(store, "Deploys go through Heroku pipelines", kind="fact")
    glob = approve(store, "Use ruff for linting, not flake8", workspace=None)
    other = approve(store, "The api is written in Go", kind="fact", workspace=B)
    approve(store, "Eve keeps her notes in org-mode", user="eve", kind="fact")
    ending = approve(
        store,
        "The freeze lasts until Friday",
        kind="fact",
        edits=Edits(valid_to=clock.now + timedelta(days=1)),
    )
    later = approve(
        store,
        "From next month the release train leaves on Tuesdays",
        kind="fact",
        edits=Edits(valid_from=clock.now + timedelta(days=30)),
    )
    check(store)
    cand = store.admit(draft("Deploys go through Fly.io now", kind="fact")).candidate_id
    store.approve(cand, actor="t", edits=Edits(supersede_id=first.id))  # supersede
    check(store)
    store.forget(glob.id, actor="t")
    store.false_write(other.id, actor="t")
    store.dispute(ending.id, actor="t")
    check(store)
    store.resolve_dispute(ending.id, actor="t")
    store.restore(glob.id, actor="t")
    store.retire(later.id, actor="t")
    check(store)
    store.import_memories(
        [draft(f"Module {i} keeps its fixtures in testdata/{i}", kind="fact") for i in range(30)]
        + [draft("Global rule: commit messages in English", workspace=None)],
        actor="operator",
    )
    check(store)
    clock.advance(days=3)
    assert store.retire_due_memories(clock.now) == 1  # the freeze ended
    check(store)
    with engine_of(store).begin() as conn:  # behind the store: a TTL, a move, a deletion
        conn.exec_driver_sql(
            "UPDATE memories SET expires_at = '2099-01-01 00:00:00.000000' WHERE id = ?",
            (glob.id,),
        )
        conn.exec_driver_sql(
            "UPDATE memories SET workspace_bidx = NULL WHERE id IN "
            "(SELECT id FROM memories WHERE status = 'active' LIMIT 3)"
        )
        conn.exec_driver_sql("DELETE FROM memory_transitions WHERE memory_id = ?", (later.id,))
        conn.exec_driver_sql("DELETE FROM memory_versions WHERE memory_id = ?", (later.id,))
        conn.exec_driver_sql("DELETE FROM memories WHERE id = ?", (later.id,))
    check(store)


def test_an_older_store_is_migrated_with_its_counts(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    home = tmp_path / "h"
    store = open_store(home, user="dana")
    for i in range(12):
        approve(store, f"Service {i} listens on port {8000 + i}", kind="fact", workspace=A)
    store.forget(approve(store, "Use tabs", workspace=None).id, actor="t")
    store.close()
    with sqlite3.connect(home / "memvet.db") as conn:  # the store as schema 11 left it
        for trigger in ("insert", "delete", "update"):
            conn.execute(f"DROP TRIGGER memory_counts_{trigger}")
            conn.execute(f"DROP TRIGGER term_counts_{trigger}")
        conn.execute("DROP INDEX ix_memories_bounded")
        conn.execute("DROP TABLE memory_counts")
        conn.execute("DROP TABLE term_counts")
        conn.execute("UPDATE store_meta SET value = '11' WHERE key = 'schema_version'")
    store = open_store(home, user="dana", schema="upgrade")
    try:
        assert current_version(engine_of(store)) == 12
        check(store)
        approve(store, "Service 99 listens on port 9999", kind="fact", workspace=A)
        check(store)
    finally:
        store.close()


CRASH = """
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("UPDATE memories SET status = 'retired'")
conn.execute("DELETE FROM term_postings WHERE field = 0")
print(conn.execute("SELECT count(*) FROM memory_counts WHERE status = 'retired' AND n > 0").fetchone()[0], flush=True)
os._exit(9)  # killed mid-transaction: nothing committed
"""


def test_a_crash_mid_transaction_leaves_the_counts_right(store):
    for i in range(6):
        approve(store, f"Worker {i} runs on queue q{i}", kind="fact")
    with sqlite3.connect(str(store.path)) as conn:
        before = kept(conn)
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(store.path)], capture_output=True, text=True
    )
    assert done.returncode == 9 and int(done.stdout) >= 1  # the triggers ran inside it
    with sqlite3.connect(str(store.path)) as conn:
        assert kept(conn) == before
    check(store)
    with engine_of(store).connect() as conn:  # and a rollback, in process
        trans = conn.begin()
        conn.execute(sa.text("UPDATE memories SET status = 'disputed'"))
        trans.rollback()
    check(store)
