"""The store's subcommands: propose, queue, memories, key, audit, migrate. The CLI twins of
what the inspector does, through the same Store API."""

from __future__ import annotations

import argparse

from memvet.store.cli_conflicts import add_conflict_flags
from memvet.store.console import add_json_flag
from memvet.store.team.cli import add_share, add_team_flag, register_team
from memvet.store.vocabulary import CANDIDATE_STATUSES, KINDS, MEMORY_STATUSES, POLARITIES, Kind


class _Lazy:
    """Resolves `memvet.store.<module>.<name>` only when the command runs, so that building
    the parser for any memvet command does not import SQLAlchemy."""

    def __init__(self, module: str = "cli_handlers") -> None:
        self._module = module

    def __getattr__(self, name: str):  # noqa: ANN204
        module = self._module

        def handler(args: argparse.Namespace) -> int:
            from importlib import import_module

            return getattr(import_module(f"memvet.store.{module}"), name)(args)

        return handler


def register(sub: argparse._SubParsersAction) -> None:
    h = _Lazy()
    lists = _Lazy("cli_lists")  # read paths: no SQLAlchemy unless they must (read_layer.py)

    p = sub.add_parser("propose", help="put an operator-typed candidate into the review queue")
    p.add_argument("statement")
    p.add_argument("--kind", choices=KINDS, default=Kind.FACT)
    _scope_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=h.propose)
    add_team_flag(p, "propose")

    queue = sub.add_parser("queue", help="the review queue").add_subparsers(
        dest="queue_command", metavar="ACTION", required=True
    )
    p = queue.add_parser("list", help="candidates (default: pending and stale)")
    p.add_argument("--status", action="append", choices=CANDIDATE_STATUSES)
    _page_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=lists.queue_list)
    add_team_flag(p, "queue_list")
    p = queue.add_parser("show", help="one candidate with evidence, conflicts, tombstone hits")
    p.add_argument("id")
    add_json_flag(p)
    p.set_defaults(handler=h.queue_show)
    p = queue.add_parser("approve", help="reserve and commit each candidate")
    p.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="candidate ids; `-` (or none, with stdin not a terminal): read them from "
        "stdin, one or more per line",
    )
    p.add_argument("--statement")
    p.add_argument("--kind", choices=KINDS)
    p.add_argument(
        "--no-supersede",
        action="store_true",
        help="do not follow the correction's link (a conflict still needs a choice)",
    )
    add_conflict_flags(p)
    p.add_argument(
        "--polarity",
        choices=POLARITIES,
        help="correct a misread negation: the memory asserts or denies",
    )
    p.add_argument(
        "--force-over-tombstone",
        action="store_true",
        help="commit although the statement matches a tombstone (audited)",
    )
    _scope_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=_Lazy("cli_approve").queue_approve)  # the daemon route
    p = queue.add_parser("reject", help="reject and tombstone")
    p.add_argument("ids", nargs="+", metavar="ID")
    p.add_argument("--reason")
    add_json_flag(p)
    p.set_defaults(handler=h.queue_reject)
    p = queue.add_parser("recover", help="settle a stale reservation")
    p.add_argument("id")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--commit", dest="action", action="store_const", const="commit")
    how.add_argument("--release", dest="action", action="store_const", const="release")
    how.add_argument("--reject", dest="action", action="store_const", const="reject")
    add_json_flag(p)
    p.set_defaults(handler=h.queue_recover)

    mem = sub.add_parser("memories", help="approved memories").add_subparsers(
        dest="memories_command", metavar="ACTION", required=True
    )
    p = mem.add_parser("list", help="memories in scope (default: active, this directory's scope)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--cwd", metavar="DIR")
    where.add_argument("--global", dest="global_", action="store_true")
    where.add_argument("--all-scopes", action="store_true")
    p.add_argument("--status", action="append", choices=MEMORY_STATUSES)
    p.add_argument("--as-of", metavar="T", help="valid at time T (ISO 8601)")
    p.add_argument("--recorded-as-of", metavar="T", help="as recorded at time T (ISO 8601)")
    p.add_argument(
        "--review",
        action="store_true",
        help='active memories due for a "still true?" look (review.py)',
    )
    _page_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=lists.memories_list)
    add_team_flag(p, "memories_list")
    add_share(mem)
    p = mem.add_parser(
        "import",
        help="the operator's bulk import from a JSONL file "
        '(one {"statement", "kind", …} per line)',
    )
    p.add_argument("file", metavar="FILE.jsonl")
    _scope_flags(p)
    p.add_argument(
        "--skip-bad",
        action="store_true",
        help="import the good lines and report the bad ones (default: all or nothing)",
    )
    add_json_flag(p)
    p.set_defaults(handler=_Lazy("cli_import").memories_import)
    p = mem.add_parser(
        "edit", help="change an active memory's text, subject, kind or validity (audited; undoable)"
    )
    p.add_argument("id")
    p.add_argument("--statement", help="the new text (redacted like any statement)")
    p.add_argument("--kind", choices=KINDS)
    p.add_argument("--polarity", choices=POLARITIES)
    p.add_argument("--valid-from", metavar="T", help="valid from time T (ISO 8601)")
    until = p.add_mutually_exclusive_group()
    until.add_argument("--valid-until", metavar="T", help="valid until time T (ISO 8601)")
    until.add_argument("--open", action="store_true", help="no end of validity any more")
    add_conflict_flags(p)
    p.add_argument(
        "--force-over-tombstone",
        action="store_true",
        help="write it although the new text matches a tombstone (audited)",
    )
    p.add_argument("--undo", action="store_true", help="take the last edit back instead")
    add_json_flag(p)
    p.set_defaults(handler=_Lazy("cli_edit").memories_edit)
    p = mem.add_parser("confirm", help="it is still true: looked at now (clears the review flag)")
    p.add_argument("id")
    add_json_flag(p)
    p.set_defaults(handler=h.memories_confirm)
    for name, text in (
        ("false-write", "it should never have been written: retire + tombstone"),
        ("forget", "retire and tombstone"),
        ("dispute", "exclude from recall"),
        ("restore", "make a retired or disputed memory active again"),
    ):
        p = mem.add_parser(name, help=text)
        p.add_argument("id")
        if name == "false-write":
            p.add_argument("--reason")
        p.add_argument("--txn-id", help="idempotency key: a replay is a reported no-op")
        add_json_flag(p)
        p.set_defaults(handler=h.memories_action, action=name)

    keys = _Lazy("cli_keys")
    key = sub.add_parser("key", help="the store's keys").add_subparsers(
        dest="key_command", metavar="ACTION", required=True
    )
    p = key.add_parser("status", help="which provider holds the key")
    add_json_flag(p)
    p.set_defaults(handler=keys.key_status)
    p = key.add_parser("rotate", help="re-wrap the data key under a new key-encryption key")
    p.add_argument(
        "--finish",
        action="store_true",
        help="only remove the keys an interrupted rotation left behind",
    )
    add_json_flag(p)
    p.set_defaults(handler=keys.key_rotate)

    audit = sub.add_parser("audit", help="the audit ledger").add_subparsers(
        dest="audit_command", metavar="ACTION", required=True
    )
    p = audit.add_parser("verify", help="walk the hash chain; exit 1 naming the first bad event")
    add_json_flag(p)
    p.set_defaults(handler=h.audit_verify)

    register_team(sub)

    p = sub.add_parser("migrate", help="upgrade the store to this version's schema")
    add_json_flag(p)
    p.set_defaults(handler=h.migrate)


def _scope_flags(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--cwd", metavar="DIR", help="the workspace (git root) of DIR")
    where.add_argument(
        "--global", dest="global_", action="store_true", help="applies to every workspace"
    )


def _page_flags(p: argparse.ArgumentParser) -> None:
    """Keyset pages (cli_lists.py): a page of --limit records after --after, or --all."""
    size = p.add_mutually_exclusive_group()
    size.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="records per page (default 1000); JSON `next_after` names the next",
    )
    size.add_argument("--all", action="store_true", help="every record, streamed (no page)")
    p.add_argument("--after", metavar="ID", help="start after this record (the last id shown)")
