"""Claude Code's own auto memory behind review: the PreToolUse gate turns writes into the memory
folder into pending candidates and denies them (fail closed); setup's three modes; uninstall."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def gate(payload: dict, cwd: Path) -> tuple[dict | None, str]:
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", "hook", "claude-code", "pre-tool-use"],
        input=json.dumps(payload).encode(),
        cwd=cwd,
        capture_output=True,
        timeout=60,
        env={**os.environ},
    )
    assert done.returncode == 0
    return (json.loads(done.stdout) if done.stdout.strip() else None), done.stderr.decode()


def write(path: Path, content: str, cwd: Path, **extra: str) -> dict:
    return {
        "session_id": "s-gate",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(path), "content": content},
        "tool_use_id": "toolu_1",
        **extra,
    }


@pytest.fixture
def project(tmp_path: Path, claude_dir: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    ws = tmp_path / "app"
    (ws / ".git").mkdir(parents=True)
    memory = claude_dir / "projects" / "-tmp-app" / "memory"
    return ws, memory


def queued(memvet) -> list[dict]:
    return memvet("queue", "list", "--json").json()["candidates"]


TOPIC = "---\nname: test runner\ndescription: how tests run\ntype: project\n---\n\nRun the tests with `make check`, never plain pytest.\n"


def test_a_write_into_the_memory_folder_is_queued_and_denied(project, memvet):
    ws, memory = project
    out, _ = gate(write(memory / "testing.md", TOPIC, ws, agent_id="agent-7"), ws)
    decision = out["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse" and decision["permissionDecision"] == "deny"
    assert "queued in memvet for review" in decision["permissionDecisionReason"]
    assert not memory.exists()  # the hook wrote nothing there either
    [candidate] = queued(memvet)
    assert candidate["status"] == "pending" and candidate["source_type"] == "model_inference"
    assert candidate["statement"] == "Run the tests with `make check`, never plain pytest."
    assert candidate["kind"] == "fact" and candidate["origin"] == "Claude Code auto memory"
    shown = memvet("queue", "show", candidate["id"], "--json").json()
    text = json.dumps(shown)
    assert "agent: agent-7" in text and "s-gate" in text
    assert "Claude Code auto memory" in memvet("queue", "list").stdout


def test_edits_give_one_candidate_per_entry_and_the_index_none(project, memvet):
    ws, memory = project
    multi = {
        "session_id": "s-gate",
        "cwd": str(ws),
        "tool_name": "MultiEdit",
        "tool_input": {
            "file_path": str(memory / "prefs.md"),
            "edits": [
                {"old_string": "a", "new_string": "The user prefers tabs over spaces in Go."},
                {"old_string": "b", "new_string": "Staging is deployed from the release branch."},
            ],
        },
    }
    assert gate(multi, ws)[0]["hookSpecificOutput"]["permissionDecision"] == "deny"
    index = write(memory / "MEMORY.md", "- [testing](testing.md): how tests run\n", ws)
    assert gate(index, ws)[0]["hookSpecificOutput"]["permissionDecision"] == "deny"
    statements = sorted(c["statement"] for c in queued(memvet))
    assert statements == [
        "Staging is deployed from the release branch.",
        "The user prefers tabs over spaces in Go.",
    ]


def test_other_writes_and_reads_pass(project, memvet):
    ws, memory = project
    assert gate(write(ws / "notes.md", "hello", ws), ws)[0] is None
    read = {"cwd": str(ws), "tool_name": "Read", "tool_input": {"file_path": str(memory / "x.md")}}
    assert gate(read, ws)[0] is None
    shell = {"cwd": str(ws), "tool_name": "Bash", "tool_input": {"command": "ls -la"}}
    assert gate(shell, ws)[0] is None
    for unreadable in (
        f"cp /tmp/notes.md {memory}/tools.md",
        f"echo 'use uv' > {memory}/tools.md && rm -f /tmp/x",  # not only a write
        f"cat > {memory}/tools.md <<'EOF'\nuse uv\n",
    ):  # an unterminated document
        into = {"cwd": str(ws), "tool_name": "Bash", "tool_input": {"command": unreadable}}
        decision = gate(into, ws)[0]["hookSpecificOutput"]
        assert (
            decision["permissionDecision"] == "deny"
            and "shell writes" in decision["permissionDecisionReason"]
        ), unreadable
    assert not (Path(os.environ["MEMVET_HOME"]) / "memvet.db").exists()  # nothing was queued


@pytest.mark.parametrize(
    "command",
    [
        "echo 'Use uv for Python commands, never pip.' > {memory}/tools.md",
        "printf 'Use uv for Python commands, never pip.\\n' >> {memory}/tools.md",
        "cat > {memory}/tools.md <<'EOF'\n---\ntype: feedback\n---\n\nUse uv for Python commands, never pip.\nEOF",
        "tee {memory}/tools.md > /dev/null <<EOF\nUse uv for Python commands, never pip.\nEOF\n",
    ],
)
def test_a_plain_shell_write_into_the_memory_folder_is_queued_and_denied(project, memvet, command):
    ws, memory = project
    shell = {
        "session_id": "s-gate",
        "cwd": str(ws),
        "tool_name": "Bash",
        "tool_input": {"command": command.format(memory=memory)},
    }
    decision = gate(shell, ws)[0]["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "queued in memvet for review" in decision["permissionDecisionReason"]
    assert not memory.exists()
    [candidate] = queued(memvet)
    assert candidate["statement"] == "Use uv for Python commands, never pip."
    assert candidate["origin"] == "Claude Code auto memory" and candidate["status"] == "pending"
    assert candidate["kind"] == ("preference" if "feedback" in command else "fact")


def test_it_fails_closed_when_memvet_cannot_take_the_write(project, memvet):
    ws, memory = project
    memvet("propose", "Use uv", "--kind", "preference")  # creates the store and its key file
    (Path(os.environ["MEMVET_HOME"]) / "keys" / "kek-v1").unlink()
    out, _ = gate(write(memory / "testing.md", TOPIC, ws), ws)
    decision = out["hookSpecificOutput"]
    assert (
        decision["permissionDecision"] == "deny"
        and "could not queue" in decision["permissionDecisionReason"]
    )


def test_setup_modes_and_uninstall(project, memvet, claude_dir):
    settings = claude_dir / "settings.json"
    original = '{\n  "env": {\n    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"\n  }\n}\n'
    settings.write_text(original)
    assert memvet("setup", "claude-code").returncode == 0  # gate is the default
    groups = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert groups[0]["matcher"] == "Write|Edit|MultiEdit|Bash"
    assert "hook claude-code pre-tool-use" in groups[0]["hooks"][0]["command"]
    assert memvet("setup", "claude-code", "--native-memory", "off").returncode == 0
    doc = json.loads(settings.read_text())
    assert doc["env"]["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] == "1" and "PreToolUse" not in doc["hooks"]
    assert memvet("setup", "claude-code", "--uninstall").returncode == 0
    assert settings.read_text() == original  # byte for byte, the user's "0" back
    assert memvet("setup", "claude-code", "--native-memory", "leave").returncode == 0
    doc = json.loads(settings.read_text())
    assert "PreToolUse" not in doc["hooks"] and doc["env"]["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] == "0"
    memvet("setup", "claude-code", "--uninstall")
    assert settings.read_text() == original


def test_setup_imports_existing_memory_files_once(project, memvet):
    _, memory = project
    memory.mkdir(parents=True)
    (memory / "testing.md").write_text(TOPIC)
    (memory / "MEMORY.md").write_text("- [testing](testing.md)\n")
    report = memvet("setup", "claude-code", "--json").json()
    assert any("review queue" in m for m in report["messages"])
    [candidate] = queued(memvet)
    assert candidate["origin"] == "Claude Code auto memory"
    memvet("queue", "reject", candidate["id"])
    memvet("setup", "claude-code", "--uninstall")
    memvet("setup", "claude-code")  # again: already imported, and rejected stays rejected
    assert queued(memvet) == []
    assert (memory / "testing.md").read_text() == TOPIC  # the files stay


def test_doctor_warns_when_a_project_turns_auto_memory_back_on(
    project, memvet, monkeypatch, claude_dir
):
    ws, _ = project
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text('{"autoMemoryEnabled": true}\n')
    (claude_dir / "settings.json").write_text('{"autoMemoryEnabled": false}\n')
    monkeypatch.chdir(ws)
    found = {c["name"]: c for c in memvet("doctor", "--json").json()["checks"]}
    check = found["claude-code.native_memory"]
    assert check["level"] == "warn" and "autoMemoryEnabled" in check["message"]
    assert "--native-memory" in check["fix"]
    memvet("setup", "claude-code")  # the gate catches the writes whatever the settings say
    found = {c["name"]: c for c in memvet("doctor", "--json").json()["checks"]}
    assert found["claude-code.native_memory"]["level"] == "ok"
