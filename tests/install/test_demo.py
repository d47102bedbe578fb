"""`memvet demo`: the bundled story ingested by the real daemon into a throwaway store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from memvet.install import demo

SHOWS = (
    "correction: would supersede",
    "duplicate: said in 2 sessions (Claude Code and Codex)",
    "conflict: disagrees with active",
    "secret: a pasted credential was redacted",
    "preference",
)


def test_demo_environment_points_only_into_its_folder(tmp_path):
    env = demo.demo_env(tmp_path)
    for key in ("MEMVET_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        assert Path(env[key]).is_relative_to(tmp_path)
    assert env["MEMVET_KEY_PROVIDER"] == "file"


def test_demo_transcripts_cover_both_hosts_and_both_halves():
    sessions = demo.demo_sessions()
    assert {s["host"] for s in sessions} == {"claude-code", "codex"}
    assert {s["phase"] for s in sessions} == {"earlier", "later"}
    root = files("memvet.assets").joinpath("demo")
    for s in sessions:
        lines = root.joinpath(*s["file"].split("/")).read_text(encoding="utf-8").splitlines()
        assert all(json.loads(line) for line in lines)


def test_environment_is_restored(monkeypatch):
    monkeypatch.setenv("MEMVET_HOME", "/nowhere/real")
    with demo.environment({"MEMVET_HOME": "/tmp/x", "MEMVET_DEMO_PROBE": "1"}):
        assert os.environ["MEMVET_HOME"] == "/tmp/x"
    assert os.environ["MEMVET_HOME"] == "/nowhere/real" and "MEMVET_DEMO_PROBE" not in os.environ


@pytest.mark.slow
def test_demo_no_tui_prints_the_interesting_queue_and_leaves_nothing(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", "demo", "--no-tui"],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    for needle in SHOWS:
        assert needle in done.stdout, f"{needle!r} missing from:\n{done.stdout}"
    assert "Wq8vN3r2LpZ7hTx4" not in done.stdout  # the pasted password never reaches the screen
    assert "[REDACTED:" in done.stdout
    assert not list(tmp_path.glob("memvet-demo-*")), "the throwaway folder was not removed"
    assert not Path(os.environ["MEMVET_HOME"]).exists(), "the user's store was touched"
    assert not Path(os.environ["CLAUDE_CONFIG_DIR"]).exists()
