"""`memvet queue approve` through the running daemon (issue 15): the same approvals, run once
through the daemon's socket and once directly on a copy of the same store, print the same
bytes, exit the same way and leave the same rows and audit; a daemon of another version, a
dead one, or one that went away after committing never gets an id approved twice.

Real stores, a real ContextServer on a real Unix socket; the command runs in this process
(memvet's own entry point), so the daemon route is told apart by the direct path being
unreachable (`_open` raises)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from memvet.daemon import approve_requests
from memvet.daemon.context_server import ContextServer
from memvet.install.launcher import main
from memvet.store import cli_approve, open_store
from memvet.store.candidates import QueueFilter
from memvet.store.vocabulary import CANDIDATE_STATUSES, MEMORY_STATUSES

WS = "/home/dana/src/app"


@pytest.fixture(autouse=True)
def dana(monkeypatch, tmp_path):
    """The CLI's user is dana, her key a file (a subprocess sees no test keyring), and the
    command runs where the workspace is."""
    for name in ("LOGNAME", "USER"):
        monkeypatch.setenv(name, "dana")
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    monkeypatch.delenv("MEMVET_APPROVE_DAEMON", raising=False)


def _home(tmp_path: Path, name: str, monkeypatch) -> Path:
    home = tmp_path / name
    monkeypatch.setenv("MEMVET_HOME", str(home))
    return home


def _admit(store, statement: str, workspace: str | None = WS) -> str:
    from memvet.store import CandidateDraft, Evidence, Scope

    draft = CandidateDraft(
        statement=statement,
        kind="fact",
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=workspace, agent="claude-code", session="s-1"),
        host="claude-code",
        confidence=0.9,
        reasons=("rule:test",),
        evidence=Evidence(
            path="/x.jsonl", line=len(statement), message_id=None, timestamp=None, excerpt=statement
        ),
    )
    return store.admit(draft, actor="test").candidate_id


def _seeded(home: Path) -> dict[str, str]:
    """A memory, and candidates for a plain approval, a conflict with it, an edit, a global
    one, one read from stdin, and one approved with --cwd."""
    store = open_store(user="dana")
    try:
        store.approve(_admit(store, "Module m7 is built with tool7"), actor="test")
        ids = {
            "plain": _admit(store, "We always use uv for Python packaging"),
            "rival": _admit(store, "Module m7 is built with hammer"),
            "edit": _admit(store, "Deploys go through heroku"),
            "global": _admit(store, "Format Python with ruff format"),
            "stdin": _admit(store, "The staging postgres listens on port 5433"),
            "cwd": _admit(store, "Never push straight to main on this repo"),
        }
        rejected = _admit(store, "Tabs are fine here")
        store.reject(rejected, actor="test")
        ids["rejected"] = rejected
    finally:
        store.close()
    return ids


def _copy_home(src: Path, dst: Path) -> None:
    dst.mkdir(mode=0o700)
    shutil.copytree(src / "keys", dst / "keys")
    with sqlite3.connect(src / "memvet.db") as a, sqlite3.connect(dst / "memvet.db") as b:
        a.backup(b)


def _run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO(stdin))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _state(home: Path) -> dict[str, object]:
    """What the approvals left: memories and candidates (decrypted, times left out) and the
    audit's actors and actions in order."""
    store = open_store(user="dana")
    try:
        reader = store.reader_for(None, all_scopes=True)
        memories = [
            {k: v for k, v in m.to_json().items() if not k.endswith(("_at", "_from", "_to"))}
            for m in store.list_memories(reader, statuses=tuple(MEMORY_STATUSES))
        ]
        cands = [
            (c.id, c.status, c.memory_id, c.decided_by, c.statement)
            for c in store.list_candidates(
                reader, QueueFilter(statuses=tuple(CANDIDATE_STATUSES)), limit=None
            )
        ]
    finally:
        store.close()
    with sqlite3.connect(home / "memvet.db") as conn:
        audit = conn.execute(
            "SELECT actor, action, entity_type, entity_id FROM audit_events ORDER BY seq"
        ).fetchall()
    return {
        "memories": sorted(memories, key=lambda m: m["id"]),
        "candidates": cands,
        "audit": audit,
    }


@contextlib.contextmanager
def _daemon(home: Path):
    store = open_store(user="dana")
    server = ContextServer(store, home / "run" / "daemon.sock").start()
    try:
        yield store
    finally:
        server.stop()
        store.close()


def _no_direct_path(patch) -> None:
    def refuse(*_a, **_k):
        raise AssertionError("the direct path ran")

    patch.setattr("memvet.store.cli_handlers._open", refuse)


