"""A store another process holds beyond the busy timeout: exit 3 "the store is busy (held by pid
N …)", one line or one JSON document, never SQLite's "database is locked" traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.store import open_store
from memvet.store.busy import busy_error, is_busy, lock_holder

LAUNCHER = [sys.executable, "-m", "memvet.install.launcher"]
HOLD_WRITE_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(120)
"""


def db() -> Path:
    return Path(os.environ["MEMVET_HOME"]) / "memvet.db"


@pytest.fixture
def holder(monkeypatch):
    """A real process holding the store's write lock, as a stuck writer would."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    open_store().close()
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_WRITE_LOCK, str(db())], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "held"
    yield proc
    proc.kill()
    proc.wait()


@pytest.mark.slow
def test_a_writer_past_the_busy_timeout_names_the_holder_and_exits_3(holder):
    env = os.environ.copy()
    human, as_json = (
        subprocess.Popen(
            [*LAUNCHER, "propose", "we deploy with make", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for extra in ((), ("--json",))
    )
    out, err = human.communicate(timeout=90)
    assert human.returncode == 3 and out == ""
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "the store is busy" in err and f"held by pid {holder.pid}" in err

    out, err = as_json.communicate(timeout=90)
    assert as_json.returncode == 3 and "Traceback" not in err, err
    doc = json.loads(out)  # exactly one document
    assert doc["error"]["code"] == "store_busy" and doc["error"]["holder_pid"] == holder.pid

    holder.kill()
    holder.wait()
    done = subprocess.run(
        [*LAUNCHER, "propose", "we deploy with make", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr  # nothing was lost: it works once the lock is gone


def test_the_holder_is_read_from_the_os_lock_table():
    open_store().close()
    shm = db().with_name("memvet.db-shm")
    st = (shm if shm.exists() else db()).stat()
    fid = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    table = (
        f"1: POSIX  ADVISORY  READ 4242 {fid} 128 128\n"
        f"2: -> POSIX  ADVISORY  WRITE 5151 {fid} 120 120\n"  # a waiter, not the holder
        f"3: POSIX  ADVISORY  WRITE 31337 {fid} 120 120\n"
    )
    assert lock_holder(db(), table)[0] == 31337


def test_without_a_lock_table_a_running_daemon_is_named_else_the_holder_is_unknown():
    open_store().close()
    assert lock_holder(db(), "") == (None, "")
    assert "pid unknown" in busy_error(db(), 5, "").message
    run = db().parent / "run"
    run.mkdir()
    from memvet.daemon.lock import InstanceLock

    with InstanceLock(run):  # what a running daemon holds; this process stands in for it
        pid, what = lock_holder(db(), "")
        assert pid == os.getpid() and "daemon" in what
        assert f"held by pid {os.getpid()}" in busy_error(db(), 5, "").message


def test_only_sqlites_busy_errors_count_as_busy():
    import sqlite3

    assert is_busy(sqlite3.OperationalError("database is locked"))
    assert not is_busy(sqlite3.OperationalError("no such table: memories"))
    assert not is_busy(ValueError("database is fine"))
