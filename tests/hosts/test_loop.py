"""The whole loop with the real hosts, in both folder modes (default places, and
CLAUDE_CONFIG_DIR/CODEX_HOME elsewhere): setup, MCP registered, a statement typed in session 1
lands in the host's transcript and in the queue, approval, and in session 2 it reaches the model
from both hooks — in the other host on the same workspace too — and over MCP, never in another
workspace; uninstall restores the files.

One module-scoped run plays the loop in both modes at the same time, each host's independent
steps side by side (the host runs are the cost: ≈ 8 s each); the tests below read what it
recorded."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from memvet.store import context_pack as cp

# The module fixture plays every host run inside the first test's timeout.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

SAID = {  # what the user types in session 1, per host
    "claude-code": "Remember: in this project we always use pnpm, never npm.",
    "codex": "Remember: deploys of this service go through fastlane, never by hand.",
}
ASK = "Do deploys of this service go through fastlane, never by hand? recall-check"
RECALL = {
    "when": "recall-check",
    "api": "messages",
    "tool": "mcp__memvet__memory_recall",
    "input": {"query": "which package manager do we use"},
}
# Codex defers MCP tools behind its BM25 tool_search: the stub searches with words a model
# would use (none of them in the tool's name) and calls what the search found.
RECALL_CODEX = {
    "when": "recall-check",
    "api": "responses",
    "search": "remember conventions",
    "namespace": "mcp__memvet",
    "tool": "memory_recall",
    "input": RECALL["input"],
}


def one_line_budget() -> int:
    """A session-start budget with room for exactly one of the two memories: the other must
    then come from the prompt hook, so one session shows both hooks."""
    longest = max(len(f"- [constraint] {s}\n".encode()) for s in SAID.values())
    fixed = len(cp.HEADERS["session-start"].encode()) + 1 + cp.FOOTER_RESERVE
    return (fixed + longest + cp.MIN_ROOM_BYTES) // cp.TOKEN_BYTES + 1


def host_files(world) -> dict[str, Path]:
    return {
        "settings.json": world.claude_dir / "settings.json",
        "hooks.json": world.codex_dir / "hooks.json",
        "config.toml": world.codex_dir / "config.toml",
    }


def read(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


MODES = ("default-folders", "custom-folders")


@pytest.fixture(scope="module")
def loops(make_world, model_texts, both) -> dict[str, dict]:
    """Both folder modes played at the same time (each world has its own stub and folders)."""
    worlds = {mode: make_world(mode == "custom-folders") for mode in MODES}
    with ThreadPoolExecutor(len(MODES)) as pool:
        plays = {
            mode: pool.submit(play, world, mode, model_texts, both)
            for mode, world in worlds.items()
        }
        return {mode: future.result() for mode, future in plays.items()}


@pytest.fixture(scope="module", params=MODES)
def loop(request, loops) -> dict:
    return loops[request.param]


def play(world, mode: str, model_texts, both) -> dict:
    facts: dict = {"world": world, "mode": mode}
    before = {name: read(path) for name, path in host_files(world).items()}
    facts["setup"] = {host: world.memvet_json("setup", host) for host in ("claude-code", "codex")}
    listed = both(
        lambda: world.claude("mcp", "list").stdout, lambda: world.codex("mcp", "list").stdout
    )
    facts["mcp_list"] = dict(zip(("claude-code", "codex"), listed, strict=True))
    both(
        lambda: world.claude_session(SAID["claude-code"]),
        lambda: world.codex_session(SAID["codex"]),
    )
    facts["transcripts"] = {
        "claude-code": "".join(
            p.read_text() for p in (world.claude_dir / "projects").rglob("*.jsonl")
        ),
        "codex": "".join(p.read_text() for p in (world.codex_dir / "sessions").rglob("*.jsonl")),
    }
    facts["extract"] = {
        host: world.memvet_json("extract", "--host", host, *map(str, files))["stats"]
        for host, files in (
            ("claude-code", (world.claude_dir / "projects").rglob("*.jsonl")),
            ("codex", (world.codex_dir / "sessions").rglob("*.jsonl")),
        )
    }
    world.memvet("daemon", "run", "--once")
    facts["queue"] = world.memvet_json("queue", "list")["candidates"]
    # Approved one after the other, Claude Code's last: the newest ranks first, so the one-line
    # session-start budget holds it and the prompt (about the other) needs the prompt hook.
    for host in ("codex", "claude-code"):
        for candidate in facts["queue"]:
            if candidate["statement"] == SAID[host]:
                world.memvet("queue", "approve", candidate["id"], "--cwd", str(world.workspace))
    (world.memvet_home / "config.toml").write_text(
        f"[hook]\nsession_start_tokens = {one_line_budget()}\n"
    )
    facts["hook_log_mark"] = len((world.memvet_home / "logs" / "hook.log").read_text().splitlines())
    world.stub.script([RECALL, RECALL_CODEX])
    allow_recall = ("--allowedTools", RECALL["tool"])  # -p mode asks no one: allow it up front
    # The last request of a session holds the whole conversation, hook context included.
    claude2, codex2 = both(
        lambda: world.claude_session(ASK, None, *allow_recall, wait_for_mcp=True),
        lambda: world.codex_session(ASK),
    )
    facts["session2"] = {
        "claude-code": model_texts("claude-code", claude2[-1:]),
        "codex": model_texts("codex", codex2[-1:]),
    }
    world.stub.script([])
    facts["hook_log"] = (world.memvet_home / "logs" / "hook.log").read_text().splitlines()
    claude_other, codex_other = both(
        lambda: world.claude_session(ASK, world.other),
        lambda: world.codex_session(ASK, world.other),
    )
    facts["other"] = {
        "claude-code": model_texts("claude-code", claude_other),
        "codex": model_texts("codex", codex_other),
    }
    facts["claude_state_before_uninstall"] = json.loads(state_path(world).read_text())
    for host in ("claude-code", "codex"):
        world.memvet("setup", host, "--uninstall")
    facts["before"], facts["after"] = before, {n: read(p) for n, p in host_files(world).items()}
    facts["claude_state_after"] = json.loads(state_path(world).read_text())
    return facts


def state_path(world) -> Path:
    """Where Claude Code keeps user-scope MCP servers for this world's folder mode."""
    return (
        world.claude_dir / ".claude.json"
        if "CLAUDE_CONFIG_DIR" in world.env
        else world.home / ".claude.json"
    )


