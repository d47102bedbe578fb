"""`memvet inspect` and `memvet up` without a terminal: a real process, stdin or stdout not a TTY,
must exit 2 at once with "needs a terminal" (it used to spin at full CPU for ever)."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
from pathlib import Path

import pytest

LAUNCHER = [sys.executable, "-m", "memvet.install.launcher"]


@pytest.fixture
def a_store_with_work(monkeypatch):
    """A store a subprocess can open (file key), with one candidate: `up` has something to show."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    done = subprocess.run(
        [*LAUNCHER, "propose", "we deploy with make release", "--global"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr


def _stop_any_daemon() -> None:
    pid_file = Path(os.environ["MEMVET_HOME"]) / "run" / "daemon.pid"
    try:
        os.killpg(int(pid_file.read_text().strip()), signal.SIGTERM)
    except (OSError, ValueError):
        pass


@pytest.mark.slow
@pytest.mark.parametrize("command", ["inspect", "up"])
@pytest.mark.parametrize("terminal_on", [None, "stdin", "stdout"])
def test_without_a_terminal_it_exits_2_at_once(a_store_with_work, command, terminal_on):
    leader, follower = pty.openpty()
    stdin = follower if terminal_on == "stdin" else subprocess.DEVNULL
    stdout = follower if terminal_on == "stdout" else subprocess.PIPE
    proc = subprocess.Popen(
        [*LAUNCHER, command],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
        start_new_session=True,
    )
    try:
        _, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"`memvet {command}` without a terminal did not exit")
    finally:
        os.close(follower)
        os.close(leader)
        _stop_any_daemon()
    assert proc.returncode == 2
    message = err.decode()
    assert "needs a terminal" in message and "Traceback" not in message
    if terminal_on != "stdin":
        assert "stdin" in message
    # `up` refuses before it starts anything in the background
    assert not (Path(os.environ["MEMVET_HOME"]) / "run" / "daemon.pid").exists()