def test_both_routes_print_the_same_and_leave_the_same_rows(tmp_path, monkeypatch):
    direct = tmp_path / "direct"
    ids = _seeded(_home(tmp_path, "daemon", monkeypatch))
    via = tmp_path / "daemon"
    _copy_home(via, direct)
    sub = tmp_path / "checkout" / "pkg"
    (tmp_path / "checkout" / ".git").mkdir(parents=True)
    sub.mkdir()
    runs = [
        (["queue", "approve", ids["plain"], "--json"], ""),
        (["queue", "approve", ids["plain"], "--json"], ""),  # already committed: exit 1
        (["queue", "approve", ids["rival"], "--json"], ""),  # a conflict: exit 1, names it
        (["queue", "approve", ids["rival"], "--keep-both"], ""),
        (["queue", "approve", ids["edit"], "--statement", "Deploys go through fly", "--json"], ""),
        (["queue", "approve", ids["global"], "c_nosuch", "--global"], ""),  # one not found
        (["queue", "approve", "-", "--json"], f"{ids['stdin']}  # from a script\n"),
        (["queue", "approve", ids["cwd"], "--cwd", str(sub), "--json"], ""),
        (["queue", "approve", ids["rejected"]], ""),
    ]
    answers = {}
    monkeypatch.setenv("MEMVET_HOME", str(via))
    with _daemon(via), pytest.MonkeyPatch.context() as patch:
        _no_direct_path(patch)
        answers["daemon"] = [_run(argv, stdin) for argv, stdin in runs]
    monkeypatch.setenv("MEMVET_HOME", str(direct))  # no daemon here: the command goes direct
    answers["direct"] = [_run(argv, stdin) for argv, stdin in runs]

    assert answers["daemon"] == answers["direct"]
    codes = [code for code, _, _ in answers["daemon"]]
    assert codes == [0, 1, 1, 0, 0, 1, 0, 0, 1]
    conflict = json.loads(answers["daemon"][2][1])["results"][0]
    assert conflict["code"] == "conflict" and conflict["conflicts"]
    assert json.loads(answers["daemon"][7][1])["results"][0]["status"] == "committed"
    assert _state(via) == _state(direct)
    memories = _state(via)["memories"]
    assert {m["scope"]["workspace"] for m in memories} == {WS, None, str(tmp_path / "checkout")}


