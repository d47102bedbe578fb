"""`memvet recall` without the ORM (store/recall_read.py): on one store of mixed memories (two
workspaces and global, superseded, retired, forgotten, disputed ones, rival values, a rule that
limits an answer, pending and reserved candidates, memories the index has not caught up with,
a row altered without the key) its JSON is the Store path's, byte for byte; it steps aside where
it cannot serve. That the command imports no ORM: tests/store/test_read_layer.py."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from datetime import timedelta

import pytest
from memvet.store import Edits, open_store
from memvet.store.read_layer import unreadable_seen
from memvet.store.recall import recall
from memvet.store.recall_read import RecallSource, recall_direct, stored_time
from store_internals import engine_of

from .conftest import draft

APP, OTHER = "/home/dana/src/app", "/home/dana/src/other"
QUESTIONS = [
    "which package manager do we use?",
    "what port does staging postgres listen on?",
    "can I run terraform apply locally?",
    "how do deploys work?",
    "which linter do we use?",
    "what is the cache host?",
    "where do the billing fixtures live?",
    "which queue broker runs the jobs?",
]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """One store, built once (approvals are the slow part); the questions only read it."""
    path = tmp_path_factory.mktemp("recall-read")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMVET_KEY_PROVIDER", "file")
        store = open_store(path, user="dana")

    def approve(statement: str, **kwargs):  # noqa: ANN202
        edits = kwargs.pop("edits", Edits())
        cid = store.admit(draft(statement, **kwargs)).candidate_id
        return store.approve(cid, actor="dana", edits=edits)

    approve("We use pnpm in this repo, never npm")
    approve("We use yarn for every project", workspace=None)  # overridden by the workspace's
    approve("The staging postgres listens on port 5433", kind="fact")
    approve("The staging postgres listens on port 5432", kind="fact")  # a rival value
    approve("Never run terraform apply from a local machine", kind="constraint")
    approve("Terraform changes go through Atlantis", kind="fact")
    old = approve("Deploys go through Heroku pipelines", kind="fact")
    approve("Deploys go through Fly.io machines", kind="fact", edits=Edits(supersede_id=old.id))
    store.retire(approve("Use flake8 for linting", kind="preference").id, actor="dana")
    approve("Use ruff for linting", kind="preference", workspace=OTHER)  # not APP's
    store.forget(approve("The cache host is redis-7.internal", kind="fact").id, actor="dana")
    store.dispute(approve("Jobs run on the celery broker", kind="fact").id, actor="dana")
    approve("Jobs run on the rq broker", kind="fact")
    store.import_memories(
        [
            draft(f"Module {i} of the billing service keeps fixtures in testdata/{i}", kind="fact")
            for i in range(30)
        ],
        actor="dana",
    )
    store.admit(draft("We might move deploys to Render", kind="fact"))  # pending
    held = store.admit(draft("The cache host is memcached-2", kind="fact")).candidate_id
    store.reserve(held, owner="ana", ttl=timedelta(days=1))
    with engine_of(store).begin() as conn:  # written since the last re-index: read whole
        conn.exec_driver_sql(
            "INSERT INTO term_stale SELECT id FROM memories ORDER BY id DESC LIMIT 4"
        )
    store.close()
    return path


@pytest.fixture
def env(home, monkeypatch):
    monkeypatch.setenv("MEMVET_HOME", str(home))
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    for name in ("LOGNAME", "USER"):
        monkeypatch.setenv(name, "dana")
    return home


def through_store(home, question: str, workspace: str | None, as_of=None, store=None):
    """The Store's path: recall.recall and the unreadable rows it skipped."""
    opened = store or open_store(home, user="dana", create=False)
    try:
        decision = recall(opened, question, workspace=workspace, as_of=as_of)
        return decision.with_unreadable(unreadable_seen(opened))
    finally:
        if store is None:
            opened.close()


def test_the_fast_path_answers_as_the_store_does(env):
    states = set()
    as_of = stored_time("2020-01-01 00:00:00")
    store = open_store(env, user="dana", create=False)
    try:
        for question in QUESTIONS:
            for workspace in (APP, OTHER, None):
                for at in (None, as_of):
                    fast = recall_direct(question, workspace=workspace, as_of=at)
                    slow = through_store(env, question, workspace, at, store=store)
                    assert fast is not None and fast == slow
                    assert json.dumps(fast.to_json()) == json.dumps(slow.to_json())
                    states.add((fast.state, fast.reason_code))
    finally:
        store.close()
    # the store holds every kind of answer the check must cover
    assert {s for s, _ in states} >= {"VERIFIED", "UNKNOWN", "VERIFIED_WITH_NEGATIVE_BOUNDARY"}
    assert {r for _, r in states} >= {"unresolved_conflict", "insufficient_evidence"}


