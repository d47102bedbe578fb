"""What people expect of a Python CLI, through real processes: `python -m memvet`, `-V`, help by
task, a usage error printed once, `memvet paths`, shell completion; `memvet hook` untouched."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from memvet.store.cli_help import TASKS

MEMVET = [sys.executable, "-m", "memvet"]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [*MEMVET, *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_python_dash_m_memvet_prints_the_version(flag):
    done = run(flag)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, version("memvet"), "")


def test_the_console_script_and_python_dash_m_agree():
    script = shutil.which("memvet", path=str(Path(sys.executable).parent))
    assert script, "the memvet console script is not installed next to this interpreter"
    by_script = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=120)
    assert by_script.returncode == 0
    assert by_script.stdout == run("--help").stdout


def test_help_lists_every_command_once_under_its_task():
    done = run("--help")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    headings = [line[:-1] for line in lines if line.endswith(":") and not line.startswith(" ")]
    assert headings[0] == "options"
    assert headings[1 : len(TASKS) + 1] == list(TASKS)
    commands = [
        line.split()[0]
        for line in lines
        if line.startswith("  ") and not line.lstrip().startswith("-") and line[2] != " "
    ]
    assert len(commands) == len(set(commands))
    assert {"queue", "memories", "setup", "daemon", "key", "paths", "completion"} <= set(commands)
    # each command sits under the task that names it
    section = None
    for line in lines:
        if line.endswith(":") and not line.startswith(" "):
            section = line[:-1]
        elif section in TASKS and line.startswith("  ") and line.strip():
            assert line.split()[0] in TASKS[section], line


@pytest.mark.parametrize(
    "args, prog",
    [
        (["queue"], "memvet queue"),
        (["nosuch"], "memvet"),
        (["memories", "list", "--bogus"], "memvet"),
    ],
)
def test_a_usage_error_prints_the_usage_once_without_a_doubled_prefix(args, prog):
    done = run(*args)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert sum(line.startswith("usage:") for line in lines) == 1
    assert lines[0].startswith(f"usage: {prog}")
    assert "memvet: memvet" not in done.stderr
    assert lines[-1].startswith(f"{prog}: ")


def test_a_usage_error_with_json_is_one_document_without_the_usage():
    done = run("nosuch", "--json")
    assert done.returncode == 2 and done.stderr == ""
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "usage" and "invalid choice" in error["message"]
    assert "usage:" not in done.stdout


def test_paths_reports_where_everything_lives_and_creates_nothing(isolated_env, tmp_path):
    import os

    home = Path(os.environ["MEMVET_HOME"])
    before = sorted(tmp_path.rglob("*"))
    done = run("paths", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["paths"]
    assert found["home"] == str(home)
    assert found["store"] == str(home / "memvet.db")
    assert found["config"] == str(home / "config.toml")
    assert found["logs"] == str(home / "logs")
    assert found["socket"] == str(home / "run" / "daemon.sock")
    assert found["keys"] == str(home / "keys")
    assert found["claude_config"] == os.environ["CLAUDE_CONFIG_DIR"]
    assert found["codex_home"] == os.environ["CODEX_HOME"]
    assert sorted(tmp_path.rglob("*")) == before  # no store, no folders, nothing written
    human = run("paths")
    assert human.returncode == 0
    assert {line.split()[0]: line.split(None, 1)[1] for line in human.stdout.splitlines()} == found


@pytest.mark.parametrize(
    "shell, marker",
    [("bash", "complete -o"), ("zsh", "#compdef memvet"), ("fish", "complete -c memvet")],
)
def test_completion_scripts_name_the_commands(shell, marker):
    done = run("completion", shell)
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout
    for command in ("queue", "memories", "setup", "paths"):
        assert command in done.stdout


def test_completion_refuses_an_unknown_shell():
    done = run("completion", "tcsh")
    assert done.returncode == 2 and "invalid choice" in done.stderr


PROBE = """
import sys, io
sys.stdin = io.StringIO("{}")
from memvet.install.launcher import main
main(["hook", "claude-code", "UserPromptSubmit"])
loaded = set(sys.modules)
sys.stderr.write(" ".join(n for n in ("argparse", "shtab", "memvet.store.console",
                                       "memvet.store.cli_help") if n in loaded))
