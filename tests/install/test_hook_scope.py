"""Issue 9: the hook serves only the session's project. Its stdin `cwd` is resolved with
realpath and must lie inside the workspace of the folder the host runs it in; when the
transcript already records a cwd, the payload's must be that workspace. Real `memvet hook`
processes, on the direct path and through the daemon's context server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from memvet.daemon.context_server import ContextServer

sys.path.insert(0, str(Path(__file__).parent))  # the helpers and fixture of test_hook.py
from test_hook import build_world, hook_log, prompt, run_hook, start  # noqa: E402

pytestmark = pytest.mark.slow
PATHS = {"direct": {"MEMVET_HOOK_DAEMON": "off"}, "daemon": {}}


@pytest.fixture(params=list(PATHS))
def world(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for world in build_world(tmp_path, monkeypatch):
        Path(world.a, "escape").symlink_to(world.b)
        world.env = PATHS[request.param]
        server = None
        if request.param == "daemon":
            sock = Path(os.environ["MEMVET_HOME"]) / "run" / "daemon.sock"
            server = ContextServer(world.store, sock).start()
        try:
            yield world
        finally:
            if server is not None:
                server.stop()


def transcript(tmp_path: Path, cwd: str) -> str:
    path = tmp_path / "t.jsonl"
    path.write_text(
        json.dumps({"type": "summary", "summary": "x"})
        + "\n"
        + json.dumps(
            {
                "type": "user",
                "cwd": cwd,
                "sessionId": "s-1",
                "message": {"role": "user", "content": "hi"},
            }
        )
        + "\n"
    )
    return str(path)


def test_a_payload_cwd_outside_the_project_gets_nothing(world):
    for outside in (world.b, str(Path(world.a) / "escape"), "../proj-b", "/"):
        res = run_hook("claude-code", "session-start", start(outside), env=world.env, cwd=world.a)
        assert (res.rc, res.out) == (0, ""), outside
        asked = run_hook(
            "codex",
            "user-prompt-submit",
            prompt(outside, "how does B deploy?"),
            env=world.env,
            cwd=world.a,
        )
        assert (asked.rc, asked.out) == (0, ""), outside
    assert "outcome=outside_project" in hook_log()
    inside = run_hook(
        "claude-code",
        "session-start",
        start(str(Path(world.a) / "src")),
        env=world.env,
        cwd=world.a,
    )
    assert "pytest -q" in inside.doc and "Heroku" not in inside.doc


def test_a_payload_cwd_that_is_not_the_transcripts_gets_nothing(world, tmp_path):
    recorded_a = transcript(tmp_path, world.a)
    lying = {**start(world.b), "transcript_path": recorded_a}
    res = run_hook("claude-code", "session-start", lying, env=world.env, cwd=world.b)
    assert (res.rc, res.out) == (0, "")
    assert "outcome=cwd_not_the_sessions" in hook_log()
    honest = {**start(world.a), "transcript_path": recorded_a}
    assert (
        "pytest -q"
        in run_hook("claude-code", "session-start", honest, env=world.env, cwd=world.a).doc
    )
    codex = tmp_path / "rollout.jsonl"
    codex.write_text(
        json.dumps({"type": "session_meta", "payload": {"id": "x", "cwd": world.a}}) + "\n"
    )
    lying = {**start(world.b), "transcript_path": str(codex)}
    assert run_hook("codex", "session-start", lying, env=world.env, cwd=world.b).out == ""
