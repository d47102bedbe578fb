"""The install component's subcommands: what memvet writes into hosts and the OS.

Each command has a small `_add_<command>` below; handlers live in their own modules and are
imported only when the command runs (the launcher loads every component's `register`).
"""

from __future__ import annotations

import argparse

from memvet.store import hosts
from memvet.store.console import add_json_flag

SERVICE_ACTIONS = ("install", "uninstall", "start", "stop", "status")


def register(sub: argparse._SubParsersAction) -> None:
    _add_setup(sub)
    _add_service(sub)
    register_read_side(sub)
    _add_demo(sub)


def _add_demo(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="try memvet on a throwaway store and bundled transcripts (touches nothing of yours)",
        description="Ingest the bundled demo transcripts into a temporary MEMVET_HOME with the "
        "real daemon, approve last week's memories, then open the inspector on this week's "
        "review queue. Your store, hosts and keyring are not touched.",
    )
    p.add_argument("--no-tui", action="store_true", help="print the queue instead of the inspector")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder afterwards")
    p.set_defaults(handler=_lazy("memvet.install.demo", "run"))


def _add_setup(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "setup",
        help="wire memvet into a host (hooks and MCP server); idempotent, with backups",
        description="Add memvet's hooks and MCP server to a host's settings, or remove them. "
        "Each changed file is backed up first as <file>.memvet-backup-<UTC time>.",
    )
    p.add_argument("host", choices=hosts.names())
    p.add_argument("--dry-run", action="store_true", help="print the diff; write nothing")
    p.add_argument("--uninstall", action="store_true", help="remove only what memvet added")
    p.add_argument(
        "--fix",
        action="store_true",
        help="codex: move hooks.json root keys Codex rejects out of the file",
    )
    p.add_argument(
        "--native-memory",
        choices=("gate", "off", "leave"),
        default="gate",
        help="claude-code: the host's own auto memory through memvet's review "
        "(default), switched off, or left alone",
    )
    add_json_flag(p)
    p.set_defaults(handler=_setup)


def _add_service(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "service",
        help="run the daemon as a systemd user service or launchd agent",
        description="Install, remove, start, stop or inspect the daemon's service "
        "(systemd user unit on Linux, launchd agent on macOS).",
    )
    p.add_argument("action", choices=SERVICE_ACTIONS)
    add_json_flag(p)
    p.set_defaults(handler=_service)


def _setup(args: argparse.Namespace) -> int:
    from memvet.install.setup_run import handle

    return handle(args)


def _service(args: argparse.Namespace) -> int:
    from memvet.install.service import handle

    return handle(args)


# --- the read side: recall, hook, MCP server, status, doctor ------------------------------------
def register_read_side(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("recall", help="what memvet knows about a question (a knowledge state)")
    p.add_argument("query")
    p.add_argument("--cwd", metavar="DIR", help="the workspace to ask in (default: here)")
    p.add_argument("--as-of", metavar="T", help="ask about an earlier time (ISO 8601)")
    p.add_argument(
        "--recorded-as-of",
        metavar="T",
        help="answer as the store stood at that record time (ISO 8601)",
    )
    add_json_flag(p)
    p.set_defaults(handler=_lazy("memvet.install.recall_command", "run"))
    # `memvet hook` never gets here (the launcher runs it before argparse); listed for --help.
    p = sub.add_parser("hook", help="context for a host hook: reads its JSON on stdin, exits 0")
    p.add_argument("host", choices=hosts.names())
    p.add_argument("event", choices=("session-start", "user-prompt-submit"))
    p.set_defaults(
        handler=lambda a: __import__("memvet.install.hook_entry", fromlist=["main"]).main(
            [a.host, a.event]
        )
    )
    p = sub.add_parser("mcp", help="stdio MCP server (read-only unless [mcp] writeback = true)")
    p.set_defaults(handler=_lazy("memvet.install.mcp_server", "run"))
    p = sub.add_parser("status", help="what is wired, daemon and service, key, queue, warnings")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("memvet.install.status", "status_command"))
    p = sub.add_parser("doctor", help="the status checks as ok/warn/fail lines with fixes")
    p.add_argument(
        "--deep",
        action="store_true",
        help="SQLite's full integrity_check instead of its quick_check",
    )
    p.add_argument(
        "--config",
        action="store_true",
        help="print the effective configuration (config.toml and policy.toml, defaults filled in)",
    )
    add_json_flag(p)
    p.set_defaults(handler=_lazy("memvet.install.status", "doctor_command"))


def _lazy(module: str, name: str):  # noqa: ANN202 - a handler
    def handler(args: argparse.Namespace) -> int:
        import importlib

        return getattr(importlib.import_module(module), name)(args)

    return handler
