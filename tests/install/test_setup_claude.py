"""`memvet setup claude-code` through the real CLI, on real-shaped settings files."""

from __future__ import annotations

import difflib
import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

HOOK_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit"}


def memvet_script() -> str:
    return str(Path(sys.executable).parent / "memvet")


def ours(settings: dict, event: str) -> list[dict]:
    return [
        h
        for g in settings["hooks"].get(event, [])
        for h in g["hooks"]
        if "memvet hook claude-code" in h["command"]
    ]


@pytest.fixture
def wired(claude_dir: Path, samples):
    settings = claude_dir / "settings.json"
    state = claude_dir / ".claude.json"
    settings.write_text(samples.claude_settings)
    state.write_text(samples.claude_state)
    os.chmod(state, 0o600)
    os.chmod(settings, 0o640)
    return settings, state


def test_setup_merges_hooks_and_mcp_and_keeps_everything_else(memvet, wired, samples):
    settings_path, state_path = wired
    result = memvet("setup", "claude-code", "--json")
    assert result.returncode == 0, result.stderr
    report = result.json()
    assert report["host"] == "claude-code" and report["changed"] is True
    assert {f["action"] for f in report["files"]} == {"updated"}
    for entry in report["files"]:
        backup = Path(entry["backup"])
        assert backup.name.startswith(Path(entry["path"]).name + ".memvet-backup-")
        assert (
            backup.read_bytes()
            == (
                samples.claude_settings if "settings" in entry["path"] else samples.claude_state
            ).encode()
        )

    settings = json.loads(settings_path.read_text())
    original = json.loads(samples.claude_settings)
    # the other tool's SessionStart hook and every unrelated key are untouched, in order
    assert settings["hooks"]["SessionStart"][0] == original["hooks"]["SessionStart"][0]
    assert settings["hooks"]["PostToolUse"] == original["hooks"]["PostToolUse"]
    assert list(settings) == list(original)
    for key in ("permissions", "env", "statusLine", "model", "includeCoAuthoredBy"):
        assert settings[key] == original[key]
    # ours: one handler per event, absolute memvet path, a timeout, the session matcher
    for event, slug in HOOK_EVENTS.items():
        [handler] = ours(settings, event)
        words = shlex.split(handler["command"])
        assert words[-4:] == [memvet_script(), "hook", "claude-code", slug]
        assert os.path.isabs(words[-4]) and handler["type"] == "command"
        assert 1 <= handler["timeout"] <= 60
    [group] = [g for g in settings["hooks"]["SessionStart"] if ours({"hooks": {"x": [g]}}, "x")]
    assert group["matcher"] == "startup|resume|clear|compact"

    state = json.loads(state_path.read_text())
    assert state["mcpServers"]["memvet"]["command"] == memvet_script()
    assert state["mcpServers"]["memvet"]["args"] == ["mcp"]
    assert state["mcpServers"]["memvet"]["type"] == "stdio"
    assert state["mcpServers"]["github"] == json.loads(samples.claude_state)["mcpServers"]["github"]
    assert state["projects"] == json.loads(samples.claude_state)["projects"]
    # permissions of both files are kept
    assert stat.S_IMODE(state_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(settings_path.stat().st_mode) == 0o640


def test_only_the_added_lines_change(memvet, wired, samples):
    settings_path, state_path = wired
    assert memvet("setup", "claude-code").returncode == 0
    old_lines = samples.claude_settings.splitlines()
    new_lines = settings_path.read_text().splitlines()
    # insertions only, plus the comma that joins them to the line before
    ops = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False).get_opcodes()
    changed = [op for op in ops if op[0] != "equal"]
    assert changed and all(op[0] in ("insert", "replace") for op in changed)
    for tag, i1, i2, j1, _ in changed:
        if tag == "replace":
            assert i2 - i1 == 1 and new_lines[j1] == old_lines[i1] + ","
    assert not state_path.read_text().endswith("\n")  # Claude's own style kept


