"""`memvet daemon run` as a real process: status, the single-instance lock, SIGTERM, --once,
tombstones across sessions, and both hosts' real fixtures."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest
from memvet.daemon.commands import collect_status
from memvet.store import QueueFilter, open_store
from memvet.store.paths import memvet_home

from .conftest import (
    ClaudeSession,
    claude_tool_result,
    claude_user,
    codex_meta,
    codex_user,
    memvet,
    spawn_daemon,
    wait_for,
)

pytestmark = pytest.mark.slow

STATEMENTS = [
    "We always use uv for Python packaging in this repo.",
    "Never commit directly to the main branch.",
    "We use pytest -q to run the tests, always.",
]


def session_bytes(texts: list[str], session: str = "s-1") -> bytes:
    out = b""
    for text in texts:
        out += claude_user(text, session=session) + claude_tool_result("ok\n" * 20, session=session)
    return out


def caught_up(home: Path, path: Path) -> bool:
    doc = collect_status(home)
    return doc["running"] and doc["files_tracked"] >= 1 and doc["lag_bytes"] == 0 and path.exists()


def pending(store) -> dict[str, int]:  # noqa: ANN001
    reader = store.reader_for(None, all_scopes=True)
    return {
        c.statement: c.evidence_count
        for c in store.list_candidates(reader, QueueFilter(statuses=("pending",)), limit=None)
    }


def test_run_status_lock_and_sigterm(file_key, claude_project: Path) -> None:
    home = memvet_home()
    path = claude_project / "s-1.jsonl"
    path.write_bytes(session_bytes(STATEMENTS[:2]))
    proc = spawn_daemon()
    try:
        wait_for(lambda: caught_up(home, path), timeout=30)
        doc = json.loads(memvet("daemon", "status", "--json").stdout)
        assert doc["running"] and doc["pid"] == proc.pid
        assert (home / "run" / "daemon.pid").read_text().strip() == str(proc.pid)
        assert doc["files_tracked"] == 1 and doc["lag_bytes"] == 0
        assert any(r["watched"] and r["host"] == "claude-code" for r in doc["roots"])
        # docs/daemon.md: stats hold counts and keyed ids, never paths (issue 9)
        stats_text = (home / "run" / "daemon-stats.json").read_text()
        assert os.environ["HOME"] not in stats_text and str(home) not in stats_text

        second = memvet("daemon", "run", timeout=30)
        assert second.returncode == 1
        assert "already running" in second.stderr and str(proc.pid) in second.stderr

        with path.open("ab") as f:
            f.write(session_bytes(STATEMENTS[2:]))
        wait_for(lambda: caught_up(home, path), timeout=30)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not (home / "run" / "daemon.pid").exists()
    assert collect_status(home)["running"] is False
    store = open_store(schema="never")
    try:
        cp = store.get_checkpoint(str(path))
        assert cp.offset == path.stat().st_size and cp.line_no == 6
        assert len(pending(store)) >= 1, "the pipeline found no statement in the test session"
    finally:
        store.close()
    log = (home / "logs" / "daemon.log").read_text()
    assert "daemon started" in log and "daemon stopped" in log
    for text in STATEMENTS:
        assert text not in log and "uv for Python" not in log
    assert str(claude_project) not in log


def test_once_ingests_runs_sweeps_and_exits(file_key, claude_project: Path) -> None:
    (claude_project / "s-1.jsonl").write_bytes(session_bytes(STATEMENTS))
    codex = Path(os.environ["CODEX_HOME"]) / "sessions" / "2026" / "03" / "01"
    codex.mkdir(parents=True)
    (codex / "rollout-2026-03-01T09-00-00-019c.jsonl").write_bytes(
        codex_meta() + codex_user("We always use uv for Python packaging in this repo.")
    )
    done = memvet("daemon", "run", "--once")
    assert done.returncode == 0, done.stderr
    assert "memvet: read 8 lines" in done.stderr
    doc = json.loads(memvet("daemon", "status", "--json").stdout)
    assert doc["running"] is False and doc["files_tracked"] == 2 and doc["lag_bytes"] == 0
    assert set(doc["sweeps"]) == {
        "sweep.rescan",
        "sweep.stale_leases",
        "sweep.expire_candidates",
        "sweep.retire_memories",
        "sweep.decay_confidence",
        "sweep.verify_audit",
        "sweep.optimize_store",
        "sweep.review_flags",
        "sweep.reredact",
        "sweep.reindex_terms",
    }
    human = memvet("daemon", "status").stdout
    assert "daemon: not running" in human and "files tracked: 2" in human
    again = memvet("daemon", "run", "--once")  # nothing new: nothing read
    assert again.returncode == 0 and "memvet: read 0 lines" in again.stderr


def test_tombstoned_statement_is_not_queued_again(file_key, claude_project: Path) -> None:
    (claude_project / "s-1.jsonl").write_bytes(session_bytes(STATEMENTS, session="s-1"))
    assert memvet("daemon", "run", "--once").returncode == 0
    store = open_store(schema="never")
    try:
        first = pending(store)
        assert first, "the pipeline found no statement in the test session"
        reader = store.reader_for(None, all_scopes=True)
        rejected = store.list_candidates(reader, QueueFilter(statuses=("pending",)))[0]
        store.reject(rejected.id, actor="operator", reason="not true")
    finally:
        store.close()
    (claude_project / "s-2.jsonl").write_bytes(session_bytes(STATEMENTS, session="s-2"))
    assert memvet("daemon", "run", "--once").returncode == 0
    store = open_store(schema="never")
    try:
        after = pending(store)
        assert rejected.statement not in after
        assert all(after[s] == 2 for s in after)  # the others merged: seen in both sessions
        tomb = [t for t in store.list_tombstones() if t.source_id == rejected.id]
        assert tomb and tomb[0].seen_again >= 1
    finally:
        store.close()


def copy_fixtures(shared: Path) -> list[Path]:
    """Both hosts' real transcripts, laid out as the hosts lay them out (never into the repo)."""
    src = shared / "fixtures" / "transcripts"
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    sessions = Path(os.environ["CODEX_HOME"]) / "sessions" / "2026" / "02" / "23"
    copied = []
    for file in sorted(src.rglob("*.jsonl")):
        parts = file.relative_to(src).parts
        if parts[0] == "claude-code":
            rel = parts[1:]
            rel = rel[1:] if len(rel) == 3 else rel  # <source>/<project>/<file> → <project>/<file>
            dest = projects.joinpath(*rel)
        else:
            name = parts[-1] if parts[-1].startswith("rollout-") else f"rollout-{parts[-1]}"
            dest = sessions / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, dest)
        copied.append(dest)
    return copied


