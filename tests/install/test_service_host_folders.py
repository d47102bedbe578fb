"""The service daemon watches the host folders the user's hosts use: `service install` pins
CLAUDE_CONFIG_DIR and CODEX_HOME (as set, or as recorded by `memvet setup`) in the systemd unit
and the launchd plist; before, only MEMVET_HOME was pinned and such a daemon ingested nothing."""

from __future__ import annotations

import os
import plistlib
import subprocess
from pathlib import Path

import pytest
from memvet.install.launchd import Launchd
from memvet.install.systemd import Systemd


def ok(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(argv, 0, "", "")


def test_the_unit_pins_the_host_folders(home):
    Systemd(ok).install()
    text = (home / ".config" / "systemd" / "user" / "memvet-daemon.service").read_text()
    assert f"Environment=CLAUDE_CONFIG_DIR={os.environ['CLAUDE_CONFIG_DIR']}" in text
    assert f"Environment=CODEX_HOME={os.environ['CODEX_HOME']}" in text


def test_the_plist_pins_the_host_folders(home, tmp_path):
    plist = tmp_path / "agent.plist"
    Launchd(ok, path=plist, dom="gui/501").install()
    env = plistlib.loads(plist.read_bytes())["EnvironmentVariables"]
    assert env["CLAUDE_CONFIG_DIR"] == os.environ["CLAUDE_CONFIG_DIR"]
    assert env["CODEX_HOME"] == os.environ["CODEX_HOME"]


def test_folders_recorded_at_setup_are_pinned_from_another_shell(memvet, home, monkeypatch):
    custom = home / "elsewhere" / "codex"
    monkeypatch.setenv("CODEX_HOME", str(custom))
    assert memvet("setup", "codex").returncode == 0
    monkeypatch.delenv("CODEX_HOME")  # a shell without the variable installs the service
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    Systemd(ok).install()
    text = (home / ".config" / "systemd" / "user" / "memvet-daemon.service").read_text()
    assert f"Environment=CODEX_HOME={custom}" in text
    assert "CLAUDE_CONFIG_DIR" not in text  # default place, nothing recorded: nothing to pin
    assert Path(custom / "hooks.json").exists()


def _daemon(env: dict[str, str]) -> subprocess.Popen:
    import sys
    import time

    daemon = subprocess.Popen(
        [sys.executable, "-m", "memvet.install.launcher", "daemon", "run"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    stats = Path(os.environ["MEMVET_HOME"]) / "run" / "daemon-stats.json"
    deadline = time.monotonic() + 60
    while not (stats.exists() and str(daemon.pid) in stats.read_text()):
        assert daemon.poll() is None and time.monotonic() < deadline, "daemon did not start"
        time.sleep(0.1)
    return daemon


def _stop(daemon: subprocess.Popen) -> None:
    daemon.terminate()  # the one we started, by its pid
    daemon.wait(30)


@pytest.mark.slow
def test_doctor_fails_when_the_daemon_watches_other_host_folders(memvet, home, monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    daemon = _daemon({"CODEX_HOME": str(home / "somewhere-else"), "MEMVET_KEY_PROVIDER": "file"})
    try:
        found = {c["name"]: c for c in memvet("doctor", "--json").json()["checks"]}
    finally:
        _stop(daemon)
    assert found["daemon.roots codex"]["level"] == "fail"
    assert "CODEX_HOME" in found["daemon.roots codex"]["message"]
    assert "memvet service install" in found["daemon.roots codex"]["fix"]
    assert found["daemon.roots claude-code"]["level"] == "ok"
    assert (
        str(home) not in (Path(os.environ["MEMVET_HOME"]) / "run" / "daemon-stats.json").read_text()
    )
    daemon = _daemon({"MEMVET_KEY_PROVIDER": "file"})
    try:
        found = {c["name"]: c for c in memvet("doctor", "--json").json()["checks"]}
    finally:
        _stop(daemon)
    assert found["daemon.roots codex"]["level"] == "ok"
