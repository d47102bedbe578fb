"""The service daemon watches the host folders the user's hosts use: `service install` pins
CLAUDE_CONFIG_DIR and CODEX_HOME (as set, or as recorded by `memvet setup`) in the systemd unit
and the launchd plist; before, only MEMVET_HOME was pinned and such a daemon ingested nothing."""

from __future__ import annotations

import os
import plistlib
import subprocess
from pathlib import Path

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
