"""`memvet queue approve ID…`: through the running daemon when there is one, else directly.

Importing the ORM costs a single approval far more than the approval itself (about 1 s of a
1.5 s command at 10k memories), and the daemon has it loaded, the store open and the data key
unwrapped. So this module stays import-light (argparse, json, os, _socket): it reads the ids,
turns the flags into plain JSON with the workspace resolved here, and asks the daemon over its
user-only socket (`MVA1 <version>`, answered by memvet.daemon.approve_requests with
approval_run.approve_all — the same function the direct path runs). It prints the answer
itself, so both routes print the same bytes and exit the same way. A daemon of another version
or serving another user (the store's user is the login name) refuses, and the command approves
by itself.

Never twice: the direct path runs only when the daemon is absent, refused the request before
doing anything (another version, too busy), or went away without a complete answer. In the
last case it may have committed some ids under this command's name; the direct path then
reports those as committed (approval_run's `resumed`) instead of approving again or calling
them refused.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from memvet.store.console import emit
from memvet.store.daemon_ask import NO_ANSWER, NOT_SENT, exchange, installed_version
from memvet.store.errors import MemvetError, UsageError
from memvet.store.leases import default_owner

PROTOCOL = b"MVA1"
# The flags the approval takes, as approval_run reads them; `workspace` is `--cwd` resolved.
OPTION_KEYS = (
    "statement",
    "kind",
    "workspace",
    "global_",
    "no_supersede",
    "polarity",
    "force_over_tombstone",
    "supersede",
    "keep_both",
    "dispute",
    "subject",
)
# The daemon answers when every id is done; each waits for the store's write lock at worst.
REPLY_TIMEOUT_S = 30.0
REPLY_PER_ID_S = 0.5


def ids_of(args: argparse.Namespace) -> list[str]:
    """The ids on the command line, or read from stdin for `-` or for none with stdin not a
    terminal (scripts: `… | memvet queue approve -`); `#` starts a comment."""
    ids = list(args.ids)
    if ids == ["-"] or (not ids and not sys.stdin.isatty()):
        ids = [word for line in sys.stdin for word in line.split("#", 1)[0].split()]
    elif "-" in ids:
        raise UsageError("`-` reads the ids from stdin: pass it alone")
    if not ids:
        raise UsageError("no candidate ids: pass them as arguments, or `-` to read them from stdin")
    return list(dict.fromkeys(ids))  # an id listed twice is approved once


def approval_options(args: argparse.Namespace) -> dict:
    from memvet.store.workspace import resolve_workspace  # os only

    options = {key: getattr(args, key, None) for key in OPTION_KEYS if key != "workspace"}
    options["workspace"] = resolve_workspace(args.cwd) if args.cwd else None
    return options


def print_results(args: argparse.Namespace, results: list[dict], verb: str) -> int:
    """What approve, reject and recover print: each result, exit 1 if any failed."""
    failed = [r for r in results if r.get("error")]

    def human() -> None:
        for r in results:
            if r.get("error"):
                print(f"{r['id']}: not {verb}: {r['error']}")
            else:
                extra = f" → {r['memory_id']}" if r.get("memory_id") else ""
                print(f"{r['id']}: {r['status']}{extra}")

    emit(args, {"results": results}, human)
    return 1 if failed else 0


def queue_approve(args: argparse.Namespace) -> int:
    ids = ids_of(args)
    options = approval_options(args)
    actor = default_owner("cli")
    answer = (
        NOT_SENT
        if os.environ.get("MEMVET_APPROVE_DAEMON") == "off"
        else via_daemon(ids, options, actor)
    )
    if isinstance(answer, dict):
        if "error" in answer:  # the approval itself refused (the direct path raises the same)
            raise _error_of(answer)
        return print_results(args, answer["results"], "approved")
    from memvet.store.approval_run import approve_all
    from memvet.store.cli_handlers import _open

    results = approve_all(_open(), ids, options, actor, resumed=answer == NO_ANSWER)
    return print_results(args, results, "approved")


def via_daemon(ids: list[str], options: dict, actor: str) -> dict | str:
    """The daemon's answer (`{"results": […]}` or `{"error": …}`), or NOT_SENT / NO_ANSWER."""
    import getpass  # the store's own rule for whose memories these are (open_store)

    request = {"ids": ids, "options": options, "actor": actor, "user": getpass.getuser()}
    body = b"%s %s\n%s" % (PROTOCOL, installed_version().encode(), json.dumps(request).encode())
    reply = exchange(body, REPLY_TIMEOUT_S + REPLY_PER_ID_S * len(ids))
    if isinstance(reply, str):  # NOT_SENT, or NO_ANSWER: it may have committed some ids
        return reply
    head, _, rest = reply.partition(b"\n")
    if head == b"OK":
        try:
            return json.loads(rest)
        except ValueError:  # cut off mid-answer
            return NO_ANSWER
    # "ERR version"/"ERR user"/…: refused before any work; an empty reply: it went away
    return NOT_SENT if head.startswith(b"ERR ") else NO_ANSWER


def _error_of(answer: dict) -> MemvetError:
    error = dict(answer["error"])
    exc = MemvetError(error.pop("message"), code=error.pop("code"), **error)
    exc.exit_code = answer.get("exit", 1)
    return exc
