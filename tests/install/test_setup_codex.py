"""`memvet setup codex`: hooks.json, config.toml (tomlkit, comments kept), [features]."""

from __future__ import annotations

import difflib
import json
import os
import shlex
import stat
import sys
import tomllib
from pathlib import Path

import pytest


def memvet_script() -> str:
    return str(Path(sys.executable).parent / "memvet")


@pytest.fixture
def wired(codex_dir: Path, samples):
    config, hooks = codex_dir / "config.toml", codex_dir / "hooks.json"
    config.write_text(samples.codex_config)
    hooks.write_text(samples.codex_hooks)
    os.chmod(config, 0o600)
    return config, hooks


def test_setup_writes_hooks_mcp_and_turns_hooks_feature_on(memvet, wired, samples):
    config_path, hooks_path = wired
    result = memvet("setup", "codex", "--json")
    assert result.returncode == 0, result.stderr
    report = result.json()
    assert report["host"] == "codex" and report["changed"] is True
    assert [f["action"] for f in report["files"]] == ["updated", "updated"]
    assert all(Path(f["backup"]).exists() for f in report["files"])
    assert any("/hooks" in m and "trust" in m for m in report["messages"])
    assert any("[features] hooks was false" in m for m in report["messages"])

    hooks = json.loads(hooks_path.read_text())
    assert set(hooks) == {"hooks"}  # Codex rejects other root keys
    assert hooks["hooks"]["Stop"] == json.loads(samples.codex_hooks)["hooks"]["Stop"]
    for event, slug in (
        ("SessionStart", "session-start"),
        ("UserPromptSubmit", "user-prompt-submit"),
    ):
        [group] = hooks["hooks"][event]
        [handler] = group["hooks"]
        assert set(handler) == {"type", "command", "timeout"}
        assert shlex.split(handler["command"])[-4:] == [memvet_script(), "hook", "codex", slug]
    assert hooks["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"

    text = config_path.read_text()
    config = tomllib.loads(text)
    assert config["mcp_servers"]["memvet"]["command"] == memvet_script()
    assert config["mcp_servers"]["memvet"]["args"] == ["mcp"]
    assert config["mcp_servers"]["memvet"]["env"] == {"MEMVET_HOME": os.environ["MEMVET_HOME"]}
    assert config["features"] == {"web_search_request": True, "hooks": True}
    original = tomllib.loads(samples.codex_config)
    for key in ("model", "approval_policy", "profiles", "projects"):
        assert config[key] == original[key]
    assert config["mcp_servers"]["github"] == original["mcp_servers"]["github"]
    # every comment and line of the user's file is still there, in order: the only changes
    # are the hooks switch (its comment kept) and the table appended at the end
    old, new = samples.codex_config.splitlines(), text.splitlines()
    ops = [
        op
        for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    assert [op[0] for op in ops] == ["replace", "insert"]
    assert old[ops[0][1] : ops[0][2]] == ["hooks = false  # off while I debug another hook"]
    assert new[ops[0][3]].startswith("hooks = true  # memvet")
    assert new[ops[0][3]].endswith("# off while I debug another hook")
    assert ops[1][1] == len(old) and new[ops[1][3] + 1] == "[mcp_servers.memvet]"
    assert stat.S_IMODE(config_path.stat().st_mode) == 0o600


def test_second_run_changes_nothing(memvet, wired, samples, codex_dir):
    assert memvet("setup", "codex").returncode == 0
    before = samples.snapshot(codex_dir)
    report = memvet("setup", "codex", "--json").json()
    assert report["changed"] is False
    assert not any("/hooks" in m for m in report["messages"])
    assert samples.snapshot(codex_dir) == before


def test_uninstall_restores_both_files_byte_for_byte(memvet_process, wired, samples):
    config_path, hooks_path = wired
    assert memvet_process("setup", "codex").returncode == 0
    result = memvet_process("setup", "codex", "--uninstall")
    assert result.returncode == 0, result.stderr
    assert "false again" in result.stdout
    assert config_path.read_text() == samples.codex_config
    assert hooks_path.read_text() == samples.codex_hooks
    assert stat.S_IMODE(config_path.stat().st_mode) == 0o600


def test_uninstall_keeps_what_codex_appended_after_our_table(memvet, wired, samples):
    config_path, _ = wired
    assert memvet("setup", "codex").returncode == 0
    # Codex records hook trust in config.toml after the user trusts them in /hooks
    trust = '\n[hooks.state]\n"memvet-session-start" = { trusted_hash = "ab12" }\n'
    config_path.write_text(config_path.read_text() + trust)
    assert memvet("setup", "codex", "--uninstall").returncode == 0
    assert config_path.read_text() == samples.codex_config + trust


def test_fresh_codex_home_gets_created_files_and_loses_them_again(memvet, codex_dir):
    report = memvet("setup", "codex", "--json").json()
    assert [f["action"] for f in report["files"]] == ["created", "created"]
    config = codex_dir / "config.toml"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert tomllib.loads(config.read_text())["mcp_servers"]["memvet"]["args"] == ["mcp"]
    assert "features" not in tomllib.loads(config.read_text())  # hooks are on by default
    report = memvet("setup", "codex", "--uninstall", "--json").json()
    assert [f["action"] for f in report["files"]] == ["removed", "removed"]
    assert not any(p.name in ("config.toml", "hooks.json") for p in codex_dir.iterdir())


@pytest.mark.parametrize(
    "original",
    [
        'model = "gpt-5.4"\n',
        'model = "gpt-5.4"',  # no newline at the end
        '[mcp_servers.github]\ncommand = "npx"\n\n[profiles.a]\nmodel = "x"\n',
        '[mcp_servers]\ngithub = { command = "npx" }\n',
        "[features]\ncodex_hooks = false\nhooks = false\n",
        "# only a comment\n",
    ],
)
def test_config_round_trips(memvet, codex_dir, original):
    config = codex_dir / "config.toml"
    config.write_text(original)
    assert memvet("setup", "codex").returncode == 0
    data = tomllib.loads(config.read_text())
    assert data["mcp_servers"]["memvet"]["args"] == ["mcp"]
    assert data.get("features", {}).get("hooks", True) is True
    assert data.get("features", {}).get("codex_hooks", True) is True
    assert memvet("setup", "codex", "--uninstall").returncode == 0
    expected = original if original.endswith("\n") else original + "\n"  # the one exception
    assert config.read_text() == expected


def test_broken_toml_is_reported_and_nothing_is_written(memvet, wired, samples, codex_dir):
    config_path, _ = wired
    broken = samples.codex_config.replace(
        'approval_policy = "on-request"', "approval_policy = on-request"
    )
    config_path.write_text(broken)
    before = samples.snapshot(codex_dir)
    result = memvet("setup", "codex")
    assert result.returncode == 1
    line = broken.splitlines().index("approval_policy = on-request") + 1
    assert f"{config_path}:{line}:" in result.stderr and "not valid TOML" in result.stderr
    assert samples.snapshot(codex_dir) == before  # hooks.json untouched too
    error = memvet("setup", "codex", "--json").json()["error"]
    assert error["code"] == "invalid_config" and error["line"] == line


def test_broken_hooks_json_is_reported(memvet, wired, codex_dir, samples):
    _, hooks_path = wired
    hooks_path.write_text('{"hooks": {"Stop": [}}\n')
    before = samples.snapshot(codex_dir)
    result = memvet("setup", "codex", "--json")
    assert result.returncode == 1
    assert result.json()["error"]["line"] == 1 and result.json()["error"]["column"] == 21
    assert samples.snapshot(codex_dir) == before


def test_dry_run_shows_diff_of_both_files(memvet, wired, samples, codex_dir):
    before = samples.snapshot(codex_dir)
    result = memvet("setup", "codex", "--dry-run")
    assert result.returncode == 0
    assert "+[mcp_servers.memvet]" in result.stdout
    assert "-hooks = false  # off while I debug another hook" in result.stdout
    assert '+        "matcher": "startup|resume|clear|compact",' in result.stdout
    assert samples.snapshot(codex_dir) == before and not samples.backups(codex_dir)


def test_extra_root_keys_in_hooks_json_are_refused_and_the_file_kept(memvet, codex_dir):
    # Codex 0.171 refuses such a file and runs none of its hooks (issue 10): setup says so and
    # writes nothing; `--fix` is tested in test_status_host_defects.py.
    hooks = codex_dir / "hooks.json"
    hooks.write_text('{\n  "$schema": "x",\n  "hooks": {}\n}\n')
    result = memvet("setup", "codex", "--json")
    assert result.returncode == 1 and "$schema" in result.json()["error"]["message"]
    assert hooks.read_text() == '{\n  "$schema": "x",\n  "hooks": {}\n}\n'


def test_a_foreign_memvet_mcp_table_is_not_removed(memvet, codex_dir):
    config = codex_dir / "config.toml"
    original = '[mcp_servers.memvet]\nurl = "https://memvet.example.com/mcp"\n'
    config.write_text(original)
    report = memvet("setup", "codex", "--uninstall", "--json").json()
    assert config.read_text() == original
    assert any("left alone" in m for m in report["messages"])


def test_moved_memvet_is_updated_in_place_keeping_comments(memvet, codex_dir):
    config = codex_dir / "config.toml"
    config.write_text(
        '[mcp_servers.memvet]\n# mine\ncommand = "/old/venv/bin/memvet"  # moved since\n'
        'args = ["mcp"]\ntool_timeout_sec = 30\n\n[profiles.a]\nmodel = "x"\n'
    )
    report = memvet("setup", "codex", "--json").json()
    assert report["files"][1]["action"] == "updated"
    text = config.read_text()
    assert f'command = "{memvet_script()}"  # moved since' in text
    assert "# mine\n" in text and "tool_timeout_sec = 30" in text  # the user's additions stay
    assert text.count("[mcp_servers.memvet]") == 1
    assert memvet("setup", "codex", "--json").json()["changed"] is False


def test_wrong_shapes_are_refused(memvet, codex_dir, samples):
    (codex_dir / "hooks.json").write_text('{"hooks": []}\n')
    before = samples.snapshot(codex_dir)
    result = memvet("setup", "codex")
    assert result.returncode == 1 and '"hooks" is not an object' in result.stderr
    (codex_dir / "hooks.json").unlink()
    (codex_dir / "config.toml").write_text('mcp_servers = "none"\n')
    result = memvet("setup", "codex")
    assert result.returncode == 1 and "mcp_servers is not a table" in result.stderr
    assert samples.snapshot(codex_dir) == {"config.toml": b'mcp_servers = "none"\n'}
    assert before["hooks.json"] == b'{"hooks": []}\n'
