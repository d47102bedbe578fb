"""A corrupted or truncated memvet.db: every command exits 3 with one line (what is wrong, where a
copy is, what to run), `--json` included, never a traceback; nothing is written and the key is
kept. `memvet doctor` checks the file and every record. Real processes, real files."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.store import CandidateDraft, Scope, open_store

COMMANDS = [
    ("queue", "list"),
    ("memories", "list", "--global"),
    ("propose", "we use uv"),
    ("audit", "verify"),
    ("key", "status"),
    ("recall", "which package manager"),
    ("queue", "show", "c_x"),
    ("memories", "forget", "m_x"),
    ("migrate",),
]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    store = open_store()
    for i in range(40):
        store.admit(
            CandidateDraft(
                statement=f"statement {i} about the build " * 4,
                kind="fact",
                source_type="operator",
                scope=Scope(user=store.user),
            )
        )
    store.close()
    return Path(os.environ["MEMVET_HOME"])


def _assert_refused_clearly(db: Path, problem: str, commands: list = COMMANDS) -> None:
    before = db.read_bytes()
    for command in commands:
        human = run(*command)
        assert human.returncode == 3, (command, human.stderr)
        assert human.stdout == "" and "Traceback" not in human.stderr
        assert human.stderr.count("\n") == 1 and "is damaged" in human.stderr
        assert problem in human.stderr and "memvet up" in human.stderr
        as_json = run(*command, "--json")
        assert as_json.returncode == 3 and "Traceback" not in as_json.stderr
        doc = json.loads(as_json.stdout)  # exactly one document
        assert doc["error"]["code"] == "store_damaged" and doc["error"]["path"] == str(db)
    assert db.read_bytes() == before  # nothing written


def test_a_file_that_is_no_database(home):
    db = home / "memvet.db"
    db.write_bytes(b"this is not a database at all\n" * 300)
    _assert_refused_clearly(db, "file is not a database")


def test_a_truncated_store(home):
    db = home / "memvet.db"
    size = db.stat().st_size
    assert size > 8 * 4096
    with open(db, "r+b") as handle:
        handle.truncate(size // 2)
    _assert_refused_clearly(db, "malformed", COMMANDS[:4])


def test_a_store_emptied_to_zero_bytes_is_refused_and_its_key_kept(home):
    db = home / "memvet.db"
    db.write_bytes(b"")
    keys = sorted(p.name for p in (home / "keys").iterdir())
    for command in (("propose", "we use uv"), ("queue", "list")):
        res = run(*command, "--json")
        assert res.returncode == 3 and json.loads(res.stdout)["error"]["code"] == "store_damaged"
    assert sorted(p.name for p in (home / "keys").iterdir()) == keys  # the key survives
    assert db.stat().st_size == 0


def test_the_message_names_a_copy_lying_beside_it(home):
    db = home / "memvet.db"
    (home / "memvet.db.bak").write_bytes(db.read_bytes())
    db.write_bytes(b"garbage" * 1000)
    res = run("queue", "list")
    assert res.returncode == 3 and "memvet.db.bak" in res.stderr


def test_doctor_checks_the_file_and_every_record(home):
    ok = json.loads(run("doctor", "--json").stdout)
    names = {c["name"]: c["level"] for c in ok["checks"]}
    assert names["store.file"] == "ok" and names["store.records"] == "ok"
    conn = sqlite3.connect(home / "memvet.db")
    victim = conn.execute("SELECT id FROM candidates LIMIT 1").fetchone()[0]
    conn.execute("UPDATE candidates SET status='rejected' WHERE id=?", (victim,))
    conn.commit()
    conn.close()
    res = run("doctor", "--deep", "--json")
    assert res.returncode == 1
    checks = {c["name"]: c for c in json.loads(res.stdout)["checks"]}
    assert (
        checks["store.records"]["level"] == "fail" and victim in checks["store.records"]["message"]
    )
    (home / "memvet.db").write_bytes(b"garbage" * 1000)
    res = run("doctor")
    assert res.returncode == 1 and "is damaged" in res.stdout and "Traceback" not in res.stderr
