"""A `memvet key rotate` killed half-way leaves a key behind: `key status` names it, and
`key rotate --finish` (or the next rotation) removes it — never the key that opens the store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

LAUNCHER = [sys.executable, "-m", "memvet.install.launcher"]
HANGING_ROTATION = Path(__file__).parent / "helpers" / "rotate_then_hang.py"


@pytest.fixture(autouse=True)
def file_key(monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")


def memvet(*args: str) -> dict:
    proc = subprocess.run(
        [*LAUNCHER, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def key_files() -> list[str]:
    return sorted(p.name for p in (Path(os.environ["MEMVET_HOME"]) / "keys").iterdir())


def kill_rotation_at(point: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, str(HANGING_ROTATION), point, "key", "rotate"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert proc.stderr.readline().strip() in ("saved", "committed")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


@pytest.mark.slow
def test_a_rotation_killed_after_its_commit_leaves_the_old_key_named_and_finish_removes_it():
    memvet("propose", "we deploy with make release", "--global")
    kill_rotation_at("after-commit")
    assert key_files() == ["kek-v1", "kek-v2"]

    status = memvet("key", "status")
    assert status["kek_version"] == 2 and status["leftover_versions"] == [1]
    human = subprocess.run(
        [*LAUNCHER, "key", "status"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    ).stdout
    assert "v1" in human and "memvet key rotate --finish" in human

    finished = memvet("key", "rotate", "--finish")
    assert finished["removed_versions"] == [1]
    assert key_files() == ["kek-v2"]
    assert memvet("key", "status")["leftover_versions"] == []
    assert len(memvet("queue", "list")["candidates"]) == 1  # the store still opens


@pytest.mark.slow
def test_a_rotation_killed_before_its_commit_leaves_an_unused_key_the_next_rotation_clears():
    memvet("propose", "we deploy with make release", "--global")
    kill_rotation_at("before-commit")
    assert key_files() == ["kek-v1", "kek-v2"]
    status = memvet("key", "status")
    assert status["kek_version"] == 1 and status["leftover_versions"] == [2]
    assert len(memvet("queue", "list")["candidates"]) == 1  # v1 still opens it

    kill_rotation_at("after-commit")  # a second interrupted rotation: v1 is left over now
    assert memvet("key", "status")["leftover_versions"] == [1]
    assert memvet("key", "rotate")["kek_version"] == 3  # the next whole rotation
    assert key_files() == ["kek-v3"]
    assert memvet("key", "status")["leftover_versions"] == []
    assert len(memvet("queue", "list")["candidates"]) == 1


def test_finish_never_removes_the_current_key_and_refuses_when_it_does_not_open_the_store():
    from memvet.store import KeyMissingError, open_store

    store = open_store()
    store.rotate_key()
    keys = Path(os.environ["MEMVET_HOME"]) / "keys"
    assert store.finish_key_rotation() == [] and key_files() == ["kek-v2"]
    (keys / "kek-v1").write_text((keys / "kek-v2").read_text())  # a stray old file
    (keys / "kek-v1").chmod(0o600)
    (keys / "kek-v2").rename(keys / "kek-v2.moved")  # the current key is gone
    with pytest.raises(KeyMissingError):
        store.finish_key_rotation()
    assert (keys / "kek-v1").exists()  # nothing removed while the store cannot be opened
    store.close()
