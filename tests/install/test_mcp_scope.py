"""Issue 9: the MCP server reads only the workspace the host started it in (its cwd, or the
roots the client announces). A tool's `cwd` may narrow inside it; anything else — another
project, a parent folder, a symlink out — is a tool error naming the rule. And a statement the
user rejected does not come back through `memory_propose`. Real client, real server over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import ListRootsResult, Root
from memvet.store import CandidateDraft, QueueFilter, Scope, open_store

pytestmark = pytest.mark.slow

SECRET_B = "Project B ships with Heroku"


@pytest.fixture
def two_projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    a, b = tmp_path / "a", tmp_path / "b"
    for ws in (a, b):
        (ws / ".git").mkdir(parents=True)
    (a / "src").mkdir()
    (a / "escape").symlink_to(b)
    store = open_store()
    for statement, ws in (("Project A runs on Fly", a), (SECRET_B, b)):
        draft = CandidateDraft(
            statement=statement,
            kind="fact",
            source_type="explicit_user",
            scope=Scope(user=store.user, workspace=str(ws)),
        )
        store.approve(store.admit(draft).candidate_id, actor="test")
    yield store, a, b
    store.close()


def _client(cwd: Path, roots: list[Path] | None = None) -> Client:
    extra = {}
    if roots is not None:

        async def announce(_context):  # noqa: ANN001, ANN202
            return ListRootsResult(roots=[Root(uri=p.as_uri()) for p in roots])

        # Roots are a handshake-era feature (what Claude Code and Codex speak today); the
        # 2026 protocol has no server-to-client requests, and the server keeps its cwd there.
        extra = {"list_roots_callback": announce, "mode": "legacy"}
    return Client(
        StdioServerParameters(
            command=sys.executable,
            args=["-m", "memvet.install.launcher", "mcp"],
            env=dict(os.environ),
            cwd=str(cwd),
        ),
        read_timeout_seconds=60,
        **extra,
    )


def _text(result) -> str:  # noqa: ANN001
    return " ".join(getattr(c, "text", "") for c in result.content)


async def test_a_cwd_outside_the_servers_workspace_is_refused(two_projects):
    _, a, b = two_projects
    async with _client(a) as client:
        for outside in (str(b), str(a.parent), str(a / "escape"), "../b"):
            for tool, args in (("memory_list", {}), ("memory_recall", {"query": "heroku"})):
                res = await client.call_tool(tool, {**args, "cwd": outside})
                assert res.is_error, (tool, outside)
                assert "only narrow the scope inside the workspace" in _text(res)
                assert SECRET_B not in _text(res)
        inside = await client.call_tool("memory_list", {"cwd": str(a / "src")})
        assert not inside.is_error
        assert [m["statement"] for m in inside.structured_content["memories"]] == [
            "Project A runs on Fly"
        ]
        relative = await client.call_tool(
            "memory_recall", {"query": "where does it run", "cwd": "src"}
        )
        assert not relative.is_error


async def test_the_client_roots_are_the_scope(two_projects):
    _, a, b = two_projects
    # Started in A but the client announces B as its root: B is what it may read.
    async with _client(a, roots=[b]) as client:
        listed = await client.call_tool("memory_list", {})
        assert [m["statement"] for m in listed.structured_content["memories"]] == [SECRET_B]
        res = await client.call_tool("memory_list", {"cwd": str(a)})
        assert res.is_error and "only narrow" in _text(res)


async def test_memory_propose_does_not_bring_back_a_rejected_statement(two_projects):
    store, a, _ = two_projects
    Path(os.environ["MEMVET_HOME"], "config.toml").write_text("[mcp]\nwriteback = true\n")
    cid = store.admit(
        CandidateDraft(
            statement="We deploy on Fridays",
            kind="decision",
            source_type="operator",
            scope=Scope(user=store.user, workspace=str(a)),
        )
    ).candidate_id
    store.reject(cid, actor="test")
    async with _client(a) as client:
        for args in ({}, {"global_scope": True}, {"kind": "constraint"}):
            res = await client.call_tool(
                "memory_propose", {"statement": "We deploy on Fridаys。", **args}
            )
            assert not res.is_error
            assert res.structured_content["outcome"] == "tombstoned", args
        outside = await client.call_tool(
            "memory_propose", {"statement": "x is y", "cwd": str(a.parent)}
        )
        assert outside.is_error
    assert (
        store.list_candidates(
            store.reader_for(None, all_scopes=True), QueueFilter(statuses=("pending",))
        )
        == []
    )
