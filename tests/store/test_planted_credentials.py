"""Issue 14, end to end: credentials memvet makes up itself (one of every shape in
tests/bench/credential_shapes.py, planted in prompts, a pasted .env, a log excerpt and tool
output of a real-shaped Claude Code transcript) never show on a read surface — `extract --json`,
`queue list/show`, `memories list`, `recall`, both hooks of both hosts, the MCP tools, `status`,
`doctor` — nor in any file under MEMVET_HOME (database, WAL, logs, run state). The benchmark
runs all 410 through the redactor; this is the fast subset through everything."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from memvet.store.paths import memvet_home

pytestmark = pytest.mark.slow
SHAPES = Path(__file__).resolve().parents[1] / "bench" / "credential_shapes.py"


def _shapes():  # noqa: ANN202 - the module
    spec = importlib.util.spec_from_file_location("credential_shapes", SHAPES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )


async def _mcp_outputs(workspace: Path) -> list[str]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memvet.install.launcher", "mcp"],
        env=dict(os.environ),
        cwd=str(workspace),
    )
    outputs = []
    async with Client(params, read_timeout_seconds=60) as client:
        for name, arguments in (
            ("memory_list", {}),
            ("memory_status", {}),
            ("memory_recall", {"query": "which credentials do we deploy with"}),
        ):
            result = await client.call_tool(name, arguments)
            outputs.append(json.dumps(result.structured_content) + repr(result.content))
    return outputs


async def test_no_planted_credential_reaches_a_read_surface(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    shapes = _shapes()
    planted = shapes.planted(len(shapes.shapes(random.Random(0))))  # one of every shape
    assert len({shape for shape, *_ in planted}) >= 30
    secrets = [s for *_, parts in planted for s in parts]
    workspace = tmp_path / "app"
    (workspace / ".git").mkdir(parents=True)
    project = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / str(workspace).replace("/", "-")
    project.mkdir(parents=True)
    transcript = project / "session.jsonl"
    transcript.write_text(
        shapes.claude_transcript([text for _, _, text, _ in planted], str(workspace))
    )

    outputs = [
        _run("extract", "--host", "claude-code", str(transcript), "--json", cwd=workspace).stdout
    ]
    assert _run("daemon", "run", "--once", cwd=workspace).returncode == 0
    queue = _run("queue", "list", "--json", cwd=workspace)
    outputs.append(queue.stdout)
    ids = [c["id"] for c in json.loads(queue.stdout)["candidates"]]
    assert len(ids) >= 3, queue.stdout[
        :400
    ]  # prompts with credentials did reach the queue (redacted)
    # The read surfaces are independent processes: run them side by side (the suite's time).
    with ThreadPoolExecutor(4) as pool:
        outputs += pool.map(
            lambda cid: _run("queue", "show", cid, "--json", cwd=workspace).stdout, ids[:3]
        )
    outputs.append(_run("queue", "approve", *ids, "--json", cwd=workspace).stdout)

    def hooks(host: str) -> str:  # session start, then a prompt of the same session
        start = json.dumps(
            {
                "session_id": "s-1",
                "cwd": str(workspace),
                "source": "startup",
                "hook_event_name": "SessionStart",
            }
        )
        prompt = json.dumps(
            {
                "session_id": "s-1",
                "cwd": str(workspace),
                "prompt": "deploy with the token",
                "hook_event_name": "UserPromptSubmit",
            }
        )
        return (
            _run("hook", host, "session-start", cwd=workspace, stdin=start).stdout
            + _run("hook", host, "user-prompt-submit", cwd=workspace, stdin=prompt).stdout
        )

    reads = [
        lambda: _run("memories", "list", "--all-scopes", "--json", cwd=workspace).stdout,
        lambda: (
            _run("recall", "which credentials do we deploy with", "--json", cwd=workspace).stdout
        ),
        lambda: hooks("claude-code"),
        lambda: hooks("codex"),
        lambda: _run("status", "--json", cwd=workspace).stdout,
        lambda: _run("doctor", cwd=workspace).stdout,
    ]
    with ThreadPoolExecutor(4) as pool:
        surfaces = [pool.submit(read) for read in reads]
        outputs += await _mcp_outputs(workspace)
        outputs += [surface.result() for surface in surfaces]
    assert "[REDACTED:" in "".join(outputs)  # the surfaces did show the (redacted) statements
    shown = [
        (secret[:12], i) for i, out in enumerate(outputs) for secret in secrets if secret in out
    ]
    assert not shown, shown
    stored = [
        (path.name, secret[:12])
        for path in memvet_home().rglob("*")
        if path.is_file()
        for secret in secrets
        if secret.encode() in path.read_bytes()
    ]
    assert not stored, stored
