"""The recall index (store/term_index.py, recall_index.py): recall over blind postings decides
exactly as recall over every decrypted memory; the index follows every write; no term is on
disk in plaintext; a wrong key or altered postings find nothing and never crash."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from memvet.store import Edits, open_store
from memvet.store import recall as recall_module
from memvet.store import term_index as ti
from memvet.store.candidates import QueueFilter
from memvet.store.recall import Recall, recall
from memvet.store.records import MEMORY_STATUSES
from store_internals import cipher_of, engine_of

from .conftest import draft

APP = "/home/dana/src/app"
SECRETIVE = ("zanzibarquux", "fenwickplover", "quillonmarsh")  # words found nowhere else


def full_recall(store, query: str, *, workspace: str | None, as_of=None):
    """recall as it was before the index: every memory in scope decrypted and scored."""
    reader = store.reader_for(workspace)
    memories = store.list_memories(reader, statuses=MEMORY_STATUSES)
    candidates = store.list_candidates(
        reader, QueueFilter(statuses=("pending", "reserved", "stale")), limit=None
    )
    return Recall(query, memories, candidates, now=store.now(), as_of=as_of).decide()


def approve(store, statement: str, **kwargs):
    return store.approve(
        store.admit(draft(statement, **kwargs)).candidate_id, actor="dana", edits=Edits()
    )


def stale_count(store) -> int:
    with store.ctx.read() as conn:
        return conn.exec_driver_sql("SELECT count(*) FROM term_stale").scalar_one()


def postings_of(store, memory_id: str) -> int:
    with store.ctx.read() as conn:
        return conn.exec_driver_sql(
            "SELECT count(*) FROM term_postings WHERE memory_id = ?", (memory_id,)
        ).scalar_one()


STATEMENTS = [
    ("We use pnpm in this repo, never npm", "preference"),
    ("The staging postgres listens on port 5433", "fact"),
    ("The staging postgres listens on port 5432", "fact"),
    ("Deploys go through Heroku pipelines", "fact"),
    ("Never run terraform apply from a local machine", "constraint"),
    ("Terraform changes go through Atlantis", "fact"),
    ("Tests run with pytest -q and need the docker compose stack up", "fact"),
    ("Use ruff for linting, not flake8", "preference"),
    ("The API is written in Go 1.22 with chi", "fact"),
    ("Logging goes through log/slog, never fmt.Println", "constraint"),
    ("Release notes live in docs/CHANGELOG.md", "fact"),
    ("The frontend builds with vite; do not add webpack", "constraint"),
]
QUESTIONS = [
    "which package manager do we use?",
    "what port does staging postgres listen on?",
    "how do deploys work?",
    "can I run terraform apply locally?",
    "how do I run tests?",
    "which linter?",
    "what language is the api in?",
    "how should I log?",
    "where are release notes?",
    "should I add webpack?",
    "what is the cache host?",
    "what database do we use?",
    "what did we decide about kubernetes?",
]


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """One store for the read-only checks (built once: approvals are the slow part)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMVET_KEY_PROVIDER", "file")
        store = open_store(tmp_path_factory.mktemp("filled"), user="dana")
    for i, (statement, kind) in enumerate(STATEMENTS):
        approve(store, statement, kind=kind, workspace=APP if i % 3 else None)
    # rarity is counted over the whole scope: filler the index must count
    store.import_memories(
        [
            draft(
                f"Module {i} of the billing service keeps its fixtures in testdata/{i}", kind="fact"
            )
            for i in range(40)
        ],
        actor="dana",
    )
    store.admit(draft("We might move deploys to Fly.io", kind="fact"))  # pending: counts too
    yield store
    store.close()


def test_index_recall_decides_exactly_as_reading_every_memory(filled, monkeypatch):
    for question in QUESTIONS:
        for workspace in (APP, None, "/home/dana/src/other"):
            assert recall(filled, question, workspace=workspace) == full_recall(
                filled, question, workspace=workspace
            ), question
    # and it read only what could answer: fewer memories than the scope holds
    from memvet.store.recall_index import IndexedScope

    scope = IndexedScope(filled, filled.reader_for(APP), "how do deploys work?", [])
    assert 0 < len(scope.memories) < 10 <= scope.corpus.n


