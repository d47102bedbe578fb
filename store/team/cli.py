"""The team's subcommands: `memvet team …`, `memvet sync`, `memories share ID`, and the `--team`
flag of `propose`, `queue list` and `memories list`. Handlers (commands.py) are imported only
when one runs; nothing here imports psycopg or SQLAlchemy."""

from __future__ import annotations

import argparse
from importlib import import_module

from memvet.store.console import add_json_flag


def _lazy(name: str):  # noqa: ANN202
    def handler(args: argparse.Namespace) -> int:
        return getattr(import_module("memvet.store.team.commands"), name)(args)

    return handler


def add_team_flag(parser: argparse.ArgumentParser, name: str) -> None:
    """`--team` on a local command: the team's twin of it runs instead."""
    parser.add_argument(
        "--team",
        action="store_true",
        help="the team store's (docs/team.md) instead of this machine's",
    )
    local, team = parser.get_default("handler"), _lazy(name)
    parser.set_defaults(handler=lambda args: team(args) if args.team else local(args))


def add_recover_flags(p: argparse.ArgumentParser) -> None:
    """`team recover`'s flags: the local `queue recover`'s, and --force for a live lease."""
    p.add_argument("id", metavar="ID")
    how = p.add_mutually_exclusive_group(required=True)
    for action, text in (
        ("commit", "approve it yourself (the team policy applies)"),
        ("release", "back to pending, to be decided again"),
        ("reject", "reject it and tombstone it for the team"),
    ):
        how.add_argument(
            f"--{action}", dest="action", action="store_const", const=action, help=text
        )
    p.add_argument(
        "--force",
        action="store_true",
        help="recover a lease that has not run out (its machine is known to be gone)",
    )
    add_json_flag(p)


def add_share(memories: argparse._SubParsersAction) -> None:
    p = memories.add_parser("share", help="offer a memory to the team (a team candidate)")
    p.add_argument("id")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("memories_share"))


def register_team(sub: argparse._SubParsersAction) -> None:
    team = sub.add_parser(
        "team", help="the team store on PostgreSQL (docs/team.md)"
    ).add_subparsers(dest="team_command", metavar="ACTION", required=True)
    for name, text in (
        ("create", "set up a team on a PostgreSQL server; you are its admin"),
        ("join", "register this machine to join a team; an admin admits it"),
    ):
        p = team.add_parser(name, help=text)
        p.add_argument("url", metavar="URL", help="postgresql://USER[:PASSWORD]@HOST:PORT/DB")
        p.add_argument("--name", required=True, help="how the team sees you")
        if name == "create":
            p.add_argument(
                "--personal",
                action="store_true",
                help="a team of your own machines: your memories and tombstones sync",
            )
            p.add_argument("--approvals-required", type=int, default=1)
            p.add_argument(
                "--self-approval",
                action="store_true",
                help="let a member approve its own proposals",
            )
        else:
            p.add_argument(
                "--team",
                dest="team_id",
                metavar="ID",
                help="which team, when the server holds several",
            )
        add_json_flag(p)
        p.set_defaults(handler=_lazy(f"team_{name}"))
    p = team.add_parser("members", help="members, roles, status and key versions")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("team_members"))
    p = team.add_parser("admit", help="admit a pending member (wraps the team key for it)")
    p.add_argument("member", metavar="MEMBER")
    p.add_argument("--role", choices=("approver", "member"), default="member")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("team_admit"))
    p = team.add_parser("remove", help="remove a member and rotate the team key")
    p.add_argument("member", metavar="MEMBER")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("team_remove"))
    p = team.add_parser("status", help="server, lag, outbox size, last sync, key version")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("team_status"))
    for name, text in (
        ("approve", "approve team candidates (needs the approver role)"),
        ("reject", "reject team candidates and tombstone them for the team"),
    ):
        p = team.add_parser(name, help=text)
        p.add_argument("ids", nargs="+", metavar="ID")
        add_json_flag(p)
        p.set_defaults(handler=_lazy(f"team_{name}"))
    p = team.add_parser("recover", help="settle a team reservation whose approver's machine died")
    add_recover_flags(p)
    p.set_defaults(handler=_lazy("team_recover"))
    audit = team.add_parser("audit", help="the team's audit chain").add_subparsers(
        dest="team_audit_command", metavar="ACTION", required=True
    )
    p = audit.add_parser("verify", help="walk the chain; exit 1 naming the first bad event")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("team_audit_verify"))
    p = team.add_parser("migrate", help="upgrade the server schema to this memvet's")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("team_migrate"))
    p = sub.add_parser("sync", help="sync with the team server (the daemon also does this)")
    p.add_argument("--once", action="store_true", help="one pass, then exit")
    add_json_flag(p)
    p.set_defaults(handler=_lazy("sync"))
