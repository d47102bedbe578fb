"""Issue 14: a memory approved before a redaction rule existed must not leak once it exists.
Stored here with redaction switched off (as an older memvet would have stored it), then served:
the MCP tools and the daemon's hook answers redact it again with today's rules."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from memvet.store import CandidateDraft, Scope, open_store
from memvet.store.redaction.served import recheck, rechecked
from store_internals import engine_of

pytestmark = pytest.mark.slow
TOKEN = (
    "xoxo-5820348523-5820348524-5820348525-4f9a2b7c1d3e"  # Slack legacy: a rule memvet once lacked
)
STATEMENT = f"We always post deploy notices with the Slack token {TOKEN} in this repo."


def _store_unredacted(workspace: Path, monkeypatch) -> None:
    """The memory as an older memvet stored it, in a store that says so: swept last with an
    older rule set (the daemon's sweep has not run since the upgrade)."""
    import memvet.store.redaction as redaction

    with monkeypatch.context() as patch:
        patch.setattr(redaction, "redact", lambda text: redaction.RedactionResult(text, 0, ()))
        _approve_unredacted(workspace)
    _record_ruleset("gitleaks-older+memvet-1")


def _record_ruleset(version: str) -> None:
    import sqlalchemy as sa

    store = open_store()
    try:
        with engine_of(store).begin() as conn:
            conn.execute(
                sa.text("UPDATE store_meta SET value = :v WHERE key = 'redaction_ruleset'"),
                {"v": version},
            )
    finally:
        store.close()


def _approve_unredacted(workspace: Path) -> None:
    store = open_store()
    try:
        result = store.admit(
            CandidateDraft(
                statement=STATEMENT,
                kind="procedure",
                source_type="explicit_user",
                scope=Scope(user=getpass.getuser(), workspace=str(workspace), agent="claude-code"),
            ),
            actor="test",
        )
        store.approve(result.candidate_id, actor="test")
        [memory] = store.list_memories(store.reader_for(str(workspace)))
        assert TOKEN in memory.statement  # stored as an older version would have
    finally:
        store.close()


async def test_mcp_serves_old_memories_redacted_with_todays_rules(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    _store_unredacted(workspace, monkeypatch)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memvet.install.launcher", "mcp"],
        env={**os.environ, "MEMVET_KEY_PROVIDER": "file"},
        cwd=str(workspace),
    )
    async with Client(params, read_timeout_seconds=60) as client:
        listed = (await client.call_tool("memory_list", {})).structured_content
        recalled = await client.call_tool(
            "memory_recall", {"query": "how do we post deploy notices"}
        )
    shown = [m["statement"] for m in listed["memories"]]
    assert shown and all(TOKEN not in s and "[REDACTED:" in s for s in shown), shown
    assert TOKEN not in repr(recalled.structured_content) + repr(recalled.content)


def test_served_documents_are_redacted_again_field_by_field() -> None:
    document = {
        "memories": [
            {"id": "m_1", "statement": STATEMENT, "usage_boundary": None, "kind": "procedure"}
        ],
        "total": 1,
    }
    again = rechecked(document)
    assert (
        TOKEN not in again["memories"][0]["statement"]
        and "[REDACTED:" in again["memories"][0]["statement"]
    )
    assert again["memories"][0]["id"] == "m_1" and again["total"] == 1 and recheck(None) is None


def test_the_no_daemon_hook_rechecks_until_the_sweep_has_run(tmp_path: Path, monkeypatch) -> None:
    """The hook without a daemon compares the store's recorded rule-set version with its own:
    an older one (the sweep has not run yet) means it redacts what it serves."""
    import json
    import subprocess

    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    _store_unredacted(workspace, monkeypatch)
    payload = json.dumps(
        {
            "session_id": "s-1",
            "cwd": str(workspace),
            "source": "startup",
            "hook_event_name": "SessionStart",
        }
    )
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", "hook", "claude-code", "session-start"],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=workspace,
        env={**os.environ, "MEMVET_HOOK_DAEMON": "off", "MEMVET_KEY_PROVIDER": "file"},
    )
    assert "deploy notices" in done.stdout, done.stdout + done.stderr  # the memory is served …
    assert TOKEN not in done.stdout and "[REDACTED:" in done.stdout  # … redacted with today's rules


@pytest.mark.parametrize("route", ["direct", "store", "daemon"])
def test_recall_prints_old_memories_redacted_with_todays_rules(
    tmp_path: Path, monkeypatch, route: str
) -> None:
    """`memvet recall --json` on each of its routes: its own sqlite3 path, the Store's (asked
    about the store as recorded now), and the daemon's reply (store/recall_route.py)."""
    import json
    import subprocess
    from datetime import UTC, datetime

    from memvet.store import recall_route
    from memvet.store.daemon_ask import installed_version

    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    _store_unredacted(workspace, monkeypatch)
    question = "how do we post deploy notices"
    if route == "daemon":
        request = {"query": question, "workspace": str(workspace), "as_of": None}
        body = json.dumps({**request, "user": getpass.getuser()}).encode()
        head = b"MVR1 " + installed_version().encode() + b"\n"
        reply = recall_route.answer(head + body, os.environ["MEMVET_HOME"], getpass.getuser())
        assert reply.startswith(b"OK\n"), reply[:40]
        printed = reply.decode()
    else:
        later = ["--recorded-as-of", datetime.now(UTC).isoformat()] if route == "store" else []
        done = subprocess.run(
            [sys.executable, "-m", "memvet.install.launcher", "recall", question, "--json", *later],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=workspace,
            env={**os.environ, "MEMVET_KEY_PROVIDER": "file"},
        )
        assert done.returncode == 0, done.stderr
        printed = done.stdout
    assert "deploy notices" in printed, printed  # the memory is recalled …
    assert TOKEN not in printed and "[REDACTED:" in printed  # … redacted with today's rules


def test_recall_on_a_swept_store_does_not_load_the_redactor(tmp_path: Path, monkeypatch) -> None:
    """Issue 15: `memvet recall` in its own process redacts again only while the store is swept
    with older rules than today's (the no-daemon hook's rule); once the sweep has recorded
    today's, its text already is, and the command imports none of the redactor."""
    import json
    import subprocess

    from memvet.store.redaction_version import RULESET_VERSION

    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    _store_unredacted(workspace, monkeypatch)
    script = """
import contextlib, io, json, sys
from memvet.install.launcher import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["recall", "how do we post deploy notices", "--json"])
print(json.dumps([code, out.getvalue(), sorted(m for m in sys.modules
                                                if m.split(".")[:3] == ["memvet", "store", "redaction"])]))
"""

    def ask() -> tuple[int, str, list[str]]:
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=workspace,
            env={**os.environ, "MEMVET_KEY_PROVIDER": "file"},
        )
        assert done.returncode == 0, done.stderr
        return tuple(json.loads(done.stdout))  # type: ignore[return-value]

    code, printed, loaded = ask()  # not swept yet: redacted again, so the check can see it
    assert code == 0 and "[REDACTED:" in printed and TOKEN not in printed
    assert "memvet.store.redaction.served" in loaded
    _record_ruleset(RULESET_VERSION)  # the daemon's sweep has run with today's rules
    code, printed, loaded = ask()
    assert code == 0 and "deploy notices" in printed and loaded == []
