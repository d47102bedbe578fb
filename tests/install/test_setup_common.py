"""Backups, atomic writes, markers and the command memvet writes into hosts."""

from __future__ import annotations

import os
import re
import shlex
import stat
import sys
from pathlib import Path

import pytest
from memvet.install import memvet_entries
from memvet.install.memvet_entries import (
    hook_command,
    is_memvet_hook,
    looks_like_memvet_command,
    memvet_argv,
)
from memvet.install.setup_common import (
    FileEdit,
    Planned,
    apply,
    atomic_write,
    make_backup,
    read_text,
)


def test_memvet_argv_is_the_console_script_beside_the_interpreter():
    assert memvet_argv() == [str(Path(sys.executable).parent / "memvet")]


def test_module_form_when_no_script_exists(monkeypatch):
    monkeypatch.setattr(memvet_entries.shutil, "which", lambda *a, **k: None)
    argv = memvet_argv()
    assert argv == [os.path.abspath(sys.executable), "-m", "memvet.install.launcher"]
    command = hook_command("codex", "session-start")
    assert is_memvet_hook(command, "codex", "session-start")


def test_hook_command_quotes_paths_with_spaces(monkeypatch):
    monkeypatch.setattr(memvet_entries, "memvet_argv", lambda: ["/Users/Dana Q/venv/bin/memvet"])
    monkeypatch.setenv("MEMVET_HOME", "/Users/Dana Q/memvet home")
    command = hook_command("claude-code", "user-prompt-submit")
    assert command == (
        "MEMVET_HOME='/Users/Dana Q/memvet home' "
        "'/Users/Dana Q/venv/bin/memvet' hook claude-code user-prompt-submit"
    )
    assert shlex.split(command)[1:] == [
        "/Users/Dana Q/venv/bin/memvet",
        "hook",
        "claude-code",
        "user-prompt-submit",
    ]
    assert is_memvet_hook(command, "claude-code", "user-prompt-submit")
    monkeypatch.delenv("MEMVET_HOME")
    assert not hook_command("claude-code", "session-start").startswith("MEMVET_HOME")


@pytest.mark.parametrize(
    ("command", "host", "event", "expected"),
    [
        ("/x/bin/memvet hook claude-code session-start", "claude-code", "session-start", True),
        ("/x/bin/memvet hook claude-code session-start", "codex", None, False),
        (
            "/x/bin/memvet hook claude-code session-start",
            "claude-code",
            "user-prompt-submit",
            False,
        ),
        ("'/a b/memvet' hook codex user-prompt-submit", "codex", "user-prompt-submit", True),
        ("/py -m memvet.install.launcher hook codex session-start", "codex", None, True),
        ("python3 ~/.mymemvet/hook.py session-start", "claude-code", None, False),
        ("notmemvet hook claude-code session-start", "claude-code", None, False),
        (None, "claude-code", None, False),
    ],
)
def test_hook_marker(command, host, event, expected):
    assert is_memvet_hook(command, host, event) is expected


def test_mcp_entry_recognition():
    assert looks_like_memvet_command("/x/memvet", ["mcp"])
    assert looks_like_memvet_command("/x/python", ["-m", "memvet.install.launcher", "mcp"])
    assert not looks_like_memvet_command("npx", ["memvet"])
    assert not looks_like_memvet_command(None, None)


def test_backup_name_content_and_mode(tmp_path):
    target = tmp_path / "settings.json"
    target.write_text("original")
    os.chmod(target, 0o640)
    first, second = make_backup(target), make_backup(target)
    assert re.fullmatch(r"settings\.json\.memvet-backup-\d{8}T\d{6}Z", first.name)
    assert second != first and second.read_text() == first.read_text() == "original"
    assert stat.S_IMODE(first.stat().st_mode) == 0o640


def test_atomic_write_keeps_mode_and_leaves_no_temp_files(tmp_path):
    folder = tmp_path / "codex"
    folder.mkdir()
    target = folder / "config.toml"
    target.write_text("a")
    os.chmod(target, 0o604)
    assert atomic_write(target, "b", 0o600, expect="a")
    assert target.read_text() == "b" and stat.S_IMODE(target.stat().st_mode) == 0o604
    assert not atomic_write(target, "c", 0o600, expect="a")  # changed under us: nothing written
    assert target.read_text() == "b"
    assert sorted(p.name for p in folder.iterdir()) == ["config.toml"]
    fresh = tmp_path / "new" / "hooks.json"
    assert atomic_write(fresh, "{}", 0o600, expect=None)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


def test_a_file_changed_between_plan_and_write_is_edited_again(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("one\n")
    calls = []

    def transform(text):
        calls.append(text)
        if len(calls) == 1:
            target.write_text("one\ntwo\n")  # the host rewrites the file meanwhile
        return Planned((text or "") + "memvet\n")

    [result] = apply([FileEdit(target, transform)], dry_run=False)
    assert target.read_text() == "one\ntwo\nmemvet\n"  # the host's line survived
    assert calls == ["one\n", "one\ntwo\n"] and result["action"] == "updated"
    assert Path(result["backup"]).read_text() == "one\ntwo\n"


def test_crlf_is_kept(tmp_path):
    target = tmp_path / "f.json"
    target.write_bytes(b'{\r\n  "a": 1\r\n}\r\n')
    assert read_text(target) == '{\r\n  "a": 1\r\n}\r\n'
