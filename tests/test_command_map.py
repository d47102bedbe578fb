"""The command -> component map (store/cli_entry_points.py COMMANDS): a named command imports
only its own component's CLI module, yet every command is still there, with the same help, as
when every component registers its commands (console.py's full parser, used for `--help`)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys

import pytest
from memvet.store import cli_entry_points as eps
from memvet.store.console import _parser_for, build_parser, run_cli

COMPONENT_CLIS = {
    "store": "memvet.store.cli",
    "daemon": "memvet.daemon.cli",
    "inspector": "memvet.inspector.cli",
    "install": "memvet.install.cli",
}


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]


def _registered_by() -> dict[str, str | None]:
    """Each command of the full parser and the component that registers it, found by letting
    every component (and the frame's own conventions) register into a parser of its own."""
    own = _parser_for(None, [], [])  # the frame's own conventions come with every parser
    assert own is not None
    found: dict[str, str | None] = dict.fromkeys(_choices(own))
    for component, value in eps.own_command_entry_points():
        parser = _parser_for(None, [(component, value)], [])
        assert parser is not None
        found |= {name: component for name in _choices(parser) if name not in _choices(own)}
    return found


def test_every_command_of_the_full_parser_is_in_the_map_under_its_component():
    registered = _registered_by()
    assert set(registered) == set(_choices(build_parser()))  # the full parser: all of them
    assert {name: component for name, (_, component) in eps.COMMANDS.items()} == registered
    assert set(COMPONENT_CLIS) == {c for _, c in eps.COMMANDS.values() if c}


def test_a_map_that_names_the_wrong_component_still_finds_the_command(monkeypatch):
    """A stale entry costs a scan, not the command."""
    monkeypatch.setitem(eps.COMMANDS, "recall", ("memories", "daemon"))
    assert set(_choices(build_parser(["recall", "x"]))) == {"recall"}
    monkeypatch.setitem(eps.COMMANDS, "recall", ("memories", "no-such-component"))
    assert set(_choices(build_parser(["recall", "x"]))) == {"recall"}


def _printed(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.setenv("COLUMNS", "100")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = run_cli(argv)
        except SystemExit as exc:  # argparse's --help
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_each_commands_help_is_the_full_parsers(monkeypatch):
    """`memvet <command> [<action>] --help` through the map prints what the full parser's
    subparser prints, for every command and every action of it."""
    monkeypatch.setenv("COLUMNS", "100")
    full = build_parser()
    checked = 0
    for name, sub in _choices(full).items():
        actions = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        pairs = [([name], sub)]
        for action in actions:
            pairs += [([name, a], p) for a, p in action.choices.items()]
        for argv, parser in pairs:
            code, out, _ = _printed([*argv, "--help"], monkeypatch)
            assert (code, out) == (0, parser.format_help()), argv
            checked += 1
    assert checked > len(eps.COMMANDS)
    code, out, _ = _printed(["--help"], monkeypatch)
    assert code == 0 and all(f"\n  {name} " in out for name in eps.COMMANDS)


def test_a_command_imports_only_its_own_components_cli():
    script = f"""
import json, sys
from memvet.store.console import build_parser
build_parser(sys.argv[1:])
print(json.dumps(sorted(m for m in sys.modules if m in {sorted(COMPONENT_CLIS.values())!r})))
"""
    for command in ("recall", "status", "queue", "daemon", "up", "paths"):
        done = subprocess.run(
            [sys.executable, "-c", script, command, "x"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        component = eps.COMMANDS[command][1]
        assert json.loads(done.stdout) == ([COMPONENT_CLIS[component]] if component else [])
    done = subprocess.run(  # help lists everything: every component's module
        [sys.executable, "-c", script, "--help"], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == sorted(COMPONENT_CLIS.values())
