"""Issue 15: a context pack's build (every memory of a scope decrypted and indexed: seconds at
100k) runs on the refresher thread outside the server's lock. While one is in progress a hook
for that scope is answered from SQL (the no-daemon path's source), `memvet recall` and an
approval are answered, and what was committed meanwhile is in the pack once it is published.

A real store and a real ContextServer on a real Unix socket; the build is held at a gate (the
pack's constructor waits for the test) so "in progress" is a state, not a race."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest
from memvet.daemon import context_server as cs
from memvet.daemon.context_cache import CachedSource
from memvet.store import CandidateDraft, Edits, Scope, fast_read, open_store
from memvet.store.cli_approve import OPTION_KEYS
from memvet.store.daemon_ask import installed_version
from store_internals import cipher_of

APP = "/home/dana/src/app"


def _approve(store, statement: str) -> str:
    draft = CandidateDraft(
        statement=statement,
        kind="fact",
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=APP),
        host="claude-code",
        polarity="assert",
    )
    return store.approve(store.admit(draft).candidate_id, actor="dana", edits=Edits()).id


def _ask(path: Path, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)  # far past a hook's wait: a reply only while the gate is shut counts
        sock.connect(str(path))
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _hook(event: str, name: str, prompt: str = "") -> bytes:
    session = "s-2" if prompt else "s-1"  # a prompt of s-1 would be told nothing given again
    body = {"session_id": session, "hook_event_name": name, "cwd": APP, "source": "startup"}
    if prompt:
        body["prompt"] = prompt
    return f"MVH1 claude-code {event}\n{APP}\n".encode() + json.dumps(body).encode()


class Gate:
    """The pack's constructor waits here until `open()`: a build held in progress."""

    def __init__(self) -> None:
        self.entered, self.opened = threading.Event(), threading.Event()

    def pack_class(self) -> type[CachedSource]:
        gate = self

        class Held(CachedSource):
            def __init__(self, items) -> None:  # noqa: ANN001
                gate.entered.set()
                assert gate.opened.wait(20), "the test never opened the gate"
                super().__init__(items)

        return Held


@pytest.fixture
def held(monkeypatch, tmp_path):
    monkeypatch.setenv("LOGNAME", "dana")
    monkeypatch.setenv("USER", "dana")
    store = open_store(user="dana")
    first = _approve(store, "Tests run in docker compose")
    gate = Gate()
    monkeypatch.setattr(cs, "CachedSource", gate.pack_class())
    server = cs.ContextServer(store, Path(os.environ["MEMVET_HOME"]) / "run" / "daemon.sock")
    server.start()
    try:
        yield store, server, gate, first
    finally:
        gate.opened.set()
        server.stop()
        store.close()


def test_hooks_recall_and_approvals_are_answered_while_a_build_is_held(held):
    store, server, gate, first = held
    reply = _ask(server.socket_path, _hook("session-start", "SessionStart"))
    assert gate.entered.wait(5)  # the hook asked for the scope's pack: its build started
    assert not gate.opened.is_set()
    assert reply.startswith(b"OK\n") and b"Tests run in docker compose" in reply  # from SQL
    prompt = _ask(
        server.socket_path,
        _hook("user-prompt-submit", "UserPromptSubmit", "run the tests in docker"),
    )
    assert prompt.startswith(b"OK\n") and b"docker compose" in prompt

    recall = {"query": "how do tests run?", "workspace": APP, "as_of": None, "user": "dana"}
    version = installed_version().encode()
    answer = _ask(server.socket_path, b"MVR1 " + version + b"\n" + json.dumps(recall).encode())
    assert answer.startswith(b"OK\n") and first in answer.decode()

    pending = store.admit(
        CandidateDraft(
            statement="Staging deploys need the VPN",
            kind="fact",
            source_type="explicit_user",
            scope=Scope(user="dana", workspace=APP),
            host="claude-code",
        )
    ).candidate_id
    approval = {
        "ids": [pending],
        "options": dict.fromkeys(OPTION_KEYS),
        "actor": "dana",
        "user": "dana",
    }
    done = _ask(server.socket_path, b"MVA1 " + version + b"\n" + json.dumps(approval).encode())
    assert done.startswith(b"OK\n"), done[:200]
    assert not gate.opened.is_set()  # all of it answered with the build still held

    gate.opened.set()
    pack = server.source(APP)  # published, caught up with the approval made meanwhile
    statements = [item.statement for item in pack.ranked()]
    assert "Staging deploys need the VPN" in statements
    fresh = fast_read.DirectSource(server._conn, cipher_of(store), "dana", APP).all_items()
    assert [i.id for i in pack.ranked()] == [i.id for i in fresh]


def test_a_hook_waits_for_no_build_once_its_pack_is_there(held):
    store, server, gate, first = held
    gate.opened.set()
    pack = server.source(APP)
    assert server.pack(APP, timeout=0) is pack
    _approve(store, "We use pnpm, never npm")
    assert server.pack(APP, timeout=0) is pack  # an approval updates it, no build
    assert "We use pnpm, never npm" in [i.statement for i in pack.ranked()]


def test_a_build_that_fails_leaves_hooks_answered_from_sql(monkeypatch, held):
    store, server, gate, first = held

    class Broken(CachedSource):
        def __init__(self, items) -> None:  # noqa: ANN001
            raise RuntimeError("no pack")

    monkeypatch.setattr(cs, "CachedSource", Broken)
    reply = _ask(server.socket_path, _hook("session-start", "SessionStart"))
    assert reply.startswith(b"OK\n") and b"Tests run in docker compose" in reply
    assert server.pack(APP, timeout=2) is None
    with pytest.raises(RuntimeError):
        server.source(APP)