"""


def test_the_hook_still_skips_argparse_and_completion(isolated_env):
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1:] in ([], [""]), done.stderr


def test_the_docs_name_what_the_service_units_run():
    from memvet.install.service import daemon_argv

    ran = " ".join(daemon_argv()[1:])  # after the interpreter, whose path is the user's
    docs = Path(__file__).resolve().parents[1] / "docs"
    for page in ("daemon.md", "host-integration.md"):
        assert f"-m {ran.removeprefix('-m ')}" in (docs / page).read_text(), page
    assert "python -m memvet.daemon run" not in (docs / "daemon.md").read_text()


def test_python_dash_m_memvet_runs_the_hook_too(isolated_env):
    done = run("hook", "claude-code", "UserPromptSubmit", stdin="not json")
    assert done.returncode == 0  # a hook always exits 0, whatever it was given
    assert "usage:" not in done.stderr and "Traceback" not in done.stderr


def test_the_frame_finds_the_entry_points_importlib_metadata_finds(tmp_path, monkeypatch):
    """store/cli_entry_points.py reads entry_points.txt itself: the same list, and the first
    distribution of a name wins (a second copy further down sys.path is not read)."""
    from importlib.metadata import entry_points

    from memvet.store import cli_entry_points as cep

    expected = sorted((ep.name, ep.value) for ep in entry_points(group=cep.GROUP))
    assert expected and cep.command_entry_points() == expected
    shadow = tmp_path / "Memvet-9.9.dist-info"
    shadow.mkdir()
    (shadow / "entry_points.txt").write_text(f"[{cep.GROUP}]\nghost = nowhere:register\n")
    other = tmp_path / "other_tool-1.0.dist-info"
    other.mkdir()
    (other / "entry_points.txt").write_text(
        f"# comment\n[console_scripts]\nx = y:z\n[{cep.GROUP}]\n extra = pkg.mod:reg [opt]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))  # first on the path: its memvet wins
    assert cep.command_entry_points() == [
        ("extra", "pkg.mod:reg [opt]"),
        ("ghost", "nowhere:register"),
    ]
    assert cep.command_entry_points() == sorted(
        (ep.name, ep.value) for ep in entry_points(group=cep.GROUP)
    )
    assert cep.load("memvet.store.cli_help:TASKS [x]") is TASKS


def test_only_the_named_command_is_built_and_an_unknown_one_lists_all():
    from memvet.store.console import build_parser

    def commands(parser) -> set[str]:  # noqa: ANN001
        return set(parser._subparsers._group_actions[0].choices)

    everything = commands(build_parser())
    assert {"queue", "recall", "status", "paths", "daemon"} <= everything
    assert commands(build_parser(["queue", "list"])) == {"queue"}
    assert commands(build_parser(["no-such-command"])) == everything
    assert commands(build_parser(["--help"])) == everything
    approve = build_parser(["queue", "approve", "c_1", "--json"]).parse_args(
        ["queue", "approve", "c_1", "--json"]
    )
    assert approve.ids == ["c_1"] and approve.json and callable(approve.handler)


def _plugin_distribution(folder: Path, entry_points: str) -> None:
    """Another installed distribution with `memvet.commands` entry points, in `folder`."""
    (folder / "memvet_test_plugin.py").write_text(
        "def register(sub):\n"
        "    p = sub.add_parser('plugin-hello', help='a command of another distribution')\n"
        "    p.set_defaults(handler=lambda args: print('hello from the plugin') or 0)\n"
    )
    info = folder / "memvet_test_plugin-1.0.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_text(f"[memvet.commands]\n{entry_points}")


def test_a_built_in_command_reads_only_memvets_own_entry_points(tmp_path, monkeypatch, capsys):
    """console.py finds `paths`, `queue` ... in memvet's own entry_points.txt: another
    distribution's file is not read for them (a broken one says nothing), but its commands
    still run, and help (or an unknown command) still consults every distribution."""
    from importlib.metadata import distribution

    from memvet.store.cli_entry_points import GROUP, own_command_entry_points
    from memvet.store.console import build_parser, run_cli

    own = sorted(
        (ep.name, ep.value) for ep in distribution("memvet").entry_points.select(group=GROUP)
    )
    assert own and own_command_entry_points() == own
    _plugin_distribution(
        tmp_path, "hello = memvet_test_plugin:register\nbroken = memvet_no_such_module:register\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "memvet_test_plugin", raising=False)
    assert own_command_entry_points() == own  # the other distribution is not memvet's
    unavailable = "the broken commands are unavailable"
    for argv in (["paths"], ["queue", "list"], ["status"]):
        parser = build_parser(argv)
        assert set(parser._subparsers._group_actions[0].choices) == {argv[0]}
        assert unavailable not in capsys.readouterr().err, argv
    assert "memvet_test_plugin" not in sys.modules  # nor was the plugin imported
    assert run_cli(["plugin-hello"]) == 0
    done = capsys.readouterr()
    assert "hello from the plugin" in done.out and done.err.count(unavailable) == 1
    build_parser(["no-such-command"])
    assert capsys.readouterr().err.count(unavailable) == 1  # said once, not once a pass
    assert "plugin-hello" in build_parser(["--help"])._subparsers._group_actions[0].choices


def test_help_wraps_at_the_width_shutil_would_give(monkeypatch):
    """The command frame finds argparse's width without importing shutil (console.py): help
    wraps exactly as argparse's own formatter does, at each width."""
    import argparse

    from memvet.store.console import build_parser

    shown = []
    for columns in ("52", "140"):
        monkeypatch.setenv("COLUMNS", columns)
        parser = build_parser(["queue", "approve", "--help"])
        queue = parser._subparsers._group_actions[0].choices["queue"]
        approve = queue._subparsers._group_actions[0].choices["approve"]
        shown.append(approve.format_help())
        approve.formatter_class = argparse.HelpFormatter  # shutil.get_terminal_size's width
        assert shown[-1] == approve.format_help(), columns
    assert shown[0] != shown[1]
