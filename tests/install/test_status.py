"""`memvet status` and `memvet doctor` over real host files, pid files and stores."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from memvet.store import open_store


def checks(result) -> dict[str, dict]:
    return {c["name"]: c for c in result.json()["checks"]}


@pytest.fixture
def file_key(monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")


def test_a_missing_store_is_reported_not_created(memvet):
    status = memvet("status", "--json")
    assert status.returncode == 0
    doc = status.json()
    assert doc["store"]["exists"] is False
    assert not Path(doc["store"]["path"]).exists()
    doctor = memvet("doctor", "--json")
    assert doctor.returncode == 0 and doctor.json()["ok"] is True
    store = checks(doctor)["store"]
    assert store["level"] == "warn" and "memvet propose" in store["fix"]
    human = memvet("doctor")
    assert "warn  no store yet" in human.stdout and "fix:" in human.stdout


def test_store_key_and_queue_are_reported(memvet, file_key):
    open_store().close()
    memvet("propose", "Use uv", "--kind", "preference")
    doc = memvet("status", "--json").json()
    assert doc["store"]["key_provider"] == "file" and doc["store"]["queue"] == {"pending": 1}
    found = checks(memvet("doctor", "--json"))
    assert found["key"]["level"] == "warn" and "file" in found["key"]["message"]
    assert found["queue"]["level"] == "ok"
    assert "memories" in memvet("status").stdout or "queue" in memvet("status").stdout


def test_an_unreadable_store_fails_the_doctor(memvet, file_key):
    open_store().close()
    (Path(os.environ["MEMVET_HOME"]) / "keys" / "kek-v1").unlink()
    assert memvet("status", "--json").returncode == 1  # it carries a fail check
    doctor = memvet("doctor", "--json")
    assert doctor.returncode == 1
    store = checks(doctor)["store"]
    assert store["level"] == "fail" and "key_missing" in store["message"]


def test_setup_wiring_is_seen_as_this_installation(memvet, claude_dir, codex_dir):
    assert memvet("setup", "claude-code").returncode == 0
    assert memvet("setup", "codex").returncode == 0
    doc = memvet("status", "--json").json()
    claude = doc["hosts"]["claude-code"]
    assert set(claude["hooks"]) == {"session-start", "user-prompt-submit"}
    assert all(h["exists"] and h["this_installation"] for h in claude["hooks"].values())
    assert claude["mcp"]["this_installation"] is True
    assert doc["hosts"]["codex"]["trust_reminder"]
    found = checks(memvet("doctor", "--json"))
    for host in ("claude-code", "codex"):
        for what in ("hook session-start", "hook user-prompt-submit", "MCP server"):
            assert found[f"{host}.{what}"]["level"] == "ok", found[f"{host}.{what}"]
    assert found["codex.trust"]["level"] == "warn" and "/hooks" in found["codex.trust"]["fix"]


def test_a_hook_that_runs_a_missing_program_fails(memvet, claude_dir):
    command = "/nowhere/bin/memvet hook claude-code session-start"
    settings = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": command}]}]}}
    (claude_dir / "settings.json").write_text(json.dumps(settings))
    doctor = memvet("doctor", "--json")
    assert doctor.returncode == 1
    found = checks(doctor)
    assert found["claude-code.hook session-start"]["level"] == "fail"
    assert "memvet setup claude-code" in found["claude-code.hook session-start"]["fix"]
    assert found["claude-code.hook user-prompt-submit"]["level"] == "warn"


def test_codex_hooks_switched_off_fail(memvet, codex_dir):
    assert memvet("setup", "codex").returncode == 0
    config = codex_dir / "config.toml"
    config.write_text(config.read_text() + "\n[features]\nhooks = false\n")
    found = checks(memvet("doctor", "--json"))
    assert found["codex.features"]["level"] == "fail"


def test_daemon_and_service_state(memvet):
    run = Path(os.environ["MEMVET_HOME"]) / "run"
    run.mkdir(parents=True)
    from memvet.daemon.lock import InstanceLock

    with InstanceLock(run):  # what a running daemon holds (this process stands in)
        doc = memvet("status", "--json").json()
    assert doc["daemon"]["running"] is True and doc["daemon"]["context_server"] is False
    (run / "daemon.pid").write_text("999999999\n")
    found = checks(memvet("doctor", "--json"))
    assert found["daemon"]["level"] == "warn" and "stale pid" in found["daemon"]["message"]
    assert found["service"]["level"] == "warn"
    unit = Path(memvet("status", "--json").json()["service"]["path"])
    unit.parent.mkdir(parents=True)
    unit.write_text("[Unit]\n")
    assert memvet("status", "--json").json()["service"]["installed"] is True


def test_recent_hook_failures_are_warned_about(memvet):
    logs = Path(os.environ["MEMVET_HOME"]) / "logs"
    logs.mkdir(parents=True)
    (logs / "hook.log").write_text(
        "2026-01-01T00:00:00Z codex session-start path=direct outcome=key_wrong ms=30\n"
        "2026-01-01T00:00:01Z codex session-start path=daemon outcome=context ms=3\n"
    )
    found = checks(memvet("doctor", "--json"))
    assert found["hook.log"]["level"] == "warn" and "key_wrong ×1" in found["hook.log"]["message"]


def test_status_exits_non_zero_when_it_prints_a_fail_line(memvet, claude_dir):
    command = "/nowhere/bin/memvet hook claude-code session-start"
    settings = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": command}]}]}}
    (claude_dir / "settings.json").write_text(json.dumps(settings))
    human = memvet("status")
    assert "fail: claude-code: hook session-start runs /nowhere/bin/memvet" in human.stdout
    assert human.returncode == 1
    assert memvet("status", "--json").returncode == 1
    (claude_dir / "settings.json").write_text("{}")
    healthy = memvet("status")
    assert "fail:" not in healthy.stdout and healthy.returncode == 0


STATUS_PROBE = """
import contextlib, io, sys
from memvet.install.launcher import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["status", "--json"])
setup = ("setup_common", "hook_settings", "host_setup", "json_edit", "codex", "claude_code")
print(code, *sorted(n for n in sys.modules if n.rpartition(".")[2] in setup or n == "dataclasses"))
"""


def test_status_reads_host_files_without_the_setup_machinery(isolated_env):
    """status needs how memvet names itself in host files (memvet_entries.py) and where they
    are (host_files.py), not the code that edits them (a third of its import was that)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", STATUS_PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"]  # the exit code, and none of the setup modules
