"""Is the daemon running? One answer, the daemon's own: while it runs it holds an `fcntl.flock`
on MEMVET_HOME/run/daemon.lock (daemon/lock.py), and the OS drops that lock when the process
dies, however it dies. So a probe that cannot take the lock has found a running daemon; the pid
file only says which process it is. A pid file alone — a crashed daemon's, or its pid reused by
another process — says nothing. Import-light (os, fcntl): `status`, the inspector and the
store's busy message ask it."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_FILE = "daemon.lock"
PID_FILE = "daemon.pid"
PID_UNKNOWN = -1  # a daemon holds the lock, its pid file is missing or being written


def read_pid(run: Path) -> int | None:
    """What the pid file says (informational: see daemon_pid)."""
    try:
        return int((run / PID_FILE).read_text().strip())
    except (OSError, ValueError):
        return None


def daemon_pid(run: Path | None = None) -> int | None:
    """The running daemon's pid (PID_UNKNOWN when its pid file cannot be read), or None when
    no daemon runs for this run folder (MEMVET_HOME/run by default). A probe: if we can take
    the lock ourselves, nobody holds it, and we let go at once."""
    if run is None:
        from memvet.store.paths import run_dir

        run = run_dir()
    try:
        fd = os.open(run / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return read_pid(run) or PID_UNKNOWN
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
