"""The frame's own commands, which belong to no component (`paths`, `completion`), and the
argument conventions every command shares (`parse_time`). Import-light: the read commands
load it without the ORM."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

SHELLS = ("bash", "zsh", "fish")


def parse_time(value: str | None) -> datetime | None:
    """An ISO 8601 argument (`--as-of`, `--recorded-as-of`); a time without an offset is UTC."""
    if value is None:
        return None
    from datetime import UTC, datetime

    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        from memvet.store.errors import UsageError

        raise UsageError(f"not an ISO 8601 time: {value!r} (e.g. 2026-03-01T12:00:00Z)") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def register(sub: argparse._SubParsersAction) -> None:
    from memvet.store.console import add_json_flag

    p = sub.add_parser(
        "paths", help="where the store, config, logs, socket and keys live (writes nothing)"
    )
    add_json_flag(p)
    p.set_defaults(handler=show_paths)

    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh, fish)")
    p.add_argument("shell", choices=SHELLS)
    p.set_defaults(handler=print_completion)


def memvet_paths() -> dict[str, str]:
    """Resolved from the environment only: nothing is opened or created."""
    from memvet.store import paths

    return {
        "home": str(paths.memvet_home()),
        "store": str(paths.db_path()),
        "config": str(paths.config_path()),
        "logs": str(paths.log_dir()),
        "socket": str(paths.socket_path()),
        # The key file (kek-v<N>) lives here only where no OS keyring is usable.
        "keys": str(paths.key_dir()),
        "claude_config": str(paths.claude_config_dir()),
        "codex_home": str(paths.codex_home()),
    }


def show_paths(args: argparse.Namespace) -> int:
    from memvet.store.console import emit

    found = memvet_paths()
    width = max(len(name) for name in found) + 2

    def human() -> None:
        for name, where in found.items():
            print(f"{name:<{width}}{where}")

    emit(args, {"paths": found}, human)
    return 0


def print_completion(args: argparse.Namespace) -> int:
    import shtab
    from memvet.store.console import build_parser

    print(shtab.complete(build_parser(), shell=args.shell))
    return 0