def test_a_daemon_of_another_version_is_not_asked(tmp_path, monkeypatch):
    home = _home(tmp_path, "h", monkeypatch)
    cid = _seeded(home)["plain"]
    calls = []
    real = approve_requests.approve_all
    monkeypatch.setattr(
        approve_requests, "approve_all", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    monkeypatch.setattr(cli_approve, "installed_version", lambda: "0.0.0+other")
    with _daemon(home):
        code, out, _ = _run(["queue", "approve", cid, "--json"])
    assert code == 0 and json.loads(out)["results"][0]["status"] == "committed"
    assert calls == []  # refused before any work; the command approved it itself
    assert [a for _, a, _, e in _state(home)["audit"] if e == cid].count("candidate.committed") == 1


def test_a_daemon_serving_another_user_is_not_asked(tmp_path, monkeypatch):
    """The scope rule reads the store's user, the login name: a command run under another
    (LOGNAME set otherwise) is refused by the daemon and approves by itself."""
    home = _home(tmp_path, "h", monkeypatch)
    cid = _seeded(home)["plain"]
    options = {k: None for k in cli_approve.OPTION_KEYS}
    with _daemon(home):
        assert isinstance(cli_approve.via_daemon(["c_nosuch"], options, "x"), dict)  # dana's
        monkeypatch.setenv("LOGNAME", "erin")
        assert cli_approve.via_daemon([cid], options, "x") == cli_approve.NOT_SENT
        with pytest.MonkeyPatch.context() as patch:
            _no_direct_path(patch)
            with pytest.raises(AssertionError, match="the direct path ran"):
                _run(["queue", "approve", cid, "--json"])


def test_a_socket_left_by_a_dead_daemon_means_the_direct_path(tmp_path, monkeypatch):
    home = _home(tmp_path, "h", monkeypatch)
    cid = _seeded(home)["plain"]
    (home / "run").mkdir(mode=0o700, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(home / "run" / "daemon.sock"))  # bound, never listening: connect is refused
    try:
        assert cli_approve.via_daemon([cid], {}, "x") == cli_approve.NOT_SENT
        code, out, _ = _run(["queue", "approve", cid])
    finally:
        dead.close()
    assert code == 0 and out.startswith(f"{cid}: committed → m_")


class _GoneAfterWork:
    """A daemon that reads the request, then either does the work and dies before answering
    (`work_first`), or stays silent until the command gave up and only then does it."""

    def __init__(self, path: Path, work_first: bool) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        self.listener.bind(str(path))
        self.listener.listen(1)
        self.work_first, self.replies, self.gave_up = work_first, [], threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        client, _ = self.listener.accept()
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
        store = open_store(user="dana")
        try:
            if not self.work_first:
                self.gave_up.wait(10)
            self.replies.append(approve_requests.answer(store, b"".join(chunks)))
        finally:
            store.close()
            client.close()  # no answer sent either way

    def close(self) -> None:
        self.thread.join(10)
        self.listener.close()


def _committed_events(home: Path, cid: str) -> int:
    return [a for _, a, _, e in _state(home)["audit"] if e == cid].count("candidate.committed")


def test_a_daemon_gone_after_committing_is_reported_honestly(tmp_path, monkeypatch):
    """The daemon committed, then went away before answering: the command says committed (with
    the memory), exit 0, and the candidate is committed once."""
    home = _home(tmp_path, "h", monkeypatch)
    cid = _seeded(home)["plain"]
    fake = _GoneAfterWork(home / "run" / "daemon.sock", work_first=True)
    try:
        code, out, _ = _run(["queue", "approve", cid, "--json"])
    finally:
        fake.close()
    assert fake.replies and fake.replies[0].startswith(b"OK\n")  # the daemon did commit it
    (result,) = json.loads(out)["results"]
    assert code == 0 and result["status"] == "committed" and result["memory_id"] == "m_" + cid[2:]
    assert _committed_events(home, cid) == 1


def test_a_daemon_that_answers_too_late_approves_nothing_twice(tmp_path, monkeypatch):
    """The command stops waiting and approves by itself; the daemon's late attempt is then
    refused by the reservation (already committed): one memory, one commit."""
    home = _home(tmp_path, "h", monkeypatch)
    cid = _seeded(home)["plain"]
    monkeypatch.setattr(cli_approve, "REPLY_TIMEOUT_S", 0.3)
    fake = _GoneAfterWork(home / "run" / "daemon.sock", work_first=False)
    try:
        code, out, _ = _run(["queue", "approve", cid, "--json"])
        fake.gave_up.set()
    finally:
        fake.close()
    assert code == 0 and json.loads(out)["results"][0]["status"] == "committed"
    late = json.loads(fake.replies[0].partition(b"\n")[2])["results"][0]
    assert late["code"] == "already_decided"
    assert _committed_events(home, cid) == 1


def test_a_request_not_exactly_the_commands_changes_nothing(tmp_path, monkeypatch):
    home = _home(tmp_path, "h", monkeypatch)
    cid = _seeded(home)["plain"]
    version = cli_approve.installed_version().encode()
    options = {k: None for k in cli_approve.OPTION_KEYS}
    good = {"ids": [cid], "options": options, "actor": "cli pid 1 on x", "user": "dana"}
    bad = [
        b"MVA1\n{}",
        b"MVA2 " + version + b"\n" + json.dumps(good).encode(),
        b"MVA1 " + version + b"\nnot json",
        b"MVA1 " + version + b"\n" + json.dumps({**good, "ids": []}).encode(),
        b"MVA1 " + version + b"\n" + json.dumps({**good, "ids": [7]}).encode(),
        b"MVA1 " + version + b"\n" + json.dumps({**good, "options": {"kind": "fact"}}).encode(),
        b"MVA1 " + version + b"\n" + json.dumps({**good, "extra": 1}).encode(),
        b"MVA1 " + version + b"\n" + json.dumps({**good, "user": "erin"}).encode(),
    ]
    before = _state(home)
    store = open_store(user="dana")
    try:
        replies = [approve_requests.answer(store, request) for request in bad]
        ok = approve_requests.answer(store, b"MVA1 " + version + b"\n" + json.dumps(good).encode())
    finally:
        store.close()
    assert all(r.startswith(b"ERR ") for r in replies), replies
    assert ok.startswith(b"OK\n") and before != _state(home)  # the check can see a change


def test_the_daemon_route_never_imports_the_orm(tmp_path, monkeypatch):
    """The command's own process, through the daemon: no SQLAlchemy, SQLModel or pydantic;
    then the same process approving directly does import them (the check can see it)."""
    home = _home(tmp_path, "h", monkeypatch)
    ids = _seeded(home)
    script = """
import contextlib, io, json, os, sys
from memvet.install.launcher import main
seen = []
for cid, route in zip(sys.argv[1:], ("daemon", "off")):
    os.environ["MEMVET_APPROVE_DAEMON"] = route
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["queue", "approve", cid, "--json"])
    seen.append([code, out.getvalue(), sorted(m for m in sys.modules
                 if m.split(".")[0] in ("sqlalchemy", "sqlmodel", "pydantic"))])
print(json.dumps(seen))
"""
    with _daemon(home):
        done = subprocess.run(
            [sys.executable, "-c", script, ids["plain"], ids["edit"]],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
        )
    assert done.returncode == 0, done.stderr
    (code, out, orm), (direct_code, _, direct_orm) = json.loads(done.stdout)
    assert code == 0 and json.loads(out)["results"][0]["status"] == "committed"
    assert orm == []
    assert direct_code == 0 and {"sqlalchemy", "sqlmodel"} <= set(direct_orm)