def test_the_subject_bonus_counted_from_postings_reads_less_and_decides_the_same(
    filled, tmp_path, monkeypatch
):
    """The bound counts a subject's terms from its postings (its exact bonus) when few memories
    need the bonus to reach the floor, else takes the largest bonus: both read every memory that
    answers (recall decides as the full read); the exact one reads fewer where subjects share a
    question's word among others ("shard s3 payments" for a question about shard s3)."""
    from memvet.store import recall_index

    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    shards = open_store(tmp_path, user="dana")
    shards.import_memories(
        [
            draft(
                f"Shard s{i} payments webhook queue is drained by the nightly worker", kind="fact"
            )
            for i in range(40)
        ],
        actor="dana",
    )
    asked = [(filled, q) for q in QUESTIONS] + [
        (shards, "what is the webhook retry window for shard s3?"),
        (shards, "which worker drains shard s7?"),
    ]
    read = {}
    try:
        for probe_max in (ti.PROBE_MAX, 0):  # exact bonus; the largest bonus for every memory
            monkeypatch.setattr(ti, "PROBE_MAX", probe_max)
            for store, question in asked:
                assert recall(store, question, workspace=APP) == full_recall(
                    store, question, workspace=APP
                ), question
                scope = recall_index.IndexedScope(store, store.reader_for(APP), question, [])
                read[probe_max > 0, question] = {m.id for m in scope.memories}
    finally:
        shards.close()
    assert all(read[True, q] <= read[False, q] for _, q in asked)
    lifted = "what is the webhook retry window for shard s3?"
    assert len(read[True, lifted]) == 1 and len(read[False, lifted]) == 40


