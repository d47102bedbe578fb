"""doctor against what the real hosts read: with CLAUDE_CONFIG_DIR set Claude Code reads user
MCP servers only from `$CLAUDE_CONFIG_DIR/.claude.json`; Codex 0.171 refuses a hooks.json with
other root keys and runs none of its hooks; Codex runs a hook only once it is trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

from memvet.daemon.lock import InstanceLock


def checks(result) -> dict[str, dict]:
    return {c["name"]: c for c in result.json()["checks"]}


def test_an_mcp_entry_claude_code_does_not_read_is_not_wired(memvet, home, claude_dir):
    assert memvet("setup", "claude-code").returncode == 0
    wired = claude_dir / ".claude.json"
    (home / ".claude.json").write_text(wired.read_text())  # where it would be without the variable
    wired.write_text("{}\n")
    found = checks(memvet("doctor", "--json"))
    mcp = found["claude-code.MCP server"]
    assert mcp["level"] != "ok" and "memvet setup claude-code" in mcp["fix"]
    assert memvet("status", "--json").json()["hosts"]["claude-code"]["mcp"] is None


def test_setup_refuses_a_hooks_json_codex_would_reject(memvet, codex_dir):
    hooks = codex_dir / "hooks.json"
    original = '{"$schema": "https://example.test/hooks.schema.json", "hooks": {}}\n'
    hooks.write_text(original)
    refused = memvet("setup", "codex", "--json")
    assert refused.returncode == 1
    error = refused.json()["error"]
    assert error["code"] == "invalid_config" and "$schema" in error["message"]
    assert "--fix" in error["message"]
    assert hooks.read_text() == original  # nothing written
    fixed = memvet("setup", "codex", "--fix", "--json")
    assert fixed.returncode == 0
    doc = json.loads(hooks.read_text())
    assert set(doc) == {"hooks"} and doc["hooks"]["SessionStart"]
    backup = next(f["backup"] for f in fixed.json()["files"] if f["path"] == str(hooks))
    assert "$schema" in Path(backup).read_text()  # moved aside, not lost
    assert any("$schema" in m for m in fixed.json()["messages"])


def test_doctor_fails_when_codex_would_reject_hooks_json(memvet, codex_dir):
    assert memvet("setup", "codex").returncode == 0
    hooks = codex_dir / "hooks.json"
    doc = json.loads(hooks.read_text())
    hooks.write_text(json.dumps({**doc, "version": 1}))
    doctor = memvet("doctor", "--json")
    assert doctor.returncode == 1
    check = checks(doctor)["codex.hooks_file"]
    assert check["level"] == "fail" and "version" in check["message"]
    assert "memvet setup codex --fix" in check["fix"]


def _trust(config: Path, key: str) -> None:
    config.write_text(
        config.read_text() + f'\n[hooks.state."{key}"]\ntrusted_hash = "sha256:{"0" * 64}"\n'
    )


def test_doctor_reads_codex_trust_records_per_hook(memvet, codex_dir):
    assert memvet("setup", "codex").returncode == 0
    hooks, config = codex_dir / "hooks.json", codex_dir / "config.toml"
    trust = checks(memvet("doctor", "--json"))["codex.trust"]
    assert trust["level"] == "warn" and "session-start untrusted" in trust["message"]
    assert "/hooks" in trust["fix"]
    _trust(config, f"{hooks}:session_start:0:0")
    _trust(config, f"{hooks}:user_prompt_submit:0:0")
    found = checks(memvet("doctor", "--json"))
    assert found["codex.trust"]["level"] == "ok", found["codex.trust"]
    assert memvet("status", "--json").json()["hosts"]["codex"]["trust"] == {
        "session-start": "trusted",
        "user-prompt-submit": "trusted",
    }
    # Another tool's group put before memvet's moves it: Codex's record no longer applies.
    doc = json.loads(hooks.read_text())
    other = {"hooks": [{"type": "command", "command": "/usr/bin/true"}]}
    doc["hooks"]["SessionStart"].insert(0, other)
    hooks.write_text(json.dumps(doc))
    trust = checks(memvet("doctor", "--json"))["codex.trust"]
    assert trust["level"] == "warn" and "session-start untrusted" in trust["message"]
    assert "user-prompt-submit trusted" in trust["message"]
    config.write_text("[broken")
    assert "unknown" in checks(memvet("doctor", "--json"))["codex.trust"]["message"]


def test_doctor_warns_when_the_daemon_meets_unknown_line_types(memvet, request):
    run = Path(os.environ["MEMVET_HOME"]) / "run"
    run.mkdir(parents=True)
    lock = InstanceLock(run)  # what a running daemon holds; this process stands in for it
    lock.acquire()
    request.addfinalizer(lock.release)
    stats = {"roots": [], "stats": {"skipped": {"unknown_type": 0, "attachment": 9}}}
    (run / "daemon-stats.json").write_text(json.dumps(stats))
    assert "daemon.line_types" not in checks(memvet("doctor", "--json"))
    stats["stats"]["skipped"]["unknown_type"] = 3
    (run / "daemon-stats.json").write_text(json.dumps(stats))
    check = checks(memvet("doctor", "--json"))["daemon.line_types"]
    assert check["level"] == "warn" and "3 transcript line(s)" in check["message"]
