"""The store's CLI twins as subprocesses: JSON shapes and exit codes of interfaces.md, and
planted strings that must never reach the database bytes, its WAL or any log."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from memvet.install.launcher import main

PLANTED = "zebra-quartz-7731 lives in the vault"
PLANTED_PATH = "/home/dana/src/project-obsidian-heron"


def memvet(*args: str) -> subprocess.CompletedProcess:
    """A real `memvet` process (slow: each pays the imports); used where the process matters."""
    return subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=120,
    )


def in_process(*args: str) -> subprocess.CompletedProcess:
    """The same command line through the launcher's main() in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def run_json(*args: str, code: int = 0, real: bool = False) -> dict:
    proc = (memvet if real else in_process)(*args, "--json")
    assert proc.returncode == code, proc.stderr + proc.stdout
    return json.loads(proc.stdout)


def test_propose_approve_list_as_interfaces_md_says(tmp_path):
    ws = tmp_path / "repo"
    (ws / ".git").mkdir(parents=True)
    (ws / "sub").mkdir()
    out = run_json("propose", "we use uv here", "--kind", "preference", "--cwd", str(ws / "sub"))
    assert out["status"] == "pending" and isinstance(out["id"], str)
    dup = run_json("propose", "We use uv here.", "--kind", "preference", "--cwd", str(ws), code=1)
    assert dup["error"]["code"] == "duplicate"
    listed = run_json("queue", "list")["candidates"]
    assert [c["id"] for c in listed] == [out["id"]]
    assert set(listed[0]) >= {
        "id",
        "status",
        "statement",
        "kind",
        "source_type",
        "host",
        "scope",
        "confidence",
        "evidence_count",
        "created_at",
    }
    assert listed[0]["scope"]["workspace"] == str(ws) and listed[0]["evidence_count"] == 2
    approved = run_json("queue", "approve", out["id"])["results"]
    assert approved[0]["status"] == "committed" and approved[0]["memory_id"]
    again = run_json("queue", "approve", out["id"], code=1)["results"][0]
    assert again["error"] and again["status"] == "committed"
    memories = run_json("memories", "list", "--cwd", str(ws))["memories"]
    assert [m["statement"] for m in memories] == ["we use uv here"]
    assert set(memories[0]) >= {
        "id",
        "statement",
        "kind",
        "status",
        "scope",
        "source_type",
        "candidate_id",
        "valid_from",
        "valid_to",
        "recorded_at",
    }
    assert run_json("memories", "list", "--cwd", str(tmp_path))["memories"] == []
    mid = memories[0]["id"]
    assert run_json("memories", "false-write", mid, "--reason", "wrong")["status"] == "retired"
    tomb = run_json("propose", "we use uv here", "--kind", "preference", "--cwd", str(ws), code=1)
    assert tomb["error"]["code"] == "tombstoned"
    assert run_json("audit", "verify")["ok"] is True


def test_reject_recover_and_errors(tmp_path):
    cid = run_json("propose", "never run terraform apply", "--kind", "constraint", "--global")["id"]
    rejected = run_json("queue", "reject", cid, "--reason", "not a rule")["results"]
    assert rejected == [{"id": cid, "status": "rejected"}]
    assert run_json("queue", "show", "c_nope", code=1)["error"]["code"] == "not_found"
    recovered = run_json("queue", "recover", cid, "--commit", code=1)["results"][0]
    assert "stale" in recovered["error"]
    usage = in_process("queue", "recover", cid)
    assert usage.returncode == 2 and "commit" in usage.stderr
    bad_time = run_json("memories", "list", "--as-of", "yesterday", code=2)
    assert bad_time["error"]["code"] == "usage"


def test_key_status_and_rotate(monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    run_json("propose", "we deploy with make release", "--global")  # `key` never creates a store
    status = run_json("key", "status")
    assert status["provider"] == "file" and status["warning"]
    assert run_json("key", "rotate")["kek_version"] == 2
    assert run_json("key", "status")["kek_version"] == 2


def test_missing_key_exits_3_with_the_provider_named(tmp_path):
    run_json("propose", "ship on green only", "--global", real=True)
    key = Path(os.environ["MEMVET_HOME"]) / "keys" / "kek-v1"
    key.unlink()
    out = run_json("queue", "list", code=3, real=True)
    assert out["error"]["code"] == "key_missing" and "file" in out["error"]["message"]


def test_planted_statement_and_path_never_reach_the_database_wal_or_logs(tmp_path):
    ws = Path(PLANTED_PATH)
    cid = run_json("propose", PLANTED, "--kind", "fact", "--cwd", str(ws), real=True)["id"]
    run_json("queue", "approve", cid, real=True)
    run_json("propose", PLANTED + " too", "--kind", "fact", "--cwd", str(ws), real=True)
    home = Path(os.environ["MEMVET_HOME"])
    files = [p for p in home.rglob("*") if p.is_file() and "keys" not in p.parts]
    assert any(p.name == "memvet.db" for p in files)
    for path in files:
        data = path.read_bytes()
        for needle in (PLANTED, "zebra-quartz", PLANTED_PATH, "obsidian-heron"):
            assert needle.encode() not in data, f"{needle!r} found in {path.name}"
            assert needle.encode("utf-16-le") not in data
    listed = run_json("memories", "list", "--cwd", str(ws), real=True)["memories"]
    assert listed[0]["statement"] == PLANTED  # and yet it reads back with the key
