"""Issue 9: the host-facing readers on a missing store. The MCP read tools and both hosts' hooks
say "no store yet" (a tool error; the hook: nothing, a code in hook.log) and create no store and
no key; only `memory_propose` (like `memvet propose`) creates one, at the current schema. Real
MCP client and server over stdio, real hook processes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.slow

LAUNCHER = [sys.executable, "-m", "memvet.install.launcher"]


def _home() -> Path:
    return Path(os.environ["MEMVET_HOME"])


def _server(cwd: Path) -> Client:
    return Client(
        StdioServerParameters(
            command=LAUNCHER[0], args=[*LAUNCHER[1:], "mcp"], env=dict(os.environ), cwd=str(cwd)
        ),
        read_timeout_seconds=60,
    )


def _text(result) -> str:  # noqa: ANN001
    return " ".join(getattr(c, "text", "") for c in result.content)


def _written(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.fixture
def project(tmp_path: Path) -> Path:
    ws = tmp_path / "project"
    (ws / ".git").mkdir(parents=True)
    return ws


async def test_mcp_read_tools_on_a_missing_store_say_so_and_write_nothing(project: Path):
    async with _server(project) as client:
        for tool, args in (
            ("memory_list", {}),
            ("memory_recall", {"query": "how do we deploy"}),
            ("memory_status", {}),
        ):
            res = await client.call_tool(tool, args)
            assert res.is_error, tool
            assert "no store yet" in _text(res), (tool, _text(res))
    assert _written(_home()) == []


async def test_mcp_propose_creates_the_store_and_the_readers_then_work(project: Path):
    from memvet.store.engine import create_store_engine
    from memvet.store.migrations import SCHEMA_VERSION
    from memvet.store.schema import current_version

    _home().mkdir()
    (_home() / "config.toml").write_text("[mcp]\nwriteback = true\n")
    async with _server(project) as client:
        res = await client.call_tool("memory_status", {})
        assert res.is_error and "no store yet" in _text(res)
        assert not (_home() / "memvet.db").exists()
        res = await client.call_tool("memory_propose", {"statement": "We deploy with Fly"})
        assert not res.is_error, _text(res)
        assert res.structured_content["status"] == "pending"
        res = await client.call_tool("memory_status", {})
        assert not res.is_error, _text(res)
        assert res.structured_content["queue_counts"]["pending"] == 1
    db = _home() / "memvet.db"
    assert current_version(create_store_engine(db)) == SCHEMA_VERSION
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "host,event,payload",
    [
        ("claude-code", "session-start", {"hook_event_name": "SessionStart", "source": "startup"}),
        (
            "claude-code",
            "user-prompt-submit",
            {"hook_event_name": "UserPromptSubmit", "prompt": "how do we deploy"},
        ),
        ("codex", "session-start", {"hook_event_name": "SessionStart", "source": "startup"}),
        (
            "codex",
            "user-prompt-submit",
            {"hook_event_name": "UserPromptSubmit", "prompt": "how do we deploy"},
        ),
    ],
)
def test_the_hooks_on_a_missing_store_print_nothing_and_make_no_store(
    project: Path, host: str, event: str, payload: dict
):
    body = json.dumps({"session_id": "s1", "cwd": str(project), **payload})
    done = subprocess.run(
        [*LAUNCHER, "hook", host, event],
        input=body,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        env=os.environ.copy(),
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    # Only its own diagnostic line (a code, no user text); no store, no key, a private folder.
    assert _written(_home()) == ["logs", "logs/hook.log"]
    log = (_home() / "logs" / "hook.log").read_text()
    assert "outcome=no_store" in log and "deploy" not in log
    assert stat.S_IMODE(_home().stat().st_mode) == 0o700
