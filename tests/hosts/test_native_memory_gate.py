"""Claude Code's auto memory behind review, and the service environment, with the real host in
one session (the host runs are the suite's cost).

The gate: the model (the stub) writes a memory file with the ordinary Write tool; memvet's
PreToolUse gate denies it, so the folder stays empty, and the entry waits in the review queue as
a model_inference candidate.

The service environment: a service manager starts the daemon without the user's shell, so the
daemon knows only what the unit pins. With CLAUDE_CONFIG_DIR set at `memvet setup` and not in
the shell that runs `service install`, the unit still pins it; the daemon started from the
unit's environment alone queues the live session, and doctor finds its roots equal to the
shell's. (Before the pin, such a daemon watched ~/.claude/projects and queued nothing.)"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.slow

SAID = "Remember: in this project we always use pnpm, never npm."
ENTRY = "Integration tests need the local Postgres from docker compose."
TOPIC = (
    f"---\nname: integration tests\ndescription: what they need\ntype: project\n---\n\n{ENTRY}\n"
)
QUEUE_DEADLINE_S = 90  # the daemon's start and its pickup, on a loaded 2-core machine


def unit_environment(unit: str) -> tuple[list[str], dict[str, str]]:
    argv, env = [], {}
    for line in unit.splitlines():
        if line.startswith("ExecStart="):
            argv = shlex.split(line[len("ExecStart=") :])
        elif line.startswith("Environment="):
            key, _, value = shlex.split(line[len("Environment=") :])[0].partition("=")
            env[key] = value
    return argv, env


def service_daemon(world, recorded: dict[str, str]) -> tuple[subprocess.Popen, dict[str, str]]:
    """`service install` from a shell without the host folder variables (the service manager
    recorded, not called), then the daemon as a user manager starts it: the unit's
    environment and what the manager itself gives a service, nothing of the shell."""
    shell = {k: v for k, v in world.env.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME")}
    installed = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", "service", "install", "--json"],
        env={**shell, "MEMVET_SERVICE_PLATFORM": "systemd", **recorded},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    with open(json.loads(installed.stdout)["unit_path"]) as unit:
        argv, pinned = unit_environment(unit.read())
    manager = {k: world.env[k] for k in ("PATH", "HOME", "LANG", "XDG_RUNTIME_DIR")}
    keyring = {"PYTHON_KEYRING_BACKEND": world.env["PYTHON_KEYRING_BACKEND"]}
    daemon = subprocess.Popen(
        argv,
        env={**manager, **keyring, **pinned},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return daemon, pinned


@pytest.fixture(scope="module")
def played(make_world, model_texts, tmp_path_factory, service_manager) -> dict:
    world = make_world(custom_folders=True)
    facts: dict = {"world": world}
    world.memvet("setup", "claude-code")  # --native-memory gate is the default; records the folder
    slug = str(world.workspace).replace("/", "-")
    facts["memory"] = memory = world.claude_dir / "projects" / slug / "memory"
    log = tmp_path_factory.mktemp("service") / "commands.jsonl"
    recorded = service_manager(log, path=world.env["PATH"])
    daemon, facts["pinned"] = service_daemon(world, recorded)
    try:
        world.stub.script(
            [
                {
                    "when": "always use pnpm",
                    "tool": "Write",
                    "input": {"file_path": str(memory / "integration_tests.md"), "content": TOPIC},
                }
            ]
        )
        requests = world.claude_session(SAID, None, "--allowedTools", "Write")
        world.stub.script([])
        facts["tool_result"] = model_texts("claude-code", requests[-1:])["tool_result"]
        deadline, queued = time.monotonic() + QUEUE_DEADLINE_S, []
        while not queued and time.monotonic() < deadline:
            listed = world.memvet_json("queue", "list", check=False).get("candidates", [])
            queued = [c for c in listed if c["statement"] == SAID]
            if not queued:
                time.sleep(0.5)
        facts["queued_by_daemon"] = queued
        facts["doctor"] = {c["name"]: c for c in world.memvet_json("doctor", check=False)["checks"]}
    finally:
        daemon.terminate()  # by its pid: the one daemon this module started
        daemon.wait(20)
    facts["queue"] = world.memvet_json("queue", "list")["candidates"]
    facts["log"] = (world.memvet_home / "logs" / "hook.log").read_text()
    world.memvet("setup", "claude-code", "--uninstall")
    settings = world.claude_dir / "settings.json"
    facts["settings_after"] = json.loads(settings.read_text()) if settings.exists() else {}
    return facts


def test_a_memory_write_is_denied_and_queued(played):
    world = played["world"]
    assert not any(played["memory"].glob("*.md")), "the gate let the write through"
    assert "queued in memvet for review" in played["tool_result"]  # what the model was told
    [candidate] = [c for c in played["queue"] if c["statement"] == ENTRY]
    assert candidate["source_type"] == "model_inference" and candidate["status"] == "pending"
    assert candidate["origin"] == "Claude Code auto memory"
    assert candidate["scope"]["workspace"] == str(world.workspace)
    shown = json.dumps(world.memvet_json("queue", "show", candidate["id"]))
    assert "agent: main" in shown
    assert "pre-tool-use path=gate outcome=denied" in played["log"]
    assert "PreToolUse" not in played["settings_after"].get("hooks", {})  # uninstall took it out


def test_the_service_daemon_queues_the_live_session(played):
    assert played["pinned"]["CLAUDE_CONFIG_DIR"] == str(played["world"].claude_dir)
    queued = played["queued_by_daemon"]
    assert queued and queued[0]["host"] == "claude-code", "the service daemon queued nothing"
    roots = played["doctor"]["daemon.roots claude-code"]
    assert roots["level"] == "ok", roots