def test_candidates_and_memories_decode_as_the_store_decodes_them(env):
    from memvet.store.candidates import QueueFilter
    from memvet.store.fast_keys import open_direct
    from memvet.store.records import MEMORY_STATUSES

    store = open_store(env, user="dana", create=False)
    conn, cipher = open_direct(str(env))
    try:
        source = RecallSource(conn, cipher, "dana")
        reader = store.reader_for(APP)
        want = store.list_candidates(
            reader, QueueFilter(statuses=("pending", "reserved", "stale")), limit=None
        )
        got = source.recalled_candidates(reader, store.now())
        assert got == want and any(c.lease for c in got)
        memories = store.list_memories(reader, statuses=MEMORY_STATUSES)
        by_id = {m.id: m for m in source.memories_by_id(None, [m.id for m in memories])}
        assert [by_id[m.id] for m in memories] == memories
    finally:
        conn.close()
        store.close()


def test_a_row_altered_without_the_key_is_left_out_and_named_by_both(env, tmp_path, monkeypatch):
    copy = tmp_path / "altered"
    copy.mkdir()
    (copy / "keys").symlink_to(env / "keys")
    with sqlite3.connect(env / "memvet.db") as a, sqlite3.connect(copy / "memvet.db") as b:
        a.backup(b)
        (victim,) = b.execute(
            "SELECT id FROM memories WHERE status = 'active' ORDER BY id LIMIT 1"
        ).fetchone()
        b.execute("UPDATE memories SET importance = 2, kind = 'constraint' WHERE id = ?", (victim,))
    monkeypatch.setenv("MEMVET_HOME", str(copy))
    question = "which package manager do we use?"
    fast = recall_direct(question, workspace=APP, as_of=None)
    assert fast is not None and fast.unreadable and victim in fast.unreadable["ids"]
    assert json.dumps(fast.to_json()) == json.dumps(through_store(copy, question, APP).to_json())


def test_it_steps_aside_where_only_the_store_can_answer(env, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMVET_HOME", str(tmp_path / "none"))
    assert recall_direct("anything?", workspace=APP, as_of=None) is None  # no store: exit 3 there
    copy = tmp_path / "old"
    copy.mkdir()
    (copy / "keys").symlink_to(env / "keys")
    with sqlite3.connect(env / "memvet.db") as a, sqlite3.connect(copy / "memvet.db") as b:
        a.backup(b)
        b.execute("UPDATE store_meta SET value = '1' WHERE key = 'schema_version'")
    monkeypatch.setenv("MEMVET_HOME", str(copy))
    assert recall_direct("anything?", workspace=APP, as_of=None) is None  # migrate first


def test_the_command_takes_the_stores_path_for_history_as_recorded(env, monkeypatch):
    """--recorded-as-of is the Store's (rebuilt from transitions): the command answers it, and
    its answer for now is the fast path's."""
    import contextlib
    import io

    from memvet.install.launcher import main

    def command(*extra: str) -> dict:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["recall", QUESTIONS[0], "--cwd", APP, "--json", *extra]) == 0
        return json.loads(out.getvalue())

    monkeypatch.setattr("memvet.store.workspace.resolve_workspace", lambda path: path)
    now = command()
    direct = recall_direct(QUESTIONS[0], workspace=APP, as_of=None)
    assert direct is not None and now == direct.to_json()
    assert now["state"] == "VERIFIED"
    calls = []
    monkeypatch.setattr("memvet.store.recall_read.recall_direct", lambda *a, **k: calls.append(a))
    then = command("--recorded-as-of", "2020-01-01T00:00:00Z")
    assert calls == [] and then["state"] == "UNKNOWN"  # nothing was recorded in 2020


def test_a_common_words_walk_finds_the_postings_the_join_finds(env, monkeypatch):
    """recall_index walks the memories newest first for a word many hold and joins the postings
    for a rare one: forced each way, with limits that cut the list (ties of recorded_at
    included: the 30 imported memories share one), each token's rows are the same, in order;
    and so is every recall answer."""
    from memvet.store import recall_index
    from memvet.store import term_index as ti
    from memvet.store import text_terms as tt
    from memvet.store.records import MEMORY_STATUSES

    store, cut = open_store(env, user="dana", create=False), set()
    try:
        for workspace in (APP, OTHER, None):
            scope = recall_index.IndexedScope(
                store, store.reader_for(workspace), "billing fixtures", []
            )
            held = store.list_memories(store.reader_for(workspace), statuses=MEMORY_STATUSES)
            words = {t for m in held for t in tt.terms(m.statement)} | {"nowhere"}
            tokens = [ti.token(scope.key, t) for t in sorted(words)]
            for limit in (1, 4, 7, 29, 10**6):
                rows = {}
                for walk_from in (0, 10**9):  # every token walked; none
                    monkeypatch.setattr(recall_index, "WALK_FROM", walk_from)
                    with store.ctx.read() as conn:
                        rows[walk_from] = list(scope._newest_holders(conn, tokens, limit))
                assert rows[0] == rows[10**9]
            holders = Counter(token for token, _mid, _at in rows[0])  # all of them
            cut.update(limit for limit in (4, 7, 29) if max(holders.values()) > limit)
    finally:
        store.close()
    assert cut == {4, 7, 29}  # some token has more holders than each limit: the limit decided
    answers = {}
    for walk_from in (0, 10**9):
        monkeypatch.setattr(recall_index, "WALK_FROM", walk_from)
        answers[walk_from] = [
            recall_direct(question, workspace=workspace, as_of=None)
            for question in QUESTIONS
            for workspace in (APP, OTHER, None)
        ]
    assert answers[0] == answers[10**9]
