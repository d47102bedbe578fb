"""store/hosts.py is the one place that names hosts: a host added there (here a fake third one,
monkeypatched in) shows up in the CLI's choices, the daemon's root lists and its config checks,
and the host folders the service pins; nothing else spells host names."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from memvet.store import hosts
from memvet.store.console import run_cli

REPO = Path(__file__).resolve().parent.parent
FAKE = "pi-agent"


@pytest.fixture
def third_host(monkeypatch, tmp_path):
    entry = hosts.Host(
        FAKE,
        "Pi Agent",
        "pi",
        "PI_AGENT_HOME",
        ".pi",
        roots=(("sessions", "claude-projects"),),
        hook_events=hosts.CONTEXT_EVENTS,
        mcp_file="mcp.json",
    )
    monkeypatch.setitem(hosts.REGISTRY, FAKE, entry)
    monkeypatch.setenv("PI_AGENT_HOME", str(tmp_path / "pi-home"))
    return entry


@pytest.mark.parametrize(
    "argv", [["setup", "no-such-host"], ["extract", "--host", "no-such-host", "x.jsonl"]]
)
def test_cli_choices_come_from_the_registry(third_host, capsys, argv):
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    choices = re.search(r"choose from (.*)\)", err)
    assert choices is not None, err
    assert re.findall(r"[\w-]+", choices.group(1)) == ["claude-code", "codex", FAKE]


def test_root_lists_and_checks_come_from_the_registry(third_host, tmp_path):
    from memvet.daemon.roots import all_roots, default_roots, extra_roots
    from memvet.daemon.settings import ConfigError

    mine = [r for r in default_roots() if r.host == FAKE]
    assert [(r.path, r.layout) for r in mine] == [
        (str(tmp_path / "pi-home" / "sessions"), "claude-projects")
    ]
    assert [r.host for r in all_roots()].count(FAKE) == 1
    assert extra_roots([{"host": FAKE, "path": str(tmp_path)}])[0].host == FAKE
    with pytest.raises(ConfigError, match=f"one of claude-code, codex, {FAKE}"):
        extra_roots([{"host": "no-such-host", "path": str(tmp_path)}])


def test_service_pins_the_new_hosts_folder(third_host, tmp_path):
    from memvet.install.host_folders import service_env

    assert service_env()["PI_AGENT_HOME"] == str(tmp_path / "pi-home")


def test_host_names_are_spelled_only_in_the_registry():
    """Outside store/hosts.py a host name may stand in docstrings and data folder names, not code."""
    found = subprocess.run(
        [
            "git",
            "grep",
            "--untracked",
            "-n",
            "-E",
            r'"(claude-code|codex)"',
            "--",
            "store",
            "daemon",
            "install",
            "inspector",
            ":!store/hosts.py",
            ":!*.md",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    allowed = (
        'pins the host."""',
        '{"host": "codex", "kind": Kind.FACT}',
    )
    assert [line for line in found if not any(a in line for a in allowed)] == []
