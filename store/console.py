"""The command-line frame shared by every component: argument parsing, the --json contract,
errors mapped to exit codes (interfaces.md: 0 done, 1 refused, 2 usage, 3 store unavailable).

Components register subcommands through entry points (group `memvet.commands`): each provides
`register(subparsers)` and sets `handler=` on its parsers; a handler takes the parsed args and
returns an exit code. Handlers import what they need lazily.
"""

from __future__ import annotations

import argparse
import json
import sys

from memvet.store.errors import MemvetError, UsageError

TYPE_CHECKING = False  # not typing's: every command imports this module, typing costs ~4 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    Handler = Callable[[argparse.Namespace], int]


def _columns() -> int:
    """shutil.get_terminal_size's width (COLUMNS, else the terminal's, else 80) without
    shutil, which loads bz2 and lzma: argparse makes a formatter for every argument it adds."""
    import os

    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            stdout = sys.__stdout__
            columns = os.get_terminal_size(stdout.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("width", _columns() - 2)  # argparse's own margin
        super().__init__(*args, **kwargs)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        exc = UsageError(f"{self.prog}: {message}")
        exc.usage = self.format_usage().strip()  # type: ignore[attr-defined]  # humans only
        raise exc


class _TopParser(_Parser):
    def format_help(self) -> str:
        from memvet.store.cli_help import format_top_help

        return format_top_help(self, self._subparsers._group_actions[0])  # type: ignore[union-attr]


class _Skipped:
    """The parser of a command this run does not invoke: takes every call, keeps nothing."""

    def __getattr__(self, _name: str) -> Callable[..., _Skipped]:
        return self._anything

    def _anything(self, *_args: object, **_kwargs: object) -> _Skipped:
        return self


class _OnlyCommand:
    """The subparsers action as components see it when the command is named up front: its
    parser is built, every other command's skipped (building all ~50 parsers, argparse and
    gettext look-ups included, cost more than a read command's own work)."""

    def __init__(self, sub: argparse._SubParsersAction, command: str) -> None:
        self._sub, self._command, self.found = sub, command, False

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser | _Skipped:
        if self._command != name and self._command not in kwargs.get("aliases", ()):
            return _Skipped()
        self.found = True
        return self._sub.add_parser(name, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sub, name)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Every command's parser; with `argv` naming a command, only that one's (any other
    argv, `--help` or an unknown command, builds them all, so help and errors list all).
    A built-in command is registered by its own component alone (COMMANDS), else looked up
    in memvet's own entry points: only a command they do not name (another distribution's)
    costs the scan of every installed package."""
    from memvet.store import cli_entry_points as eps

    command = argv[0] if argv and not argv[0].startswith("-") else None
    unavailable: list[str] = []  # said once, by the pass whose parser is used
    parser = None
    if command is not None:
        for entry_points in _lookups(command):
            unavailable.clear()
            parser = _parser_for(command, entry_points, unavailable)
            if parser is not None:
                break
    if parser is None:
        unavailable.clear()
        parser = _parser_for(None, eps.command_entry_points(), unavailable)
    for message in unavailable:
        print(message, file=sys.stderr)
    assert parser is not None  # with no command named, every parser is built
    return parser


def _lookups(command: str) -> Iterator[list[tuple[str, str]]]:
    """Where `command` is looked for, cheapest first (each only when the last did not have it):
    its component's entry point, memvet's own, every installed distribution's."""
    from memvet.store import cli_entry_points as eps

    mapped = eps.component_entry_points(command)
    if mapped is not None:
        yield mapped
    yield eps.own_command_entry_points()
    yield eps.command_entry_points()


def _parser_for(
    command: str | None, entry_points: list[tuple[str, str]], unavailable: list[str]
) -> argparse.ArgumentParser | None:
    """The top parser with these components' commands (only `command`'s, when named); None
    when `command` is named but none of them registers it. A component that fails to import
    goes to `unavailable` (a broken one must not take the others down)."""
    from memvet.store import cli_conventions
    from memvet.store.cli_entry_points import load

    parser = _TopParser(prog="memvet", description="Reviewed memory for coding agents.")
    parser.add_argument("-V", "--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    target: Any = sub if command is None else _OnlyCommand(sub, command)
    for name, value in entry_points:
        try:
            register = load(value)
        except ImportError as exc:
            unavailable.append(f"memvet: the {name} commands are unavailable ({exc})")
            continue
        register(target)  # type: ignore[operator]
    cli_conventions.register(target)
    if command is not None and not target.found:
        return None
    return parser


def wants_json(argv: list[str]) -> bool:
    return "--json" in argv


def run_cli(argv: list[str]) -> int:
    as_json = wants_json(argv)
    try:
        check_text_arguments(argv)
        if not argv:
            argv = ["up"]  # `memvet` alone opens the inspector with the daemon running
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if args.version:
            from importlib.metadata import version

            print(version("memvet"))
            return 0
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return 2
        return handler(args)
    except MemvetError as exc:
        return report_error(exc, as_json)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # SQLite's busy error where no engine translated it (connect)
        from memvet.store.busy import busy_error, is_busy
        from memvet.store.engine import BUSY_TIMEOUT_MS
        from memvet.store.paths import db_path

        if not is_busy(exc):
            raise
        return report_error(busy_error(db_path(), BUSY_TIMEOUT_MS / 1000), as_json)


def check_text_arguments(argv: list[str]) -> None:
    """Invalid UTF-8 in argv reaches Python as lone surrogates (surrogateescape), which no
    encoder, cipher or JSON document downstream accepts: refuse it here, in one line. The
    argument itself is not echoed (it may be a statement)."""
    for position, arg in enumerate(argv, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise UsageError(
                f"argument {position} is not valid UTF-8 text (character "
                f"{exc.start + 1} cannot be encoded); pass text in UTF-8",
                code="invalid_text",
            ) from None


def report_error(exc: MemvetError, as_json: bool) -> int:
    usage = getattr(exc, "usage", None)
    if as_json:
        print(json.dumps(exc.to_json()))
    elif usage:  # argparse's own error: the message already names the command
        print(f"{usage}\n{exc.message}", file=sys.stderr)
    else:
        print(f"memvet: {exc.message}", file=sys.stderr)
    return exc.exit_code


def emit(args: argparse.Namespace, payload: dict[str, Any], human: Callable[[], object]) -> None:
    """Print exactly one JSON document with --json, else the human form. Either way nothing
    that could drive the terminal (escape sequences, C1 controls, bidi overrides) is printed
    raw: stored text older than the admission gate, or paths, may still hold some."""
    from memvet.store.text_safety import for_terminal, json_safe

    if getattr(args, "json", False):
        print(json_safe(json.dumps(payload, ensure_ascii=False)))
    else:
        import contextlib
        import io

        captured = io.StringIO()
        with contextlib.redirect_stdout(captured):
            human()
        sys.stdout.write(for_terminal(captured.getvalue()))


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document")
