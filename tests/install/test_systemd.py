"""The systemd user unit: rendered text, `systemd-analyze verify`, and the command sequences
(through an injected runner: nothing here touches the machine's systemd)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.install import systemd
from memvet.install.service import ServiceCommandError, daemon_argv
from memvet.install.systemd import UNIT_NAME, Systemd, render_unit


class FakeRun:
    """Answers like systemctl would; `fail` maps a word in the command to (code, stderr)."""

    def __init__(self, fail: dict[str, tuple[int, str]] | None = None, stdout: str = "") -> None:
        self.calls: list[list[str]] = []
        self.fail = fail or {}
        self.stdout = stdout

    def __call__(self, argv: list[str]) -> subprocess.CompletedProcess:
        self.calls.append(argv)
        for word, (code, err) in self.fail.items():
            if word in argv:
                return subprocess.CompletedProcess(argv, code, "", err)
        return subprocess.CompletedProcess(argv, 0, self.stdout, "")


def sysctl(*words: str) -> list[str]:
    return ["systemctl", "--user", *words]


def unit_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def test_rendered_unit_has_the_required_settings():
    text = render_unit(daemon_argv(), {"MEMVET_HOME": "/home/dana/.local/share/memvet"})
    lines = unit_lines(text)
    assert lines.index("[Unit]") < lines.index("[Service]") < lines.index("[Install]")
    assert "Type=exec" in lines
    assert f"ExecStart={sys.executable} -m memvet.install.launcher daemon run" in lines
    assert os.path.isabs(daemon_argv()[0])
    assert "Restart=on-failure" in lines
    assert "Environment=MEMVET_HOME=/home/dana/.local/share/memvet" in lines
    assert "WantedBy=default.target" in lines
    assert not any(
        line.startswith("Environment") for line in unit_lines(render_unit(daemon_argv(), {}))
    )


def test_words_with_spaces_percent_and_dollar_are_escaped():
    text = render_unit(["/opt/my tools/python", "-m", "x$y", "50%"], {"MEMVET_HOME": "/a b/%h"})
    assert 'ExecStart="/opt/my tools/python" -m x$$y 50%%' in text
    assert 'Environment="MEMVET_HOME=/a b/%%h"' in text


def test_unit_path_follows_xdg_config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert systemd.unit_path() == tmp_path / "cfg" / "systemd" / "user" / UNIT_NAME
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert systemd.unit_path() == Path.home() / ".config" / "systemd" / "user" / UNIT_NAME


analyze = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(analyze is None, reason="systemd-analyze is not installed here")


def verify(unit: Path) -> subprocess.CompletedProcess:
    # System mode: `--user` needs a running user manager, which test machines rarely have.
    return subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=30
    )


@needs_analyze
def test_systemd_analyze_accepts_the_unit(tmp_path):
    spaced = tmp_path / "my tools"
    spaced.mkdir()
    (spaced / "python").symlink_to(sys.executable)  # a path with a space exercises quoting
    unit = tmp_path / UNIT_NAME
    unit.write_text(
        render_unit(
            [str(spaced / "python"), "-m", "memvet.install.launcher", "daemon", "run"],
            {"MEMVET_HOME": str(tmp_path / "home 100%")},
        )
    )
    done = verify(unit)
    assert done.returncode == 0, done.stderr
    assert "Unknown" not in done.stderr and "Invalid" not in done.stderr, done.stderr


@needs_analyze
def test_systemd_analyze_rejects_a_broken_unit(tmp_path):
    """The check above can fail: an unquoted path with a space splits into two words."""
    spaced = tmp_path / "my tools"
    spaced.mkdir()
    (spaced / "python").symlink_to(sys.executable)
    unit = tmp_path / UNIT_NAME
    unit.write_text(
        render_unit(daemon_argv(), {}).replace(
            f"ExecStart={sys.executable}", f"ExecStart={spaced / 'python'}"
        )
    )
    assert verify(unit).returncode != 0


def test_install_writes_the_unit_then_reloads_and_enables(tmp_path):
    run = FakeRun(stdout="")
    unit = tmp_path / "user" / UNIT_NAME
    result = Systemd(run, unit).install()
    assert run.calls == [sysctl("daemon-reload"), sysctl("enable", "--now", UNIT_NAME)]
    assert result["changed"] is True and result["commands"] == run.calls
    assert unit.read_text() == render_unit(
        daemon_argv(),
        {  # the host folders too (issue 10)
            key: os.environ[key] for key in ("MEMVET_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME")
        },
    )
    assert oct(unit.stat().st_mode & 0o777) == "0o644"

    run.calls.clear()
    again = Systemd(run, unit).install()
    assert again["changed"] is False and run.calls == [sysctl("enable", "--now", UNIT_NAME)]


def test_changed_unit_is_reloaded_and_restarted(tmp_path):
    unit = tmp_path / UNIT_NAME
    unit.write_text("[Service]\nExecStart=/old/python -m memvet daemon run\n")
    run = FakeRun()
    Systemd(run, unit).install()
    assert run.calls == [
        sysctl("daemon-reload"),
        sysctl("enable", UNIT_NAME),
        sysctl("restart", UNIT_NAME),
    ]


def test_failed_enable_leaves_no_unit_behind(tmp_path):
    run = FakeRun(fail={"enable": (1, "Failed to connect to bus: No medium found")})
    unit = tmp_path / UNIT_NAME
    with pytest.raises(ServiceCommandError) as caught:
        Systemd(run, unit).install()
    assert "Failed to connect to bus" in caught.value.message
    assert not unit.exists()
    assert run.calls[-1] == sysctl("daemon-reload")  # systemd forgets the removed unit


def test_failed_update_puts_the_old_unit_back(tmp_path):
    unit = tmp_path / UNIT_NAME
    unit.write_text("old unit\n")
    with pytest.raises(ServiceCommandError):
        Systemd(FakeRun(fail={"restart": (1, "Job failed")}), unit).install()
    assert unit.read_text() == "old unit\n"


def test_uninstall_disables_removes_and_reloads(tmp_path):
    unit = tmp_path / UNIT_NAME
    unit.write_text("x")
    run = FakeRun()
    result = Systemd(run, unit).uninstall()
    assert run.calls == [sysctl("disable", "--now", UNIT_NAME), sysctl("daemon-reload")]
    assert not unit.exists() and result["changed"] is True
    run.calls.clear()
    assert Systemd(run, unit).uninstall()["changed"] is False and run.calls == []


def test_uninstall_keeps_the_unit_when_disable_fails(tmp_path):
    unit = tmp_path / UNIT_NAME
    unit.write_text("x")
    with pytest.raises(ServiceCommandError) as caught:
        Systemd(FakeRun(fail={"disable": (1, "Access denied")}), unit).uninstall()
    assert unit.exists() and "Access denied" in caught.value.message


@pytest.mark.parametrize(
    ("code", "stdout", "stderr", "active", "detail"),
    [
        (0, "active\n", "", True, "active"),
        (3, "inactive\n", "", False, "inactive"),
        (3, "failed\n", "", False, "failed"),
        (
            1,
            "",
            "Failed to connect to bus: No such file or directory",
            None,
            "Failed to connect to bus",
        ),
    ],
)
def test_status_reads_is_active(tmp_path, code, stdout, stderr, active, detail):
    unit = tmp_path / UNIT_NAME
    unit.write_text("x")

    def run(argv):
        assert argv == sysctl("is-active", UNIT_NAME)
        return subprocess.CompletedProcess(argv, code, stdout, stderr)

    report = Systemd(run, unit).status()
    assert report["installed"] is True and report["active"] is active
    assert report["detail"].startswith(detail) and report["unit_path"] == str(unit)


def test_start_and_stop_need_the_unit(tmp_path):
    unit = tmp_path / UNIT_NAME
    run = FakeRun()
    with pytest.raises(ServiceCommandError):
        Systemd(run, unit).start()
    unit.write_text("x")
    Systemd(run, unit).start()
    Systemd(run, unit).stop()
    assert run.calls == [sysctl("start", UNIT_NAME), sysctl("stop", UNIT_NAME)]
