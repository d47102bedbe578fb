"""Claude Code's auto memory behind review, with the real host: the model (the stub) writes a
memory file with the ordinary Write tool; memvet's PreToolUse gate denies it, so the folder
stays empty, and the entry waits in the review queue as a model_inference candidate."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow

ENTRY = "Integration tests need the local Postgres from docker compose."
TOPIC = (
    f"---\nname: integration tests\ndescription: what they need\ntype: project\n---\n\n{ENTRY}\n"
)


def test_a_memory_write_is_denied_and_queued(make_world, model_texts):
    world = make_world(custom_folders=True)
    world.memvet("setup", "claude-code")  # --native-memory gate is the default
    slug = str(world.workspace).replace("/", "-")
    memory = world.claude_dir / "projects" / slug / "memory"
    world.stub.script(
        [
            {
                "when": "remember-this",
                "tool": "Write",
                "input": {"file_path": str(memory / "integration_tests.md"), "content": TOPIC},
            }
        ]
    )
    requests = world.claude_session(
        "remember-this: integration tests need Postgres", None, "--allowedTools", "Write"
    )
    world.stub.script([])
    assert not any(memory.glob("*.md")), "the gate let the write through"
    result = model_texts("claude-code", requests[-1:])["tool_result"]
    assert "queued in memvet for review" in result  # what the model was told
    [candidate] = [
        c for c in world.memvet_json("queue", "list")["candidates"] if c["statement"] == ENTRY
    ]
    assert candidate["source_type"] == "model_inference" and candidate["status"] == "pending"
    assert candidate["origin"] == "Claude Code auto memory"
    assert candidate["scope"]["workspace"] == str(world.workspace)
    shown = json.dumps(world.memvet_json("queue", "show", candidate["id"]))
    assert "agent: main" in shown
    log = (world.memvet_home / "logs" / "hook.log").read_text()
    assert "pre-tool-use path=gate outcome=denied" in log
    world.memvet("setup", "claude-code", "--uninstall")
    settings = (
        json.loads((world.claude_dir / "settings.json").read_text())
        if (world.claude_dir / "settings.json").exists()
        else {}
    )
    assert "PreToolUse" not in settings.get("hooks", {})
