"""`memvet mcp` through the SDK's own client over stdio: the server is a real subprocess."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from memvet.store import CandidateDraft, Scope, open_store
from memvet.store.candidates import QueueFilter

pytestmark = pytest.mark.slow


@pytest.fixture
def workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    a, b = tmp_path / "a", tmp_path / "b"
    for ws in (a, b):
        (ws / ".git").mkdir(parents=True)
    store = open_store()
    for statement, ws, polarity in (
        ("This project does not use Docker", a, "deny"),
        ("Run the tests with pytest -q", a, "assert"),
        ("Project B ships with Heroku", b, "assert"),
        ("Commit messages follow Conventional Commits", None, "assert"),
    ):
        draft = CandidateDraft(
            statement=statement,
            kind="fact",
            source_type="explicit_user",
            polarity=polarity,
            scope=Scope(user=store.user, workspace=ws and str(ws)),
        )
        store.approve(store.admit(draft).candidate_id, actor="test")
    yield store, a, b
    store.close()


def _server(cwd: Path) -> Client:
    return Client(
        StdioServerParameters(
            command=sys.executable,
            args=["-m", "memvet.install.launcher", "mcp"],
            env=dict(os.environ),
            cwd=str(cwd),
        ),
        read_timeout_seconds=60,
    )


async def test_read_only_round_trip(workspaces):
    store, a, b = workspaces
    async with _server(a) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"memory_recall", "memory_list", "memory_status"}
        assert all(t.annotations.read_only_hint for t in tools.values())

        res = await client.call_tool("memory_recall", {"query": "do we use docker?"})
        assert not res.is_error
        assert res.structured_content["state"] == "VERIFIED_NEGATIVE"
        assert {"state", "reason_code", "missing_conditions", "memories", "contradictions"} <= set(
            res.structured_content
        )
        res = await client.call_tool("memory_recall", {"query": "how does it ship with heroku"})
        assert res.structured_content["reason_code"] == "insufficient_evidence"  # B is not here
        res = await client.call_tool("memory_recall", {"query": "ship with heroku", "cwd": str(b)})
        assert res.is_error  # another workspace: see test_mcp_scope.py

        listed = (await client.call_tool("memory_list", {})).structured_content
        statements = [m["statement"] for m in listed["memories"]]
        assert len(statements) == 3 and not any("Heroku" in s for s in statements)

        status = (await client.call_tool("memory_status", {})).structured_content
        assert status["writeback"] is False and status["memory_counts"] == {"active": 4}

        refused = await client.call_tool("memory_propose", {"statement": "Use tabs"})
        assert refused.is_error
    assert store.count_candidates(store.reader_for(None, all_scopes=True)) == 0


async def test_writeback_queues_a_model_inference_candidate_never_a_memory(workspaces):
    store, a, _ = workspaces
    Path(os.environ["MEMVET_HOME"], "config.toml").write_text("[mcp]\nwriteback = true\n")
    async with _server(a) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "memory_propose" in names
        res = await client.call_tool(
            "memory_propose", {"statement": "The API uses gRPC", "kind": "decision"}
        )
        assert not res.is_error and res.structured_content["status"] == "pending"
        bad = await client.call_tool("memory_propose", {"statement": "x", "kind": "wish"})
        assert bad.is_error
    reader = store.reader_for(str(a))
    [cand] = store.list_candidates(reader, QueueFilter(statuses=("pending",)))
    assert (cand.source_type, cand.statement, cand.scope.workspace) == (
        "model_inference",
        "The API uses gRPC",
        str(a),
    )
    assert store.count_memories(reader) == {"active": 3}  # nothing became a memory
