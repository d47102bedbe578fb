"""A missing store is said, not made: reading commands on an empty MEMVET_HOME write nothing and
name what to run; the commands that create a store create it at the current schema, 0600."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.store import NoStoreError, open_store
from memvet.store.engine import create_store_engine
from memvet.store.migrations import SCHEMA_VERSION
from memvet.store.schema import current_version

LAUNCHER = [sys.executable, "-m", "memvet.install.launcher"]
NO_STORE = "no store yet"
READING = [
    ("queue", "list"),
    ("queue", "show", "c_0"),
    ("memories", "list"),
    ("key", "status"),
    ("audit", "verify"),
    ("recall", "how do we deploy"),
    ("queue", "approve", "c_0"),
    ("queue", "reject", "c_0"),
    ("queue", "recover", "c_0", "--commit"),
    ("memories", "forget", "m_0"),
    ("key", "rotate"),
]


def memvet(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*LAUNCHER, *args], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )


def home() -> Path:
    return Path(os.environ["MEMVET_HOME"])


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.slow
def test_reading_commands_on_an_empty_home_write_nothing_and_say_what_to_do():
    home().mkdir(mode=0o700)
    for number, args in enumerate(READING):
        as_json = number % 2 == 1  # half of them as --json: one process per command
        proc = memvet(*args, *(["--json"] if as_json else []))
        assert proc.returncode == 3, (args, proc.stdout, proc.stderr)
        if as_json:
            assert json.loads(proc.stdout)["error"]["code"] == "no_store", args
            message = json.loads(proc.stdout)["error"]["message"]
        else:
            assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1, args
            message = proc.stderr
        assert NO_STORE in message and "memvet demo" in message and "memvet up" in message
        assert list(home().iterdir()) == [], args  # not even a 4 KiB schema-0 file


@pytest.mark.slow
def test_status_doctor_and_daemon_status_on_an_empty_home_leave_it_empty():
    home().mkdir(mode=0o700)
    for args in (("status", "--json"), ("doctor", "--json"), ("daemon", "status", "--json")):
        proc = memvet(*args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        json.loads(proc.stdout)
    assert list(home().iterdir()) == []


def test_the_inspector_on_an_empty_home_says_there_is_no_store_and_writes_nothing():
    from memvet.inspector.launch import open_for_inspection

    home().mkdir(mode=0o700)
    with pytest.raises(NoStoreError) as err:
        open_for_inspection()
    assert NO_STORE in err.value.message and err.value.exit_code == 3
    assert list(home().iterdir()) == []


def test_an_empty_file_an_older_memvet_left_is_no_store_for_readers_and_is_migrated_by_writers():
    home().mkdir(mode=0o700)
    create_store_engine(home() / "memvet.db").dispose()  # what `memvet inspect` used to leave
    with pytest.raises(NoStoreError):
        open_store(schema="never")
    with pytest.raises(NoStoreError):
        open_store(create=False)
    open_store().close()  # a creating command makes it a store at the current schema
    engine = create_store_engine(home() / "memvet.db")
    assert current_version(engine) == SCHEMA_VERSION
    engine.dispose()


@pytest.mark.slow
def test_propose_creates_the_store_at_the_current_schema_and_then_readers_work():
    proc = memvet("propose", "we deploy with make release", "--global", "--json")
    assert proc.returncode == 0, proc.stderr
    engine = create_store_engine(home() / "memvet.db")
    assert current_version(engine) == SCHEMA_VERSION
    engine.dispose()
    listed = memvet("queue", "list", "--json")
    assert listed.returncode == 0 and len(json.loads(listed.stdout)["candidates"]) == 1


# --- file modes -------------------------------------------------------------------------------


@pytest.fixture
def open_umask():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@pytest.mark.slow
def test_a_store_made_by_a_real_process_is_0600(open_umask):
    proc = memvet("propose", "we deploy with make release", "--global")
    assert proc.returncode == 0, proc.stderr
    assert mode(home() / "memvet.db") == 0o600


def test_the_database_its_wal_and_shm_are_0600_while_in_use(open_umask):
    store = open_store()
    try:
        store.optimize()  # a write: the WAL and the shared-memory index exist now
        files = [home() / n for n in ("memvet.db", "memvet.db-wal", "memvet.db-shm")]
        assert all(f.exists() for f in files)
        assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
    finally:
        store.close()


def test_a_store_left_0644_by_an_older_memvet_is_tightened_on_open(open_umask):
    open_store().close()
    os.chmod(home() / "memvet.db", 0o644)
    store = open_store()
    store.close()
    assert mode(home() / "memvet.db") == 0o600