def test_index_recall_matches_on_the_gold_cases(tmp_path, monkeypatch):
    """A sample of the gold evaluation's cases (oracle mode): every recall it asks is checked
    against the full read."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "eval"))
    import harness

    original, asked = recall_module.recall, []

    def checked(store, query, *, workspace, as_of=None, recorded_as_of=None):
        got = original(
            store, query, workspace=workspace, as_of=as_of, recorded_as_of=recorded_as_of
        )
        # the harness asks as recorded (the full read): the store as it is now, both ways
        assert original(store, query, workspace=workspace, as_of=as_of) == full_recall(
            store, query, workspace=workspace, as_of=as_of
        ), query
        asked.append(query)
        return got

    monkeypatch.setattr(recall_module, "recall", checked)
    cases = harness.load_cases()[::25]
    harness.evaluate(cases, tmp_path, "oracle")
    assert len(asked) >= len(cases) // 2


def test_every_write_path_keeps_the_index_current(store):
    first = approve(store, "Deploys go through zanzibarquux pipelines", kind="fact")
    assert stale_count(store) == 0 and postings_of(store, first.id) > 0
    assert recall(store, "how do deploys work?", workspace=APP).memories[0].id == first.id
    # a correction supersedes it: the new text is found, the old one no longer answers
    cand = store.admit(draft("Deploys go through fenwickplover now", kind="fact")).candidate_id
    second = store.approve(cand, actor="dana", edits=Edits(supersede_id=first.id))
    out = recall(store, "how do deploys work?", workspace=APP)
    assert [m.id for m in out.memories] == [second.id]
    assert out == full_recall(store, "how do deploys work?", workspace=APP)
    store.forget(second.id, actor="dana")
    assert recall(store, "fenwickplover deploys?", workspace=APP) == full_recall(
        store, "fenwickplover deploys?", workspace=APP
    )
    store.restore(second.id, actor="dana")
    assert recall(store, "fenwickplover deploys?", workspace=APP).memories[0].id == second.id
    store.rotate_key()  # the data key stays: tokens stay valid
    assert recall(store, "fenwickplover deploys?", workspace=APP).memories[0].id == second.id
    assert stale_count(store) == 0


def test_text_written_behind_the_store_is_read_directly_until_reindexed(store):
    """A row whose text changes outside the Store's write path (triggers queue it) is read whole
    by recall and re-indexed by the next write."""
    m = approve(store, "The cache lives on quillonmarsh:6379", kind="fact")
    c = cipher_of(store)
    with engine_of(store).begin() as conn:
        conn.exec_driver_sql(
            "UPDATE memories SET statement_ct = ? WHERE id = ?",
            (
                c.encrypt("memories", "statement", m.id, "The queue lives on fenwickplover:5672"),
                m.id,
            ),
        )
    assert stale_count(store) == 1
    assert recall(store, "where is the fenwickplover queue?", workspace=APP) == full_recall(
        store, "where is the fenwickplover queue?", workspace=APP
    )
    approve(store, "Something else entirely about zanzibarquux", kind="fact")
    assert stale_count(store) == 0
    with store.ctx.read() as conn:
        tokens = {
            bytes(r[0])
            for r in conn.exec_driver_sql(
                "SELECT token FROM term_postings WHERE memory_id = ?", (m.id,)
            )
        }
    assert (
        ti.token(c.term_key, "fenwickplov") in tokens
        or ti.token(c.term_key, "fenwickplover") in tokens
    )
    assert ti.token(c.term_key, "quillonmarsh") not in tokens


def test_no_plaintext_term_is_on_disk(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("MEMVET_HOME", str(home))
    store = open_store(user="dana")
    try:
        for word in SECRETIVE:
            approve(store, f"The {word} service deploys through {word}-pipelines", kind="fact")
        assert recall(store, f"how does {SECRETIVE[0]} deploy?", workspace=APP).state != "UNKNOWN"
        with store.ctx.read() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM term_postings").scalar_one() > 10
        blobs = b"".join(p.read_bytes() for p in home.glob("memvet.db*"))
        assert len(blobs) > 10_000
        for word in SECRETIVE:
            for form in (word, word[:-1], word.upper(), word.capitalize()):
                assert form.encode() not in blobs, form
    finally:
        store.close()


def test_the_migration_indexes_existing_memories(filled):
    from memvet.store.migrations import MIGRATIONS

    m007_term_index = next(m for m in MIGRATIONS if m.__name__ == "m007_term_index")
    with engine_of(filled).begin() as conn:
        for name in ("term_postings_delete", "term_stale_update", "term_stale_insert"):
            conn.exec_driver_sql(f"DROP TRIGGER {name}")
        conn.exec_driver_sql("DROP INDEX ix_memories_pack_order")
        conn.exec_driver_sql("DROP INDEX ix_memories_in_force")
        conn.exec_driver_sql("DROP INDEX ix_memories_updated_at")
        conn.exec_driver_sql("DROP TABLE term_postings")
        conn.exec_driver_sql("DROP TABLE term_stale")
        m007_term_index(conn, cipher_of(filled))
    assert stale_count(filled) == 0
    for question in QUESTIONS[:5]:
        assert recall(filled, question, workspace=APP) == full_recall(
            filled, question, workspace=APP
        )


def test_a_wrong_key_finds_nothing_and_altered_postings_never_crash(filled):
    from memvet.store.recall_index import IndexedScope

    reader = filled.reader_for(APP)
    right = IndexedScope(filled, reader, "how do deploys work?", [])
    assert right.memories
    real = cipher_of(filled).term_key
    try:
        cipher_of(filled).term_key = bytes(32)  # another key: no token matches
        wrong = IndexedScope(filled, reader, "how do deploys work?", [])
        assert wrong.memories == [] and wrong.corpus.by_term == {}
    finally:
        cipher_of(filled).term_key = real
    with engine_of(filled).begin() as conn:  # postings altered without the key
        conn.exec_driver_sql(
            "INSERT INTO term_postings VALUES (?, 'm_nosuch', 0)", (ti.token(real, "deploy"),)
        )
        conn.exec_driver_sql(
            "INSERT INTO term_postings VALUES (x'00', ?, 0)", (right.memories[0].id,)
        )
        conn.exec_driver_sql(
            "DELETE FROM term_postings WHERE memory_id = ?", (right.memories[0].id,)
        )
    out = recall(filled, "how do deploys work?", workspace=APP)
    assert out.state in ("VERIFIED", "UNKNOWN", "VERIFIED_WITH_NEGATIVE_BOUNDARY")
    assert all(m.id != "m_nosuch" for m in out.memories)
    from memvet.store.term_reindex import index_all

    with engine_of(filled).begin() as conn:  # the module's store, whole again for the next test
        conn.exec_driver_sql("DELETE FROM term_postings")
        index_all(conn, cipher_of(filled))


PROMPTS = [
    "set up the deploy pipeline on heroku",
    "add a linter to CI",
    "write tests for the api",
    "containerise the api with Docker",
    "switch the logging to fmt",
    "fix the flaky billing module fixtures",
    "bump the go version",
    "nothing memvet was ever told about",
]


def test_the_direct_prompt_hook_over_the_index_picks_what_reading_every_memory_picks(filled):
    import sqlite3

    from memvet.store import context_pack as cp
    from memvet.store import fast_read as fr
    from memvet.store import prompt_match as pm

    now = cp.stamp(filled.now())
    conn = sqlite3.connect(str(filled.path), isolation_level=None)
    try:
        conn.execute("PRAGMA query_only = ON")
        for workspace in (APP, None):
            source = fr.DirectSource(conn, cipher_of(filled), "dana", workspace)
            index = source.index()
            for prompt in PROMPTS:
                for given in (set(), {index.items[0].id}):
                    want = [i.id for i in pm.relevant(index, prompt, given, now)]
                    got = [i.id for i in source.relevant(prompt, given, now)]
                    assert got == want, prompt
            assert any(source.relevant(p, set(), now) for p in PROMPTS)
        # a memory written since the last re-index is found all the same (read whole)
        with engine_of(filled).begin() as write:
            write.exec_driver_sql("INSERT INTO term_stale SELECT id FROM memories LIMIT 3")
        source = fr.DirectSource(conn, cipher_of(filled), "dana", APP)
        for prompt in PROMPTS:
            assert [i.id for i in source.relevant(prompt, set(), now)] == [
                i.id for i in pm.relevant(source.index(), prompt, set(), now)
            ]
    finally:
        conn.close()
        with engine_of(filled).begin() as write:
            write.exec_driver_sql("DELETE FROM term_stale")


def test_the_session_start_reads_come_from_indexes(filled):
    """The pack's first page and the footer's count are read in index order: no sort, no table
    scan over the scope (the index's tier expression is fast_read's, letter for letter)."""
    from memvet.store import fast_read as fr
    from memvet.store.migrations import PACK_TIER_SQL

    assert PACK_TIER_SQL == fr.TIER_SQL
    params = (
        cipher_of(filled).blind_index("user", "dana"),
        cipher_of(filled).blind_index("workspace", APP),
    )
    with filled.ctx.read() as conn:
        page = " ".join(
            r[-1]
            for r in conn.exec_driver_sql(
                f"EXPLAIN QUERY PLAN SELECT {fr.COLUMNS} {fr.SCOPED_SQL} LIMIT {fr.FIRST_PAGE}",
                params,
            )
        )
        count = " ".join(
            r[-1]
            for r in conn.exec_driver_sql(
                f"EXPLAIN QUERY PLAN SELECT count(*) FROM memories WHERE {fr.SCOPE_SQL} AND "
                f"status = 'active' AND {fr.IN_FORCE_SQL}",
                (*params, "x", "x", "x"),
            )
        )
    assert "ix_memories_pack_order" in page and "TEMP B-TREE" not in page, page
    assert "COVERING INDEX ix_memories_in_force" in count, count
