"""The launchd agent: the rendered plist and the launchctl sequences (injected runner)."""

from __future__ import annotations

import os
import plistlib
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.install import launchd
from memvet.install.launchd import LABEL, Launchd, render_plist
from memvet.install.service import ServiceCommandError, daemon_argv

DOMAIN = "gui/501"
TARGET = f"{DOMAIN}/{LABEL}"

PRINT_RUNNING = f"""{TARGET} = {{
\tactive count = 1
\tpath = /Users/dana/Library/LaunchAgents/dev.memvet.daemon.plist
\ttype = LaunchAgent
\tstate = running

\tprogram = {sys.executable}
\targuments = {{
\t\t{sys.executable}
\t\tstate = not-a-top-level-line
\t}}
\tpid = 4242
\tlast exit code = (never exited)
}}
"""


class FakeLaunchctl:
    """`launchctl print` answers per `loaded`; `fail` makes one subcommand fail."""

    def __init__(self, loaded: bool, fail: str | None = None, stdout: str = PRINT_RUNNING) -> None:
        self.loaded, self.fail, self.stdout = loaded, fail, stdout
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str]) -> subprocess.CompletedProcess:
        self.calls.append(argv)
        if argv[1] == "print":
            if self.loaded:
                return subprocess.CompletedProcess(argv, 0, self.stdout, "")
            return subprocess.CompletedProcess(argv, 113, "", f'Could not find service "{LABEL}"')
        if argv[1] == self.fail:
            return subprocess.CompletedProcess(
                argv, 5, "", "Bootstrap failed: 5: Input/output error"
            )
        return subprocess.CompletedProcess(argv, 0, "", "")


def test_plist_has_the_required_keys(tmp_path):
    logs = tmp_path / "Library" / "Logs" / "memvet"
    data = plistlib.loads(render_plist(daemon_argv(), {"MEMVET_HOME": "/Users/dana/mh"}, logs))
    assert data["Label"] == LABEL
    assert data["ProgramArguments"] == [
        sys.executable,
        "-m",
        "memvet.install.launcher",
        "daemon",
        "run",
    ]
    assert all(os.path.isabs(arg) for arg in data["ProgramArguments"][:1])
    assert data["RunAtLoad"] is True
    assert data["KeepAlive"] == {"SuccessfulExit": False}
    assert data["StandardOutPath"] == str(logs / "daemon.out.log")
    assert data["StandardErrorPath"] == str(logs / "daemon.err.log")
    assert data["EnvironmentVariables"] == {"MEMVET_HOME": "/Users/dana/mh"}
    assert "EnvironmentVariables" not in plistlib.loads(render_plist(daemon_argv(), {}, logs))


def test_paths_are_under_the_home_library(home):
    assert launchd.plist_path() == home / "Library" / "LaunchAgents" / "dev.memvet.daemon.plist"
    assert launchd.logs_dir() == home / "Library" / "Logs" / "memvet"


def test_domain_is_gui_unless_ssh_without_the_console():
    assert launchd.domain(501, {}, console_uid=501) == "gui/501"
    assert launchd.domain(501, {"SSH_CONNECTION": "1 2 3 4"}, console_uid=501) == "gui/501"
    assert launchd.domain(501, {"SSH_CONNECTION": "1 2 3 4"}, console_uid=0) == "user/501"


def test_install_writes_plist_then_enables_and_bootstraps(home):
    run = FakeLaunchctl(loaded=False)
    path = home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
    result = Launchd(run, path, DOMAIN).install()
    assert run.calls == [
        ["launchctl", "print", TARGET],
        ["launchctl", "enable", TARGET],
        ["launchctl", "bootstrap", DOMAIN, str(path)],
    ]
    assert plistlib.loads(path.read_bytes())["Label"] == LABEL
    assert result["changed"] is True and (home / "Library" / "Logs" / "memvet").is_dir()

    run = FakeLaunchctl(loaded=True)
    assert Launchd(run, path, DOMAIN).install()["changed"] is False
    assert run.calls == [["launchctl", "print", TARGET]]


def test_changed_plist_is_booted_out_and_in_again(home, tmp_path):
    path = tmp_path / f"{LABEL}.plist"
    path.write_bytes(plistlib.dumps({"Label": LABEL, "ProgramArguments": ["/old/python"]}))
    run = FakeLaunchctl(loaded=True)
    Launchd(run, path, DOMAIN).install()
    assert [c[1] for c in run.calls] == ["print", "bootout", "enable", "bootstrap"]


def test_failed_bootstrap_leaves_no_plist(home, tmp_path):
    path = tmp_path / f"{LABEL}.plist"
    with pytest.raises(ServiceCommandError) as caught:
        Launchd(FakeLaunchctl(loaded=False, fail="bootstrap"), path, DOMAIN).install()
    assert "Input/output error" in caught.value.message
    assert not path.exists()


def test_uninstall_boots_out_and_removes(tmp_path):
    path = tmp_path / f"{LABEL}.plist"
    path.write_bytes(b"x")
    run = FakeLaunchctl(loaded=True)
    assert Launchd(run, path, DOMAIN).uninstall()["changed"] is True
    assert run.calls[1:] == [["launchctl", "bootout", TARGET]] and not path.exists()


def test_status_reads_launchctl_print(tmp_path):
    path = tmp_path / f"{LABEL}.plist"
    path.write_bytes(b"x")
    report = Launchd(FakeLaunchctl(loaded=True), path, DOMAIN).status()
    assert report == {
        "installed": True,
        "unit_path": str(path),
        "active": True,
        "detail": "state = running, pid = 4242",
    }
    report = Launchd(FakeLaunchctl(loaded=False), path, DOMAIN).status()
    assert report["active"] is False and report["detail"] == "not loaded"
    waiting = PRINT_RUNNING.replace("state = running", "state = not running").replace(
        "\tpid = 4242\n", ""
    )
    report = Launchd(FakeLaunchctl(loaded=True, stdout=waiting), path, DOMAIN).status()
    assert report["active"] is False and report["detail"] == "state = not running"


def test_start_kickstarts_a_loaded_job_and_bootstraps_otherwise(tmp_path):
    path = tmp_path / f"{LABEL}.plist"
    path.write_bytes(b"x")
    run = FakeLaunchctl(loaded=True)
    Launchd(run, path, DOMAIN).start()
    assert run.calls[-1] == ["launchctl", "kickstart", TARGET]
    run = FakeLaunchctl(loaded=False)
    Launchd(run, path, DOMAIN).start()
    assert run.calls[-1] == ["launchctl", "bootstrap", DOMAIN, str(path)]
    run = FakeLaunchctl(loaded=True)
    Launchd(run, path, DOMAIN).stop()
    assert run.calls[-1] == ["launchctl", "bootout", TARGET]
    with pytest.raises(ServiceCommandError):
        Launchd(run, Path(tmp_path / "missing.plist"), DOMAIN).start()
