"""Issue 9: one slow client must not hold the context socket. Each client is served on its own,
with a deadline well under the hook's 0.8 s; a real socket, a real store."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from memvet.daemon.context_server import CLIENT_DEADLINE_S, ContextServer
from memvet.store import Scope

from .conftest import WORKSPACE, make_draft

pytestmark = pytest.mark.slow

HOOK_TIMEOUT_S = 0.8  # install/hook_entry.py's DAEMON_TIMEOUT_S


def _request() -> bytes:
    body = json.dumps(
        {
            "session_id": "s-1",
            "hook_event_name": "SessionStart",
            "cwd": WORKSPACE,
            "source": "startup",
        }
    ).encode()
    return b"MVH1 claude-code session-start\n" + WORKSPACE.encode() + b"\n" + body


def _ask(path: Path) -> tuple[bytes, float]:
    started = time.monotonic()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(str(path))
        sock.sendall(_request())
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks), time.monotonic() - started


@pytest.fixture
def server(live_store, tmp_path: Path):
    draft = make_draft("We always use uv for Python packaging in this repo.")
    cid = live_store.admit(draft, actor="test").candidate_id
    live_store.approve(cid, actor="test")
    assert draft.scope == Scope(
        user="dana", workspace=WORKSPACE, agent="claude-code", session="s-1"
    )
    srv = ContextServer(live_store, tmp_path / "run" / "daemon.sock").start()
    _ask(srv.socket_path)  # the first pack is built: later answers are from the cache
    yield srv
    srv.stop()


def test_a_silent_client_does_not_delay_another_clients_answer(server) -> None:
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        silent.connect(str(server.socket_path))  # connects, sends nothing, keeps the line open
        time.sleep(0.05)  # the server has accepted it
        reply, took = _ask(server.socket_path)
        assert reply.startswith(b"OK\n") and b"uv for Python packaging" in reply
        # Answered while the silent client was still connected, not after the server gave up
        # on it: that one is closed only at its own deadline.
        silent.setblocking(False)
        with pytest.raises(BlockingIOError):
            silent.recv(1)  # nothing yet, and not closed (b"" would mean closed)
        assert took < CLIENT_DEADLINE_S
    finally:
        silent.close()


def test_a_silent_client_is_dropped_at_its_deadline(server) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.settimeout(5)
        silent.connect(str(server.socket_path))
        started = time.monotonic()
        assert silent.recv(1) == b""  # the server closed it
        waited = time.monotonic() - started
    assert CLIENT_DEADLINE_S * 0.8 <= waited < HOOK_TIMEOUT_S


def test_many_clients_at_once_all_get_an_answer(server) -> None:
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: _ask(server.socket_path)[0], range(8)))
    assert all(r.startswith(b"OK\n") and b"uv for Python" in r for r in replies)