def test_second_run_changes_nothing(memvet, wired, samples, claude_dir):
    assert memvet("setup", "claude-code").returncode == 0
    before = samples.snapshot(claude_dir)
    n_backups = len(samples.backups(claude_dir))
    second = memvet("setup", "claude-code", "--json")
    assert second.returncode == 0
    report = second.json()
    assert report["changed"] is False
    assert [f["action"] for f in report["files"]] == ["unchanged", "unchanged"]
    assert "already set up" in report["messages"][0]
    assert samples.snapshot(claude_dir) == before
    assert len(samples.backups(claude_dir)) == n_backups
    human = memvet("setup", "claude-code")
    assert "Nothing to change" in human.stdout


def test_uninstall_restores_original_bytes(memvet, memvet_process, wired, samples):
    """End to end through the installed command, in subprocesses."""
    settings_path, state_path = wired
    assert memvet_process("setup", "claude-code").returncode == 0
    assert settings_path.read_text() != samples.claude_settings
    result = memvet_process("setup", "claude-code", "--uninstall", "--json")
    assert result.returncode == 0, result.stderr
    assert {f["action"] for f in result.json()["files"]} == {"updated"}
    assert settings_path.read_text() == samples.claude_settings
    assert state_path.read_text() == samples.claude_state
    assert stat.S_IMODE(settings_path.stat().st_mode) == 0o640
    again = memvet("setup", "claude-code", "--uninstall", "--json").json()
    assert again["changed"] is False


def test_handmade_layout_survives_setup_and_uninstall(memvet, claude_dir, samples):
    settings_path = claude_dir / "settings.json"
    settings_path.write_text(samples.claude_settings_handmade)
    assert memvet("setup", "claude-code").returncode == 0
    text = settings_path.read_text()
    # the one-line arrays and objects the user wrote are still one line each
    assert '    "permissions": {"allow": ["Bash(ls:*)", "Read"], "deny": []},\n' in text
    assert '    "env": {"FOO": "bar"}\n}' in text
    assert (
        '\n            {"hooks": [{"type": "command", "command": "~/bin/prompt-guard"}]},\n' in text
    )
    assert (
        '\n        "SessionStart": [\n            {\n                "matcher"' in text
    )  # 4 spaces
    data = json.loads(text)
    assert len(data["hooks"]["UserPromptSubmit"]) == 2
    assert memvet("setup", "claude-code", "--uninstall").returncode == 0
    assert settings_path.read_text() == samples.claude_settings_handmade


def test_created_files_are_removed_again(memvet, claude_dir, home):
    result = memvet("setup", "claude-code", "--json")
    assert [f["action"] for f in result.json()["files"]] == ["created", "created"]
    state = claude_dir / ".claude.json"
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    assert all(f["backup"] is None for f in result.json()["files"])
    result = memvet("setup", "claude-code", "--uninstall", "--json")
    assert [f["action"] for f in result.json()["files"]] == ["removed", "removed"]
    assert not (claude_dir / "settings.json").exists() and not state.exists()


def test_dry_run_writes_nothing_and_shows_a_diff(memvet, wired, samples, claude_dir):
    before = samples.snapshot(claude_dir)
    result = memvet("setup", "claude-code", "--dry-run")
    assert result.returncode == 0
    assert f"--- {claude_dir / 'settings.json'}" in result.stdout
    assert '+        "matcher": "startup|resume|clear|compact",' in result.stdout
    assert '+    "memvet": {' in result.stdout
    assert samples.snapshot(claude_dir) == before and not samples.backups(claude_dir)
    report = memvet("setup", "claude-code", "--dry-run", "--json").json()
    assert report["dry_run"] is True and report["changed"] is True
    assert all(f["diff"].startswith("---") for f in report["files"])


def test_broken_json_is_reported_and_left_alone(memvet, wired, samples, claude_dir):
    settings_path, _ = wired
    broken = samples.claude_settings.replace('"model": "opus",', '"model": "opus"')
    settings_path.write_text(broken)
    before = samples.snapshot(claude_dir)
    result = memvet("setup", "claude-code")
    assert result.returncode == 1
    line = broken.splitlines().index('  "includeCoAuthoredBy": false') + 1
    assert f"{settings_path}:{line}:3" in result.stderr
    assert samples.snapshot(claude_dir) == before  # neither file was written
    report = memvet("setup", "claude-code", "--json")
    assert report.returncode == 1
    error = report.json()["error"]
    assert error["code"] == "invalid_config" and error["line"] == line and error["column"] == 3


