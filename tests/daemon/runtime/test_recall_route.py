"""`memvet recall` through the running daemon (issue 15, store/recall_route.py): the same
questions print the same bytes through the daemon's socket as in the command's own process; a
daemon of another version, another user's, a malformed request or a dead socket leave the
command to answer by itself; and when the daemon answers, the command imports none of the
recall modules, cryptography or dataclasses (the cost the route saves).

Real stores, a real ContextServer on a real Unix socket; the command runs in this process
(memvet's own entry point), the route told apart by the thread that ran the recall (the
server's client threads, or this one)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from memvet.daemon.context_server import ContextServer
from memvet.install.launcher import main
from memvet.store import CandidateDraft, Evidence, Scope, open_store, recall_read, recall_route
from memvet.store.daemon_ask import installed_version

WS = "/home/dana/src/app"
QUESTIONS = [
    ["which package manager do we use?", "--json"],
    ["which package manager do we use?"],  # the human listing
    ["what port does staging postgres listen on?", "--json"],  # a rival value: a conflict
    ["can I run terraform apply locally?", "--json"],  # a rule that limits the answer
    ["where do the billing fixtures live?", "--json", "--as-of", "2020-01-01T00:00:00Z"],
    ["what is the cache host?", "--json"],  # a pending candidate only
]
# What a command answered by the daemon must not load: the work the route saves (datetime:
# only a question given a time parses one).
HEAVY = (
    "memvet.store.recall",
    "memvet.store.recall_read",
    "memvet.store.recall_index",
    "memvet.store.recall_serving",
    "memvet.store.relevance",
    "memvet.store.records",
    "memvet.store.fast_keys",
    "memvet.store.redaction",
    "memvet.daemon.context_server",
    "cryptography",
    "dataclasses",
    "datetime",
    "sqlite3",
    "sqlalchemy",
    "sqlmodel",
    "pydantic",
    "keyring",
    "msgspec",
    "textual",
)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    for name in ("LOGNAME", "USER"):
        monkeypatch.setenv(name, "dana")
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")  # a subprocess sees no test keyring
    path = tmp_path / "home"
    monkeypatch.setenv("MEMVET_HOME", str(path))
    store = open_store(user="dana")
    try:

        def admit(statement: str, kind: str = "fact", workspace: str | None = WS) -> str:
            draft = CandidateDraft(
                statement=statement,
                kind=kind,
                source_type="explicit_user",
                scope=Scope(user="dana", workspace=workspace, agent="claude-code", session="s"),
                host="claude-code",
                confidence=0.9,
                reasons=("rule:test",),
                evidence=Evidence(
                    path="/x.jsonl", line=1, message_id=None, timestamp=None, excerpt=statement
                ),
            )
            return store.admit(draft, actor="test").candidate_id

        for statement, kind, workspace in (
            ("We use pnpm in this repo, never npm", "preference", WS),
            ("We use yarn for every project", "preference", None),
            ("The staging postgres listens on port 5433", "fact", WS),
            ("The staging postgres listens on port 5432", "fact", WS),
            ("Never run terraform apply from a local machine", "constraint", WS),
            ("Terraform changes go through Atlantis", "fact", WS),
            ("The billing fixtures live in testdata/billing", "fact", WS),
        ):
            store.approve(admit(statement, kind, workspace), actor="dana")
        admit("The cache host is memcached-2")  # pending
    finally:
        store.close()
    return path


@contextlib.contextmanager
def daemon(home: Path):
    store = open_store(user="dana")
    server = ContextServer(store, home / "run" / "daemon.sock").start()
    try:
        yield
    finally:
        server.stop()
        store.close()


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["recall", *argv, "--cwd", WS])
    return code, out.getvalue()


@pytest.fixture
def threads(monkeypatch) -> list[str]:
    """The name of the thread each sqlite3 recall (recall_read.RecallSource.recall, which the
    command's path and the daemon's kept connection both run) ran in."""
    seen: list[str] = []
    real = recall_read.RecallSource.recall

    def recording(*args, **kwargs):  # noqa: ANN202
        seen.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(recall_read.RecallSource, "recall", recording)
    return seen


def test_both_routes_print_the_same(home, threads):
    direct = [run(argv) for argv in QUESTIONS]
    assert threads == ["MainThread"] * len(QUESTIONS)
    threads.clear()
    with daemon(home):
        via = [run(argv) for argv in QUESTIONS]
    assert threads == ["memvet-context-client"] * len(QUESTIONS)  # none in the command
    assert via == direct
    documents = [
        json.loads(out) for (_, out), argv in zip(via, QUESTIONS, strict=True) if "--json" in argv
    ]
    assert documents[0]["state"] == "VERIFIED" and documents[1]["contradictions"]
    assert {d["state"] for d in documents} > {"VERIFIED"}  # the questions differ in kind


def request(version: str | None = None, **changed: object) -> bytes:
    """What via_daemon sends for the first question, with `changed` fields."""
    doc = {"query": QUESTIONS[0][0], "workspace": WS, "as_of": None, "user": "dana", **changed}
    head = b"MVR1 " + (version or installed_version()).encode()
    return head + b"\n" + json.dumps(doc).encode()


@pytest.mark.parametrize(
    "sent",
    [
        request(version="0.0.0+other"),
        request(user="erin"),  # another user's command
        request(extra=1),  # not what the command sends
        request(as_of="yesterday"),
        request(query=None),
        b"MVR1\n{}",
    ],
)
def test_a_request_the_daemon_must_not_answer_is_refused(home, sent):
    assert recall_route.answer(sent, str(home), "dana").startswith(b"ERR ")
    assert recall_route.answer(request(), str(home), "dana").startswith(b'OK\n{"state": ')


def test_a_refusing_or_dead_daemon_leaves_the_command_to_answer(home, threads, monkeypatch):
    expected = run(QUESTIONS[0])
    threads.clear()
    real = recall_route.answer
    monkeypatch.setattr(  # the daemon is another version
        recall_route, "answer", lambda *a: real(*a, version="0.0.0+other")
    )
    with daemon(home):
        assert run(QUESTIONS[0]) == expected
    assert threads == ["MainThread"]
    threads.clear()
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # a socket nobody accepts on
    dead.bind(str(home / "run" / "daemon.sock"))
    try:
        assert run(QUESTIONS[0]) == expected
    finally:
        dead.close()
    assert threads == ["MainThread"]


def test_a_command_the_daemon_answers_imports_no_recall_module(home, tmp_path):
    """One subprocess asks with the daemon up, then with it stopped (its socket removed): the
    first loads none of HEAVY, the second loads the recall modules (the check can see them)."""
    script = f"""
import contextlib, io, json, sys
from memvet.install.launcher import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    main(["recall", "which package manager do we use?", "--cwd", {WS!r}, "--json"])
print(json.dumps([out.getvalue()[:24], sorted(m for m in sys.modules
                                           if m in {HEAVY!r} or m.split(".")[0] in {HEAVY!r})]))
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def ask() -> tuple[str, list[str]]:
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        return tuple(json.loads(done.stdout))  # type: ignore[return-value]

    with daemon(home):
        answered, loaded = ask()
    assert answered.startswith('{"state": "VERIFIED"') and loaded == []
    answered, loaded = ask()  # no daemon: the command's own process does the work
    assert answered.startswith('{"state": "VERIFIED"')
    assert {"memvet.store.recall", "memvet.store.recall_read", "cryptography"} <= set(loaded)
