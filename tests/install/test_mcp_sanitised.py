"""Issue 9: MCP `memory_propose` goes through the store's admission gate like every write: an
AWS key pair and a GitHub token are never stored verbatim. A real MCP client over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from memvet.store import open_store
from memvet.store.candidates import QueueFilter
from memvet.store.paths import memvet_home

pytestmark = pytest.mark.slow

AWS_ID, AWS_SECRET = "AKIA2E0A8F3B244C9986", "Zk3v9QmB2xR7tL5pW8nY4cH6jD1sF0gA3eU7iO2q"
GH_TOKEN = "ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8"


async def test_memory_propose_is_redacted_and_stripped(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    ws = tmp_path / "repo"
    (ws / ".git").mkdir(parents=True)
    open_store().close()
    (memvet_home() / "config.toml").write_text("[mcp]\nwriteback = true\n")
    statement = (
        f"Deploy with AWS key {AWS_ID} {AWS_SECRET} and token {GH_TOKEN}, "
        "\x1b[31mnever by hand\x1b[0m"
    )
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memvet.install.launcher", "mcp"],
        env=dict(os.environ),
        cwd=str(ws),
    )
    async with Client(params, read_timeout_seconds=60) as client:
        res = await client.call_tool(
            "memory_propose", {"statement": statement, "kind": "procedure"}
        )
        assert not res.is_error, res
    store = open_store(schema="never")
    try:
        [cand] = store.list_candidates(
            store.reader_for(None, all_scopes=True), QueueFilter(statuses=("pending",))
        )
    finally:
        store.close()
    assert (
        "[REDACTED:aws-access-key]" in cand.statement
        and "[REDACTED:github-token]" in cand.statement
    )
    assert "\x1b" not in cand.statement and cand.statement.endswith("never by hand")
    for name in ("memvet.db", "memvet.db-wal"):
        path = memvet_home() / name
        data = path.read_bytes() if path.exists() else b""
        assert not any(s.encode() in data for s in (AWS_ID, AWS_SECRET, GH_TOKEN))
    for secret in (AWS_ID, AWS_SECRET, GH_TOKEN):
        assert secret not in cand.statement