def test_real_fixtures_of_both_hosts(file_key, shared_dir: Path) -> None:
    copied = copy_fixtures(shared_dir)
    assert len(copied) >= 10
    done = memvet("daemon", "run", "--once")
    assert done.returncode == 0, done.stderr
    stats = json.loads((memvet_home() / "run" / "daemon-stats.json").read_text())["stats"]
    assert stats["lines"] == sum(p.read_bytes().count(b"\n") for p in copied)
    assert not {"unreadable", "pipeline_error", "not_regular_file"} & set(stats["skipped"])
    store = open_store(schema="never")
    try:
        checkpoints = {cp.path: cp for cp in store.all_checkpoints()}
        for path in copied:
            cp = checkpoints[str(path)]
            assert cp.offset == path.stat().st_size
            assert cp.host == ("codex" if "/sessions/" in str(path) else "claude-code")
    finally:
        store.close()


def claude_assistant(text: str) -> bytes:
    return (
        json.dumps(
            {
                "type": "assistant",
                "sessionId": "s-1",
                "cwd": "/home/dana/src/app",
                "uuid": "a-1",
                "timestamp": "2026-03-01T09:00:02.000Z",
                "message": {
                    "id": "msg_1",
                    "role": "assistant",
                    "model": "claude",
                    "content": [{"type": "text", "text": text}],
                },
            }
        ).encode()
        + b"\n"
    )


def test_selective_mode_commits_only_explicit_statements_above_threshold(
    file_key, claude_project: Path
) -> None:
    from memvet.daemon.extraction.rules import load_rules
    from memvet.daemon.pipeline import FilePipeline

    # The threshold sits just under the surest statement's confidence, as extraction scores it
    # now: exactly that one may be committed, the others must stay in the queue.
    confidence = {}
    for text in STATEMENTS:
        drafts = FilePipeline("claude-code", "/t.jsonl", rules=load_rules(), user="u").feed(
            claude_user(text), 1
        )
        confidence[text] = max(d.confidence for d in drafts)
    surest = max(confidence, key=confidence.__getitem__)
    threshold = round(confidence[surest] - 0.0005, 4)
    assert sorted(confidence.values())[-2] < threshold, "two statements tie: pick others"
    home = memvet_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "policy.toml").write_text(f'mode = "selective"\nselective_threshold = {threshold}\n')
    s = ClaudeSession()  # chained as the host writes it: selective mode checks (issue 9)
    (claude_project / "s-1.jsonl").write_bytes(
        b"".join(s.prompt(text) for text in STATEMENTS)
        + claude_assistant("We always use Docker for every service in this repo.")
    )
    assert memvet("daemon", "run", "--once").returncode == 0
    store = open_store(schema="never")
    try:
        reader = store.reader_for(None, all_scopes=True)
        memories = store.list_memories(reader)
        assert [m.statement for m in memories] == [surest]
        assert all(m.approved_by == "policy:selective" for m in memories)
        assert all(m.source_type == "explicit_user" and m.confidence >= threshold for m in memories)
        left = store.list_candidates(reader, QueueFilter(statuses=("pending",)), limit=None)
        assert sorted(c.statement for c in left) == sorted(set(STATEMENTS) - {surest})
        assert all(c.confidence < threshold or c.source_type != "explicit_user" for c in left)
    finally:
        store.close()
