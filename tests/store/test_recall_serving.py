"""The daemon's kept recall connection (store/recall_serving.py, issue 15): its answers are
recall_direct's on a fresh connection, from the first question to the ones its caches serve; a
commit (another connection's, or one during an answer) drops what it kept; a row that fails
authentication is named on every answer, not only the first."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest
from memvet.store import open_store, recall_read
from memvet.store.recall_read import recall_direct
from memvet.store.recall_serving import RecallServing

from .conftest import draft

APP = "/home/dana/src/app"
QUESTIONS = [
    "which package manager do we use?",
    "what port does staging postgres listen on?",
    "can I run terraform apply locally?",
    "where do the billing fixtures live?",
]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    for name in ("LOGNAME", "USER"):
        monkeypatch.setenv(name, "dana")
    path = tmp_path / "home"
    monkeypatch.setenv("MEMVET_HOME", str(path))
    store = open_store(path, user="dana")
    try:
        for statement, kind in (
            ("We use pnpm in this repo, never npm", "preference"),
            ("The staging postgres listens on port 5433", "fact"),
            ("The staging postgres listens on port 5432", "fact"),
            ("Never run terraform apply from a local machine", "constraint"),
            ("Terraform changes go through Atlantis", "fact"),
        ):
            approve(store, statement, kind)
        store.import_memories(
            [draft(f"Module {i} of billing keeps fixtures in testdata/{i}") for i in range(20)],
            actor="dana",
        )
    finally:
        store.close()
    return path


def approve(store, statement: str, kind: str = "fact") -> str:
    cid = store.admit(draft(statement, kind=kind)).candidate_id
    return store.approve(cid, actor="dana").id


def fresh(question: str, home) -> str:
    found = recall_direct(question, workspace=APP, as_of=None, home=str(home), user="dana")
    assert found is not None
    return json.dumps(found.to_json())


def kept(serving: RecallServing, question: str) -> str:
    found = serving.decision(question, APP, None, "dana")
    assert found is not None
    return json.dumps(found.to_json())


def test_kept_answers_are_the_fresh_ones_until_and_after_a_commit(home):
    serving = RecallServing(str(home))
    try:
        want = [fresh(q, home) for q in QUESTIONS]
        assert [kept(serving, q) for q in QUESTIONS] == want
        assert serving.counts and serving.memories  # the next answers come from them
        answers: list[str] = []
        other = threading.Thread(target=lambda: answers.extend(kept(serving, q) for q in QUESTIONS))
        other.start()  # the daemon answers each request in its own thread
        other.join()
        assert answers == want
        store = open_store(home, user="dana", create=False)
        try:  # another connection commits: a new rival value for the port
            new = approve(store, "The staging postgres listens on port 6543")
        finally:
            store.close()
        after = [fresh(q, home) for q in QUESTIONS]
        assert new in after[1] and new not in want[1]
        assert [kept(serving, q) for q in QUESTIONS] == after
    finally:
        serving.close()


def test_a_commit_during_an_answer_keeps_nothing_of_it(home, monkeypatch):
    serving = RecallServing(str(home))
    real = recall_read.RecallSource.recall

    def committing(self, *args):  # noqa: ANN001, ANN202
        decision = real(self, *args)
        store = open_store(home, user="dana", create=False)
        try:
            approve(store, "The staging postgres listens on port 7000")
        finally:
            store.close()
        return decision

    try:
        kept(serving, QUESTIONS[1])
        assert serving.counts and serving.memories
        monkeypatch.setattr(recall_read.RecallSource, "recall", committing)
        kept(serving, QUESTIONS[0])
        assert not serving.counts and not serving.memories
        monkeypatch.setattr(recall_read.RecallSource, "recall", real)
        assert kept(serving, QUESTIONS[1]) == fresh(QUESTIONS[1], home)
    finally:
        serving.close()


def test_a_row_that_fails_authentication_is_named_on_every_answer(home):
    with sqlite3.connect(home / "memvet.db") as conn:
        (victim,) = conn.execute(
            "SELECT id FROM memories WHERE status = 'active' ORDER BY id LIMIT 1"
        ).fetchone()
        conn.execute(
            "UPDATE memories SET importance = 2, kind = 'constraint' WHERE id = ?", (victim,)
        )
    conn.close()
    serving = RecallServing(str(home))
    try:
        for _ in range(2):  # the second round from the caches
            named = []
            for question in QUESTIONS:
                found = serving.decision(question, APP, None, "dana")
                assert found is not None and json.dumps(found.to_json()) == fresh(question, home)
                named.append(victim in (found.unreadable or {}).get("ids", ()))
            assert any(named)  # the questions that read it name it, each time
    finally:
        serving.close()
