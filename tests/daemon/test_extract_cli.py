"""`memvet extract` through a real subprocess: the JSON contract of interfaces.md, the human
table, clear errors, and nothing written anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import DATA

CLAUDE = str(DATA / "labelled_claude.jsonl")
CODEX = str(DATA / "labelled_codex.jsonl")


def memvet(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )


def _tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


def test_json_output_matches_the_contract(isolated_env: Path) -> None:
    home = Path(os.environ["HOME"])
    before = _tree(home)
    done = memvet("extract", "--host", "codex", CODEX, "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert set(doc) == {"candidates", "stats"}
    assert {"files", "lines", "skipped_lines", "turns"} <= set(doc["stats"])
    assert (
        doc["stats"]["files"] == 1
        and doc["stats"]["lines"] == 315
        and doc["stats"]["skipped_lines"] == 0
    )
    assert len(doc["candidates"]) >= 12
    for item in doc["candidates"]:
        assert {
            "statement",
            "kind",
            "source_type",
            "confidence",
            "reasons",
            "scope",
            "evidence",
        } <= set(item)
        assert item["kind"] in ("preference", "constraint", "decision", "fact", "procedure")
        assert (
            item["source_type"] == "explicit_user"
            and 0 < item["confidence"] <= 1
            and item["reasons"]
        )
        assert set(item["scope"]) == {"user", "workspace", "agent", "session"}
        assert (
            item["scope"]["agent"] == "codex"
            and item["scope"]["session"] == "019e3a5c-2f11-7c3d-9a8e-5b6c7d8e9f01"
        )
        assert set(item["evidence"]) == {"path", "line", "message_id", "timestamp", "excerpt"}
        assert item["evidence"]["path"] == CODEX and item["evidence"]["timestamp"].endswith("Z")
    assert not Path(os.environ["MEMVET_HOME"]).exists()  # no store, no config, no logs
    assert _tree(home) == before


def test_human_output_is_a_table() -> None:
    done = memvet("extract", "--host", "claude-code", CLAUDE)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["KIND", "CONF", "SCOPE", "LINE", "STATEMENT"]
    assert any(
        "Never log request bodies" in line and line.startswith("constraint") for line in lines
    )
    assert "1 file(s), 125 lines (0 skipped)" in lines[-1]


def test_several_files_in_one_run() -> None:
    done = memvet("extract", "--host", "claude-code", CLAUDE, CLAUDE, "--json")
    stats = json.loads(done.stdout)["stats"]
    assert stats["files"] == 2 and stats["lines"] == 250


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.jsonl")
    done = memvet("extract", "--host", "codex", CODEX, missing, "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "error": {"code": "not_found", "message": f"no such file: {missing}", "path": missing}
    }
    plain = memvet("extract", "--host", "codex", missing)
    assert plain.returncode == 1 and plain.stdout == "" and "no such file" in plain.stderr


def test_unreadable_file_and_directory(tmp_path: Path) -> None:
    done = memvet("extract", "--host", "codex", str(tmp_path), "--json")
    assert done.returncode == 1 and json.loads(done.stdout)["error"]["code"] == "unreadable"


def test_usage_errors_exit_2() -> None:
    assert memvet("extract", "--host", "cursor", CODEX).returncode == 2
    assert memvet("extract", "--host", "codex").returncode == 2


def test_bad_user_rules_are_reported(isolated_env: Path) -> None:
    home = Path(os.environ["MEMVET_HOME"])
    home.mkdir(parents=True)
    (home / "rules.toml").write_text("[[kind]]\nname = 'x'\nkind = 'fact'\npattern = '(oops'\n")
    done = memvet("extract", "--host", "codex", CODEX, "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert (
        error["code"] == "invalid_rules"
        and "bad regex" in error["message"]
        and "rules.toml" in error["message"]
    )
    assert _tree(home) == ["rules.toml"]  # read, never written
