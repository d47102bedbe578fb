"""Codex's hook trust, resume and its own memories with the real host: `codex exec` skips
untrusted hooks without a word; trust recorded the way the TUI records it (keyed by position,
the hash Codex's app server reports) makes them run, and doctor reads it; a resumed session is
not given the pack a second time (Codex keeps the earlier developer message). With `[features]
memories = true` Codex puts its unreviewed memory summary into every session; after setup (a
marked `use_memories = false`) into none."""

from __future__ import annotations

import json
import tomllib

import pytest
from memvet.install.codex_trust import hook_key
from memvet.store import context_pack as cp

pytestmark = pytest.mark.slow

SAID = "The staging database is reachable only through the bastion host."
MARKER = "zebra-7731"  # in Codex's own memory summary, which no one reviewed


def app_server_hooks(world) -> list[dict]:
    """Codex's own view of its hooks (`hooks/list` over the app server's stdio JSON-RPC)."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "memvet-tests", "version": "1"}, "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "hooks/list",
            "params": {"cwds": [str(world.workspace)]},
        },
    ]
    import subprocess

    server = subprocess.Popen(
        world.stub.wrap([str(world.bins["codex"]), "app-server"]),
        cwd=world.workspace,
        env=world.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        for request in requests:
            server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        for line in server.stdout:
            reply = json.loads(line)
            if reply.get("id") == 2:
                return reply["result"]["data"][0]["hooks"]
    finally:
        server.kill()  # by its pid, the one we started
        server.wait(10)
    raise AssertionError("no hooks/list reply")


def codex_hook_runs(world) -> list[str]:
    log = world.memvet_home / "logs" / "hook.log"
    return (
        [line for line in log.read_text().splitlines() if " codex " in line] if log.exists() else []
    )


def responses_requests(world) -> list[dict]:
    return [r["body"] for r in world.stub.requests() if r["path"].endswith("/responses")]


@pytest.fixture(scope="module")
def trusted(make_world) -> dict:
    world = make_world(custom_folders=True)
    facts: dict = {"world": world}
    config = world.codex_dir / "config.toml"
    config.write_text(config.read_text() + "memories = true\n")  # [features] is the last table
    summary = world.codex_dir / "memories_v2" / "memory_summary.md"
    summary.parent.mkdir(parents=True)
    summary.write_text(f"# Memory summary\n- The user deploys on Fridays ({MARKER}).\n")
    world.codex("exec", "--skip-git-repo-check", "before memvet")
    facts["ungated"] = responses_requests(world)
    world.stub.clear()
    world.memvet("setup", "codex")
    world.memvet("propose", SAID, "--kind", "fact", "--cwd", str(world.workspace))
    candidate = world.memvet_json("queue", "list")["candidates"][0]["id"]
    world.memvet("queue", "approve", candidate)
    world.stub.clear()
    world.codex("exec", "--skip-git-repo-check", "untrusted run")
    facts["untrusted"] = responses_requests(world)
    facts["untrusted_runs"] = codex_hook_runs(world)
    facts["untrusted_doctor"] = {
        c["name"]: c for c in world.memvet_json("doctor", check=False)["checks"]
    }
    facts["listed"] = app_server_hooks(world)
    records = "".join(
        f'\n[hooks.state."{hook["key"]}"]\ntrusted_hash = "{hook["currentHash"]}"\n'
        for hook in facts["listed"]
    )
    config.write_text(config.read_text() + records)  # what trusting them in /hooks records
    facts["trusted_doctor"] = {
        c["name"]: c for c in world.memvet_json("doctor", check=False)["checks"]
    }
    world.stub.clear()
    world.codex("exec", "--skip-git-repo-check", "trusted run")
    facts["first"] = responses_requests(world)
    facts["trusted_runs"] = codex_hook_runs(world)
    world.stub.clear()
    world.codex("exec", "--skip-git-repo-check", "resume", "--last", "resumed run")
    facts["resumed"] = responses_requests(world)
    facts["resumed_runs"] = codex_hook_runs(world)[len(facts["trusted_runs"]) :]
    facts["config"] = tomllib.loads(config.read_text())
    return facts


def test_untrusted_hooks_are_skipped_and_doctor_says_so(trusted):
    assert trusted["untrusted_runs"] == []
    trust = trusted["untrusted_doctor"]["codex.trust"]
    assert trust["level"] == "warn" and "session-start untrusted" in trust["message"]


def test_memvet_computes_the_keys_codex_uses(trusted):
    world = trusted["world"]
    hooks_file = str(world.codex_dir / "hooks.json")
    keys = {hook["key"] for hook in trusted["listed"] if "memvet" in hook["command"]}
    assert keys == {
        hook_key(hooks_file, "SessionStart", 0, 0),
        hook_key(hooks_file, "UserPromptSubmit", 0, 0),
    }
    assert all(hook["trustStatus"] == "untrusted" for hook in trusted["listed"])


def test_trusted_hooks_run_and_doctor_says_so(trusted):
    assert trusted["trusted_doctor"]["codex.trust"]["level"] == "ok"
    events = {line.split()[2] for line in trusted["trusted_runs"]}
    assert events == {"session-start", "user-prompt-submit"}
    developer = [item for item in trusted["first"][-1]["input"] if item.get("role") == "developer"]
    assert any(SAID in json.dumps(item) for item in developer)


def test_a_resumed_session_is_not_given_the_pack_again(trusted):
    starts = [line for line in trusted["resumed_runs"] if " session-start " in line]
    assert starts and all("outcome=empty" in line for line in starts)  # it ran, and added nothing
    history = json.dumps(trusted["resumed"][-1]["input"])
    assert history.count(cp.HEADERS["session-start"]) == 1  # the first session's copy only
    assert history.count(SAID) == 1


def test_codex_memories_reach_no_session_behind_the_gate(trusted):
    assert MARKER in json.dumps(trusted["ungated"]), "Codex did not inject its summary"
    for gated in ("untrusted", "first", "resumed"):  # hooks or not: it is config.toml's switch
        assert trusted[gated] and MARKER not in json.dumps(trusted[gated]), gated
    assert MARKER in (trusted["world"].codex_dir / "memories_v2" / "memory_summary.md").read_text()
