"""`memvet service …` through the CLI, with the platform forced and every systemctl/launchctl
call answered and recorded by the stand-in on PATH (tests/stubs/service_manager.py)."""

from __future__ import annotations

import json
import os
import plistlib
import sys
from pathlib import Path

import pytest

UNIT = "memvet-daemon.service"


@pytest.fixture
def recorder(tmp_path, service_manager):
    log = tmp_path / "commands.jsonl"

    def env(platform: str, replies: list[dict] | None = None) -> dict[str, str]:
        path = None
        if replies is not None:
            path = tmp_path / "replies.json"
            path.write_text(json.dumps(replies))
        return {"MEMVET_SERVICE_PLATFORM": platform, **service_manager(log, path)}

    def commands() -> list[list[str]]:
        if not log.exists():
            return []
        argvs = [json.loads(line)["argv"] for line in log.read_text().splitlines()]
        log.unlink()
        return argvs

    env.commands = commands
    return env


def unit_file(home: Path) -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user" / UNIT


def test_systemd_install_status_uninstall_in_subprocesses(memvet_process, recorder, home):
    env = recorder("systemd")
    result = memvet_process("service", "install", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert recorder.commands() == [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "--now", UNIT],
    ]
    report = result.json()
    assert report["platform"] == "systemd" and report["changed"] is True
    unit = unit_file(home)
    assert report["unit_path"] == str(unit)
    text = unit.read_text()
    assert f"ExecStart={sys.executable} -m memvet.install.launcher daemon run" in text
    assert f"Environment=MEMVET_HOME={os.environ['MEMVET_HOME']}" in text

    status = memvet_process("service", "status", "--json", env=env)
    assert status.returncode == 0
    assert status.json() == {
        "platform": "systemd",
        "installed": True,
        "unit_path": str(unit),
        "active": True,
        "detail": "active",
    }
    assert recorder.commands() == [["systemctl", "--user", "is-active", UNIT]]


def test_human_output_mentions_linger(memvet, recorder, home, monkeypatch):
    from memvet.install import systemd

    monkeypatch.setattr(systemd, "lingering", lambda user=None: False)  # whatever this machine says
    result = memvet("service", "install", env=recorder("systemd"))
    assert result.returncode == 0
    assert "loginctl enable-linger $USER" in result.stdout
    assert f"$ systemctl --user enable --now {UNIT}" in result.stdout


def test_uninstall_start_stop(memvet, recorder, home):
    env = recorder("systemd")
    assert memvet("service", "start", env=env).returncode == 1  # not installed yet
    memvet("service", "install", env=env)
    recorder.commands()
    assert memvet("service", "stop", env=env).returncode == 0
    assert memvet("service", "start", env=env).returncode == 0
    assert memvet("service", "uninstall", "--json", env=env).json()["changed"] is True
    assert recorder.commands() == [
        ["systemctl", "--user", "stop", UNIT],
        ["systemctl", "--user", "start", UNIT],
        ["systemctl", "--user", "disable", "--now", UNIT],
        ["systemctl", "--user", "daemon-reload"],
    ]
    assert not unit_file(home).exists()
    status = memvet("service", "status", "--json", env=env).json()
    assert status["installed"] is False and status["active"] is None


def test_failing_command_is_reported_with_stderr_and_no_unit_is_left(memvet, recorder, home):
    env = recorder(
        "systemd",
        [
            {
                "match": "enable",
                "returncode": 1,
                "stderr": "Failed to connect to bus: No medium found",
            }
        ],
    )
    result = memvet("service", "install", env=env)
    assert result.returncode == 1
    assert "Failed to connect to bus: No medium found" in result.stderr
    assert "systemctl --user enable --now" in result.stderr
    assert not unit_file(home).exists()
    as_json = memvet("service", "install", "--json", env=env)
    assert as_json.returncode == 1
    error = as_json.json()["error"]
    assert error["code"] == "service_command_failed" and "No medium found" in error["stderr"]


def test_launchd_install_and_status(memvet, recorder, home):
    env = recorder(
        "launchd",
        [{"match": "launchctl print", "returncode": 113, "stderr": "Could not find service"}],
    )
    result = memvet("service", "install", "--json", env=env)
    assert result.returncode == 0, result.stderr
    uid = os.getuid()
    plist = home / "Library" / "LaunchAgents" / "dev.memvet.daemon.plist"
    domain = result.json()["commands"][-1][2]
    assert domain in (f"gui/{uid}", f"user/{uid}")
    assert recorder.commands() == [
        ["launchctl", "print", f"{domain}/dev.memvet.daemon"],
        ["launchctl", "enable", f"{domain}/dev.memvet.daemon"],
        ["launchctl", "bootstrap", domain, str(plist)],
    ]
    data = plistlib.loads(plist.read_bytes())
    assert data["ProgramArguments"][0] == sys.executable
    assert data["EnvironmentVariables"] == {  # the host folders too (issue 10)
        key: os.environ[key] for key in ("MEMVET_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME")
    }
    status = memvet("service", "status", "--json", env=env).json()
    assert status == {
        "platform": "launchd",
        "installed": True,
        "unit_path": str(plist),
        "active": False,
        "detail": "not loaded",
    }


def test_no_service_manager(memvet, recorder):
    env = recorder("none")
    result = memvet("service", "install", "--json", env=env)
    assert result.returncode == 1 and result.json()["error"]["code"] == "no_service_manager"
    status = memvet("service", "status", "--json", env=env)
    assert status.returncode == 0
    assert status.json()["platform"] == "none" and status.json()["installed"] is False
    assert recorder.commands() == []


def test_a_bad_platform_override_is_a_usage_error(memvet):
    bad = memvet("service", "status", env={"MEMVET_SERVICE_PLATFORM": "upstart"})
    assert bad.returncode == 2
