"""One answer to "is the daemon running": the flock the daemon holds (store/liveness.py), asked
by `status`, the inspector and the store's busy message alike. A pid file alone — a crashed
daemon's, whose pid the OS gave to another process — is no daemon."""

from __future__ import annotations

import os
import subprocess
import sys

from memvet.daemon.lock import InstanceLock
from memvet.inspector import launch
from memvet.install.status import collect
from memvet.store.busy import lock_holder
from memvet.store.liveness import PID_UNKNOWN, daemon_pid
from memvet.store.paths import db_path, run_dir


def test_a_pid_file_naming_a_live_process_is_no_daemon():
    run = run_dir()
    run.mkdir(parents=True)
    (run / "daemon.pid").write_text(f"{os.getpid()}\n")  # alive, but it holds no lock
    (run / "daemon.lock").touch()  # left by a daemon that died
    assert daemon_pid(run) is None
    assert collect()["daemon"]["running"] is False
    assert launch.running_daemon_pid() is None
    assert lock_holder(db_path(), "") == (None, "")


def test_the_lock_holder_is_the_daemon():
    run = run_dir()
    assert daemon_pid(run) is None  # not even a run folder
    with InstanceLock(run):
        assert daemon_pid(run) == os.getpid() == launch.running_daemon_pid()
        assert collect()["daemon"]["running"] is True
        (run / "daemon.pid").unlink()  # being rewritten, or removed by hand
        assert daemon_pid(run) == PID_UNKNOWN
    assert daemon_pid(run) is None


def test_a_daemon_in_another_process_is_found_and_gone_when_it_dies():
    run = run_dir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from memvet.daemon.lock import InstanceLock\n"
            "with InstanceLock(Path(sys.argv[1])):\n    print('held', flush=True); sys.stdin.read()",
            str(run),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        assert daemon_pid(run) == holder.pid
    finally:
        holder.kill()  # no clean release: the OS drops the lock, the pid file stays
        holder.wait(10)
    assert (run / "daemon.pid").exists() and daemon_pid(run) is None
