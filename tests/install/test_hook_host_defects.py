"""Hook defects only the real hosts showed: a Codex resume got the whole pack again, and the
hooks served reviewed memories inside the hosts' own memory jobs (Codex's consolidation agent
runs with its cwd in the memory folder; a background agent's payload carries an agent_id)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.store import CandidateDraft, Scope, open_store


def run_hook(host: str, event: str, payload: dict, cwd: Path, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", "hook", host, event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=30,
        cwd=cwd,
        env={**os.environ, "MEMVET_HOOK_DAEMON": "off", **env},
    )
    assert done.returncode == 0
    return done.stdout.decode()


def start(cwd: Path, session: str, source: str = "startup", **extra: str) -> dict:
    return {
        "session_id": session,
        "transcript_path": "/nonexistent.jsonl",
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": source,
        **extra,
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    ws = tmp_path / "proj"
    (ws / ".git").mkdir(parents=True)
    store = open_store()

    def add(statement: str, workspace: Path | None = ws) -> None:
        draft = CandidateDraft(
            statement=statement,
            source_type="explicit_user",
            kind="fact",
            host="codex",
            scope=Scope(user=store.user, workspace=workspace and str(workspace)),
        )
        store.approve(store.admit(draft).candidate_id, actor="test")

    add("The API listens on port 8443")
    add("Commit messages follow Conventional Commits", None)
    yield ws, add
    store.close()


@pytest.mark.parametrize("host", ["codex", "claude-code"])
def test_resume_sends_only_what_the_session_was_not_given(project, host):
    ws, add = project
    first = run_hook(host, "session-start", start(ws, "s-resume"), ws)
    assert "port 8443" in first and "Conventional Commits" in first
    assert run_hook(host, "session-start", start(ws, "s-resume", "resume"), ws) == ""
    add("Staging lives at staging.example.test")
    again = run_hook(host, "session-start", start(ws, "s-resume", "resume"), ws)
    assert "staging.example.test" in again and "port 8443" not in again
    # an unknown session resumed (memo pruned or another machine): the whole pack
    assert "port 8443" in run_hook(host, "session-start", start(ws, "s-new", "resume"), ws)


def test_hooks_print_nothing_in_codex_memory_folders(project, tmp_path):
    ws, _ = project
    codex_home = Path(os.environ["CODEX_HOME"])
    for folder in ("memories", "memories_v2", "memories_v2/rollout_summaries"):
        inside = codex_home / folder
        inside.mkdir(parents=True, exist_ok=True)
        assert run_hook("codex", "session-start", start(inside, "s-job"), inside) == ""
    assert "port 8443" in run_hook("codex", "session-start", start(ws, "s-job2"), ws)
    log = (Path(os.environ["MEMVET_HOME"]) / "logs" / "hook.log").read_text()
    assert "outcome=host_memory_job" in log


def test_hooks_print_nothing_in_claude_memory_folders(project):
    ws, _ = project
    memory = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-tmp-proj" / "memory"
    memory.mkdir(parents=True)
    assert run_hook("claude-code", "session-start", start(memory, "s-cc"), memory) == ""
    prompt = {
        "session_id": "s-cc",
        "cwd": str(memory),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "what port does the API listen on",
    }
    assert run_hook("claude-code", "user-prompt-submit", prompt, memory) == ""


@pytest.mark.parametrize("host", ["codex", "claude-code"])
def test_hooks_print_nothing_for_a_background_agent(project, host):
    ws, _ = project
    assert run_hook(host, "session-start", start(ws, "s-bg", agent_id="a1b2c3"), ws) == ""
    assert "port 8443" in run_hook(host, "session-start", start(ws, "s-fg"), ws)
