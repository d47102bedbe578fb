"""The daemon's subcommands. Heavy modules are imported inside the handlers, not here.

`memvet daemon run [--once]` / `memvet daemon status [--json]` (daemon runtime) and
`memvet extract` (the ingest pipeline's dry run) register through this one `register`.
"""

from __future__ import annotations

import argparse

from memvet.store.console import add_json_flag


def register(sub: argparse._SubParsersAction) -> None:
    daemon = sub.add_parser("daemon", help="the background daemon that reads transcripts")
    add_daemon_commands(daemon.add_subparsers(dest="daemon_command", metavar="ACTION",
                                              required=True))


def add_daemon_commands(sub: argparse._SubParsersAction) -> None:
    """Shared with `python -m memvet.daemon` (what the service units run)."""
    from memvet.daemon import commands

    p = sub.add_parser("run", help="run the daemon in the foreground (what service units run)")
    p.add_argument("--once", action="store_true",
                   help="read everything new, run the sweeps that are due, and exit")
    p.set_defaults(handler=commands.run)
    p = sub.add_parser("status", help="running or not, watched roots, files tracked, lag")
    add_json_flag(p)
    p.set_defaults(handler=commands.status)
