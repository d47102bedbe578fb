"""One daemon per MEMVET_HOME: an `fcntl.flock` on `run/daemon.lock` plus a pid file.

The OS drops a flock when its process dies, however it dies, so a crashed daemon never leaves
the lock stuck; the pid file is only informational, and whether the daemon runs is answered by
probing the lock (`memvet.store.liveness.daemon_pid`, which every component asks), not by
trusting the pid file.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from memvet.store import MemvetError
from memvet.store.liveness import LOCK_FILE, PID_FILE, daemon_pid, read_pid
from memvet.store.paths import ensure_private_dir

running_pid = daemon_pid  # the probe, under the name the daemon's callers know


class DaemonRunningError(MemvetError):
    code = "daemon_running"
    exit_code = 1


def lock_path(run_dir: Path) -> Path:
    return run_dir / LOCK_FILE


def pid_path(run_dir: Path) -> Path:
    return run_dir / PID_FILE


class InstanceLock:
    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self._fd: int | None = None

    def acquire(self) -> None:
        ensure_private_dir(self.run_dir)
        fd = os.open(lock_path(self.run_dir), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            pid = read_pid(self.run_dir)
            who = f" (pid {pid})" if pid else ""
            raise DaemonRunningError(
                f"another memvet daemon is already running for {self.run_dir.parent}{who}; "
                "stop it first (`memvet service stop`, or kill that pid)",
                pid=pid,
            ) from None
        self._fd = fd
        _write_private(pid_path(self.run_dir), f"{os.getpid()}\n")

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            if read_pid(self.run_dir) == os.getpid():
                pid_path(self.run_dir).unlink(missing_ok=True)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> InstanceLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _write_private(path: Path, text: str) -> None:
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
