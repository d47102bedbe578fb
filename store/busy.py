"""A store another process holds locked beyond the busy timeout: one clear error naming the
holder, instead of SQLite's "database is locked" traceback.

The holder is found where the OS records it: on Linux, /proc/locks lists the process holding
SQLite's WAL write lock (byte 120 of the -shm file) or a lock on the database file itself.
Elsewhere, or when that says nothing, a running daemon (its pid file) is named as the likely
holder; else the holder is unknown."""

from __future__ import annotations

import os
from pathlib import Path

from memvet.store.errors import StoreBusyError

BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED
BUSY_WORDS = ("database is locked", "database table is locked", "database is busy")
WAL_WRITE_LOCK = 120  # the -shm byte a WAL writer locks exclusively


def is_busy(exc: BaseException) -> bool:
    """SQLite's busy/locked error, bare (sqlite3) or wrapped (SQLAlchemy's `.orig`)."""
    orig = getattr(exc, "orig", None) or exc
    code = getattr(orig, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in BUSY_CODES
    return any(word in str(orig).lower() for word in BUSY_WORDS)


def _file_id(path: Path) -> str | None:
    """The "major:minor:inode" /proc/locks names a file by."""
    try:
        st = path.stat()
    except OSError:
        return None
    return f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"


def _exclusive_lockers(locks_text: str, file_id: str | None, *, byte: int | None) -> list[int]:
    """Pids holding a WRITE lock on the file (covering `byte`, when given) in /proc/locks."""
    found: list[int] = []
    if file_id is None:
        return found
    for line in locks_text.splitlines():
        # "1: POSIX  ADVISORY  WRITE 23836 fe:00:2154875 120 120"
        words = line.split()
        if "->" in words or len(words) < 8 or words[3] != "WRITE":
            continue
        try:
            pid, start, end = int(words[4]), int(words[6]), words[7]
        except (ValueError, IndexError):
            continue
        covers = byte is None or (start <= byte and (end == "EOF" or byte <= int(end)))
        if words[5] == file_id and pid > 0 and pid != os.getpid() and covers:
            found.append(pid)
    return found


def _daemon_pid(home: Path) -> int | None:
    """The running daemon's pid, None when none runs or it cannot be named."""
    from memvet.store.liveness import PID_UNKNOWN, daemon_pid

    pid = daemon_pid(home / "run")
    return None if pid == PID_UNKNOWN else pid


def lock_holder(db_path: Path, locks_text: str | None = None) -> tuple[int | None, str]:
    """(pid, what it is) of the process holding the store's write lock; (None, "") if unknown."""
    if locks_text is None:
        try:
            locks_text = Path("/proc/locks").read_text()
        except OSError:
            locks_text = ""
    shm = db_path.with_name(db_path.name + "-shm")
    pids = _exclusive_lockers(locks_text, _file_id(shm), byte=WAL_WRITE_LOCK) or _exclusive_lockers(
        locks_text, _file_id(db_path), byte=None
    )
    daemon = _daemon_pid(db_path.parent)
    if pids:
        pid = pids[0]
        return pid, "the memvet daemon" if pid == daemon else _process_name(pid)
    if daemon is not None:
        return daemon, "the memvet daemon, probably"
    return None, ""


def _process_name(pid: int) -> str:
    """The program's short name only: its arguments may hold a statement someone typed."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def busy_error(db_path: Path, timeout_s: float, locks_text: str | None = None) -> StoreBusyError:
    pid, what = lock_holder(db_path, locks_text)
    if pid is None:
        held = "held by another process (pid unknown)"
    else:
        held = f"held by pid {pid}" + (f", {what}" if what else "")
    return StoreBusyError(
        f"the store is busy ({held}) for longer than {timeout_s:g} s; nothing was changed. "
        "Try again in a moment, or stop that process if it is stuck",
        holder_pid=pid,
    )