def test_setup_registers_mcp_in_both_hosts(loop):
    assert all(loop["setup"][host]["changed"] for host in ("claude-code", "codex"))
    assert "memvet" in loop["mcp_list"]["claude-code"]
    assert "Connected" in loop["mcp_list"]["claude-code"].split("memvet", 1)[1].splitlines()[0]
    assert "memvet" in loop["mcp_list"]["codex"]


def test_claude_code_reads_mcp_from_the_file_setup_wrote(loop):
    assert "memvet" in loop["claude_state_before_uninstall"].get("mcpServers", {})


def test_session_one_lands_in_transcript_and_queue(loop):
    for host, said in SAID.items():
        assert json.dumps(said)[1:-1] in loop["transcripts"][host], host
        queued = [c for c in loop["queue"] if c["statement"] == said]
        assert queued and queued[0]["host"] == host and queued[0]["status"] == "pending", host


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_every_line_type_of_a_real_transcript_is_known(loop, host):
    stats = loop["extract"][host]
    assert stats["lines"] > 0 and stats["host_versions"]
    assert stats["skipped_by_reason"].get("unknown_type", 0) == 0, stats["skipped_by_reason"]


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_session_two_gets_both_memories_from_both_hooks(loop, host):
    seen = loop["session2"][host]
    where = "system" if host == "claude-code" else "developer"  # hook context's place
    assert all(said in seen[where] for said in SAID.values()), seen[where][-1500:]
    starts = [line for line in loop["hook_log"][loop["hook_log_mark"] :] if f" {host} " in line]
    outcomes = {line.split()[2]: line.split()[4] for line in starts}
    assert outcomes == {"session-start": "outcome=context", "user-prompt-submit": "outcome=context"}
    header = cp.HEADERS["user-prompt-submit"]
    assert header in seen[where] and cp.HEADERS["session-start"] in seen[where]
    start_part, prompt_part = seen[where].split(header, 1)
    assert sum(s in start_part for s in SAID.values()) == 1  # the budget held one
    assert sum(s in prompt_part for s in SAID.values()) == 1  # the prompt hook added the other


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_the_host_calls_memory_recall_over_mcp(loop, host):
    # Codex: found through its tool_search (the stub's rule), once the server was announced.
    result = loop["session2"][host]["tool_result"]
    assert "VERIFIED" in result and "pnpm" in result, result[-2000:]


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_another_workspace_gets_nothing(loop, host):
    seen = loop["other"][host]
    assert seen, "the host made no model request"
    assert not any(said in text for said in SAID.values() for text in seen.values())


def test_uninstall_restores_the_files(loop):
    assert loop["after"] == loop["before"]
    assert "memvet" not in loop["claude_state_after"].get("mcpServers", {})
