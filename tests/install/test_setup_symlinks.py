"""Issue 9: setup run as root must not write through a symlink into another user's files. A
host file (or the folder it would be created in) that resolves to another uid's is refused
with a clear message and nothing is written; links to the user's own files are still followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

OTHER_UID = 4242  # a uid that is not this process's: the file belongs to "someone else"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


def foreign(path: Path, text: str = '{"theme": "dark"}\n') -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chown(path, OTHER_UID, OTHER_UID)
    return path


def test_settings_linked_to_another_users_file_are_refused(memvet, claude_dir, tmp_path):
    theirs = foreign(tmp_path / "other-user" / "settings.json")
    (claude_dir / "settings.json").symlink_to(theirs)
    res = memvet("setup", "claude-code", "--json")
    assert res.returncode == 1
    error = res.json()["error"]
    assert error["code"] == "invalid_config"
    assert str(theirs) in error["message"] and "another user (uid 4242)" in error["message"]
    assert theirs.read_text() == '{"theme": "dark"}\n'  # untouched
    assert os.stat(theirs).st_uid == OTHER_UID
    assert not list(claude_dir.glob("*.memvet-backup-*"))
    assert not (claude_dir.parent / ".claude.json").exists()  # no file of the plan was written
    human = memvet("setup", "claude-code")
    assert human.returncode == 1 and "nothing was written" in human.stderr + human.stdout


def test_a_codex_folder_linked_into_another_users_home_is_refused(
    memvet, home, tmp_path, monkeypatch
):
    theirs = tmp_path / "other-user" / ".codex"
    theirs.mkdir(parents=True)
    os.chown(theirs, OTHER_UID, OTHER_UID)
    link = home / "linked-codex"
    link.symlink_to(theirs)
    monkeypatch.setenv("CODEX_HOME", str(link))
    res = memvet("setup", "codex", "--json")
    assert res.returncode == 1
    assert "would be created in" in res.json()["error"]["message"]
    assert list(theirs.iterdir()) == []


def test_links_to_the_users_own_files_are_still_followed(memvet, claude_dir, tmp_path):
    mine = tmp_path / "dotfiles" / "settings.json"
    mine.parent.mkdir()
    mine.write_text("{}\n")
    (claude_dir / "settings.json").symlink_to(mine)
    res = memvet("setup", "claude-code", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "memvet" in mine.read_text() and (claude_dir / "settings.json").is_symlink()
