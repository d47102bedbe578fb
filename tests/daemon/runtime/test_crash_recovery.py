"""Exactly-once across `kill -9`: a real `memvet daemon run` is killed twice in the middle of a
large backfill and restarted; the candidates (statements, evidence counts and evidence
pointers) must equal those of a run that was never killed."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest
from memvet.store import open_store

from .conftest import claude_tool_result, claude_user, daemon_env, memvet, spawn_daemon

pytestmark = pytest.mark.slow

POOL = [
    f"We always use tool-{i} for the {topic} step in this repo."
    for i in range(12)
    for topic in ("build", "lint", "deploy")
]


def build_corpus(projects: Path, *, files: int = 4, lines: int = 2500) -> int:
    """Mostly tool output, a statement every ~80 lines; statements repeat across files, so
    admission merges them (evidence counts above 1 are part of what is compared)."""
    rng = random.Random(7)
    total = 0
    for f in range(files):
        folder = projects / f"-home-dana-src-app{f % 2}"
        folder.mkdir(parents=True, exist_ok=True)
        chunks = []
        for _ in range(lines):
            if rng.random() < 0.012:
                chunks.append(claude_user(rng.choice(POOL), session=f"s-{f}"))
            else:
                chunks.append(claude_tool_result("x" * rng.randint(200, 3000), session=f"s-{f}"))
        data = b"".join(chunks)
        (folder / f"s-{f}.jsonl").write_bytes(data)
        total += len(data)
    return total


def progress(db: Path) -> int:
    """Bytes committed so far, read straight from the checkpoint table (no key needed)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return int(
                conn.execute("SELECT coalesce(sum(offset), 0) FROM file_checkpoints").fetchone()[0]
            )
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def kill_when(db: Path, threshold: int, env: dict[str, str], timeout: float = 60) -> int:
    proc = spawn_daemon(env)
    deadline = time.monotonic() + timeout
    try:
        while (done := progress(db)) < threshold:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the backfill made no progress"
            time.sleep(0.003)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return done


def snapshot(home: Path) -> tuple[Counter, Counter]:
    store = open_store(home, schema="never")
    try:
        reader = store.reader_for(None, all_scopes=True)
        from memvet.store import CANDIDATE_STATUSES, QueueFilter

        rows = store.list_candidates(reader, QueueFilter(statuses=CANDIDATE_STATUSES), limit=None)
        counts = Counter({c.statement: c.evidence_count for c in rows})
        pointers = Counter(
            (c.statement, e.path, e.line)
            for c in rows
            for e in store.candidate_detail(c.id).evidence
        )
        return counts, pointers
    finally:
        store.close()


def test_kill_9_during_backfill_loses_and_duplicates_nothing(file_key, tmp_path: Path) -> None:
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    total = build_corpus(projects)
    crashed = tmp_path / "crashed-home"
    crashed.mkdir()
    (crashed / "config.toml").write_text("[daemon]\nbatch_lines = 150\n")
    env = daemon_env(MEMVET_HOME=str(crashed))
    db = crashed / "memvet.db"

    first = kill_when(db, total // 6, env)
    second = kill_when(db, total // 2, env)
    assert 0 < first <= second < total, "the kills did not land inside the backfill"
    done = memvet("daemon", "run", "--once", env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert progress(db) == total

    clean = tmp_path / "clean-home"
    done = memvet("daemon", "run", "--once", env=daemon_env(MEMVET_HOME=str(clean)), timeout=120)
    assert done.returncode == 0, done.stderr

    crashed_counts, crashed_pointers = snapshot(crashed)
    clean_counts, clean_pointers = snapshot(clean)
    assert clean_counts, "the pipeline found no statement in the corpus"
    assert max(clean_counts.values()) > 1  # merges happened, so duplicates would show
    assert crashed_counts == clean_counts
    assert crashed_pointers == clean_pointers
    stats = json.loads((crashed / "run" / "daemon-stats.json").read_text())["stats"]
    assert stats["lines"] > 0


def test_sigterm_during_backfill_commits_and_exits_0(file_key, tmp_path: Path) -> None:
    """The batch in flight finishes, its checkpoint is committed, and the daemon exits 0 fast;
    every checkpoint sits on a line boundary with the right line count."""
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    total = build_corpus(projects, files=3)
    home = tmp_path / "daemon-home"
    home.mkdir()
    (home / "config.toml").write_text("[daemon]\nbatch_lines = 150\n")
    env = daemon_env(MEMVET_HOME=str(home))
    proc = spawn_daemon(env)
    try:
        deadline = time.monotonic() + 60
        while progress(home / "memvet.db") < total // 5:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.003)
        stopped_at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert time.monotonic() - stopped_at < 10
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    store = open_store(home, schema="never")
    try:
        checkpoints = store.all_checkpoints()
        assert checkpoints
        for cp in checkpoints:
            data = Path(cp.path).read_bytes()
            assert cp.offset == 0 or data[cp.offset - 1 : cp.offset] == b"\n"
            assert data[: cp.offset].count(b"\n") == cp.line_no
    finally:
        store.close()
    assert "daemon stopped" in (home / "logs" / "daemon.log").read_text()