def test_stale_path_is_updated_in_place_and_duplicates_dropped(memvet, claude_dir):
    old = "/old/venv/bin/memvet hook claude-code session-start"
    settings = {
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup",
                    "hooks": [{"type": "command", "command": old, "timeout": 7}],
                },
                {"hooks": [{"type": "command", "command": old}]},
            ]
        }
    }
    (claude_dir / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    assert memvet("setup", "claude-code").returncode == 0
    data = json.loads((claude_dir / "settings.json").read_text())
    [group] = data["hooks"]["SessionStart"]
    assert group["matcher"] == "startup" and group["hooks"][0]["timeout"] == 7  # user's tuning kept
    assert shlex.split(group["hooks"][0]["command"])[-4] == memvet_script()


def test_uninstall_leaves_a_foreign_memvet_server(memvet, claude_dir):
    state = claude_dir / ".claude.json"
    text = json.dumps({"mcpServers": {"memvet": {"type": "http", "url": "https://example.com"}}})
    state.write_text(text)
    result = memvet("setup", "claude-code", "--uninstall", "--json")
    assert result.returncode == 0
    assert state.read_text() == text
    assert any("left alone" in m for m in result.json()["messages"])


def test_default_location_of_claude_json_is_home(memvet, home, monkeypatch):
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert memvet("setup", "claude-code").returncode == 0
    assert (home / ".claude.json").exists() and (home / ".claude" / "settings.json").exists()


def test_disable_all_hooks_is_reported_not_changed(memvet, claude_dir):
    path = claude_dir / "settings.json"
    path.write_text('{\n  "disableAllHooks": true\n}\n')
    report = memvet("setup", "claude-code", "--json").json()
    assert any("disableAllHooks" in m for m in report["messages"])
    assert json.loads(path.read_text())["disableAllHooks"] is True


def test_symlinked_settings_stay_a_symlink(memvet, claude_dir, home, samples):
    real = home / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    real.write_text(samples.claude_settings)
    (claude_dir / "settings.json").symlink_to(real)
    assert memvet("setup", "claude-code").returncode == 0
    assert (claude_dir / "settings.json").is_symlink()
    assert "memvet hook claude-code" in real.read_text()


def test_empty_containers_the_user_had_survive_uninstall(memvet, claude_dir):
    path = claude_dir / "settings.json"
    original = '{\n  "hooks": {\n    "SessionStart": []\n  },\n  "model": "opus"\n}\n'
    path.write_text(original)
    assert memvet("setup", "claude-code").returncode == 0
    assert len(json.loads(path.read_text())["hooks"]["SessionStart"]) == 1
    assert memvet("setup", "claude-code", "--uninstall").returncode == 0
    assert path.read_text() == original


def test_an_empty_settings_file_the_user_had_is_kept(memvet, claude_dir):
    path = claude_dir / "settings.json"
    path.write_text("{}\n")
    memvet("setup", "claude-code")
    memvet("setup", "claude-code", "--uninstall")
    assert path.read_text() == "{}\n"


def test_uninstall_without_the_setup_record_still_removes_what_became_empty(memvet, wired, samples):
    settings_path, state_path = wired
    memvet("setup", "claude-code")
    record = Path(os.environ["MEMVET_HOME"]) / "setup-record.json"
    assert json.loads(record.read_text())[str(settings_path)]["containers"] == [
        ["hooks", "PreToolUse"],
        ["hooks", "UserPromptSubmit"],
    ]  # PreToolUse: the native-memory gate
    record.unlink()  # e.g. uninstall run with another MEMVET_HOME
    memvet("setup", "claude-code", "--uninstall")
    assert settings_path.read_text() == samples.claude_settings
    assert state_path.read_text() == samples.claude_state
