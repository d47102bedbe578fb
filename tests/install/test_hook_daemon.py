"""The hook with the daemon's context server running (started here, in-process, as the daemon
starts it): the same context as the direct path, fresh after every change, user-only socket."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from memvet.daemon.context_server import ContextServer
from memvet.store import CandidateDraft, Edits, Scope

sys.path.insert(0, str(Path(__file__).parent))  # the helpers and fixture of test_hook.py
from test_hook import build_world, hook_log, prompt, run_hook, start  # noqa: E402

pytestmark = pytest.mark.slow
DIRECT = {"MEMVET_HOOK_DAEMON": "off"}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from build_world(tmp_path, monkeypatch)


@pytest.fixture
def server(world):
    sock = Path(os.environ["MEMVET_HOME"]) / "run" / "daemon.sock"
    srv = ContextServer(world.store, sock).start()
    yield srv
    srv.stop()


def test_daemon_and_direct_paths_give_the_same_context(world, server):
    world.store.dispute(world.ids.beta, actor="test")
    for host in ("claude-code", "codex"):
        for cwd in (world.a, world.b, "/"):
            via_daemon = run_hook(host, "session-start", start(cwd, "d"))
            direct = run_hook(host, "session-start", start(cwd, "x"), env=DIRECT)
            assert via_daemon.out == direct.out and via_daemon.doc
    text = "is Docker fine, and how do I run the tests with pytest?"
    assert (
        run_hook("codex", "user-prompt-submit", prompt(world.a, text, "p1")).out
        == run_hook("codex", "user-prompt-submit", prompt(world.a, text, "p2"), env=DIRECT).out
    )
    log = hook_log()
    assert "path=daemon outcome=context" in log and "path=direct outcome=context" in log


def test_without_cwd_in_the_input_the_hooks_own_folder_decides(world, server):
    payload = {"session_id": "c", "hook_event_name": "SessionStart", "source": "startup"}
    outs = []
    for env in ({}, DIRECT):
        done = subprocess.run(
            [sys.executable, "-m", "memvet.install.launcher", "hook", "codex", "session-start"],
            input=json.dumps(payload).encode(),
            capture_output=True,
            cwd=Path(world.a) / "src",
            env={**os.environ, **env},
            timeout=30,
        )
        outs.append(done.stdout)
    assert outs[0] == outs[1] and b"pytest -q" in outs[0]  # A's, not the daemon's own folder
    assert hook_log().splitlines()[-2].split()[3] == "path=daemon"


def test_the_socket_is_for_this_user_only(server):
    assert server.socket_path.stat().st_mode & 0o777 == 0o600
    assert server.socket_path.parent.stat().st_mode & 0o777 == 0o700


def test_changes_reach_the_next_hook_without_a_restart(world, server):
    before = run_hook("claude-code", "session-start", start(world.a)).doc
    assert "Kubernetes" not in before
    world.add("Production runs on Kubernetes", Path(world.a))  # no invalidate(): data_version
    assert "Kubernetes" in run_hook("claude-code", "session-start", start(world.a)).doc
    world.store.forget(world.ids.docker, actor="test")
    server.invalidate()
    time.sleep(0.2)  # the refresher rebuilds in the background; the answer never waits stale
    after = run_hook("claude-code", "session-start", start(world.a)).doc
    assert "Docker" not in after and "Kubernetes" in after


def test_future_and_ended_memories_are_left_out_on_both_paths(world, server):
    now = world.store.now()
    for statement, edits in (
        ("Staging moves to Fly next month", Edits(valid_from=now + timedelta(days=9))),
        ("The old staging host was vm-7", Edits(valid_to=now - timedelta(days=1))),
    ):
        draft = CandidateDraft(
            statement=statement,
            kind="fact",
            source_type="operator",
            scope=Scope(user=world.store.user, workspace=world.a),
        )
        world.store.approve(world.store.admit(draft).candidate_id, actor="t", edits=edits)
    for env in ({}, DIRECT):
        doc = run_hook("claude-code", "session-start", start(world.a), env=env).doc
        assert "Fly" not in doc and "vm-7" not in doc and "Docker" in doc


def test_a_second_server_refuses_and_a_stale_socket_is_replaced(world, server):
    with pytest.raises(RuntimeError):
        ContextServer(world.store, server.socket_path).start()
    server.stop()
    assert not server.socket_path.exists()
    assert "Docker" in run_hook("claude-code", "session-start", start(world.a)).doc  # direct
    server.socket_path.write_text("")  # what a killed daemon leaves behind
    again = ContextServer(world.store, server.socket_path).start()
    try:
        assert "Docker" in run_hook("claude-code", "session-start", start(world.a)).doc
        assert hook_log().splitlines()[-1].split()[3] == "path=daemon"
    finally:
        again.stop()


PROBE = """
import sys
before = set(sys.modules)
from memvet.install.launcher import main
main(["hook", "claude-code", sys.argv[1]])
sys.stderr.write(" ".join(sorted(set(sys.modules) - before)))
"""


def _imports(
    world, env: dict[str, str], event: str = "session-start", payload: dict | None = None
) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, event],
        input=json.dumps(payload or start(world.a)).encode(),
        capture_output=True,
        env={**os.environ, **env},
        timeout=30,
        cwd=world.a,
    )  # where the hosts run hooks: the session's folder
    assert b"Docker" in done.stdout
    return set(done.stderr.decode().split())


def test_the_daemon_path_imports_only_the_standard_library(world, server):
    loaded = _imports(world, {})
    registry = {
        "memvet.store",
        "memvet.store.hosts",
    }  # the lazy package and the host names, plain data
    assert not {
        m
        for m in loaded - registry
        if m.startswith(("memvet.store", "cryptography", "sqlite3", "json", "socket", "typing"))
    }
    assert "_socket" in loaded


def test_the_direct_path_skips_sqlalchemy_and_the_store_records(world):
    loaded = _imports(world, DIRECT)
    assert "memvet.store.fast_read" in loaded and "sqlite3" in loaded
    assert not {m for m in loaded if m.startswith(("sqlalchemy", "sqlmodel", "pydantic"))}
    assert not {"memvet.store.records", "memvet.store.store", "keyring"} & loaded
    # the stored text's redaction version is read without loading the redactor and its patterns
    assert "memvet.store.redaction_version" in loaded
    assert not {m for m in loaded if m.startswith("memvet.store.redaction.")}


def test_the_direct_path_reads_plain_vocabulary_not_the_enums(world):
    """Issue 15: creating the StrEnum classes (store/vocabulary.py) costs the no-daemon hook
    milliseconds it has no use for."""
    asked = prompt(world.a, "containerise the api with Docker", "p-imports")
    for event, payload in (("session-start", start(world.a)), ("user-prompt-submit", asked)):
        loaded = _imports(world, DIRECT, event, payload)
        assert "memvet.store.vocabulary_values" in loaded
        assert "memvet.store.vocabulary" not in loaded


def test_a_hook_that_hangs_is_cut_at_the_deadline(world):
    proc = subprocess.Popen(
        [sys.executable, "-m", "memvet.install.launcher", "hook", "codex", "session-start"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    started = time.monotonic()
    try:
        proc.wait(timeout=20)  # stdin stays open: the read never ends
    finally:
        proc.stdin.close()
    assert proc.returncode == 0 and proc.stdout.read() == b"" and proc.stderr.read() == b""
    assert time.monotonic() - started < 10
    assert "outcome=deadline" in hook_log()
