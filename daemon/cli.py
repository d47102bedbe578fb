"""The daemon's subcommands: `memvet extract` (a dry run of the ingest pipeline on files),
`memvet daemon run [--once]` / `memvet daemon status [--json]` (the daemon process) and
`memvet rules reset-learning` (forget what the reviewer's decisions taught the scorer)."""

from __future__ import annotations

import argparse

from memvet.store import hosts
from memvet.store.vocabulary import Polarity


def register(subparsers: argparse._SubParsersAction) -> None:
    _add_extract(subparsers)
    _add_daemon(subparsers)
    _add_rules(subparsers)


def _add_rules(subparsers: argparse._SubParsersAction) -> None:
    from memvet.store.console import add_json_flag

    rules = subparsers.add_parser("rules", help="what extraction learned from your reviews")
    sub = rules.add_subparsers(dest="rules_command", metavar="ACTION", required=True)
    p = sub.add_parser(
        "reset-learning",
        help="forget what your approvals and rejections taught the "
        "scorer (the packaged model stays)",
    )
    add_json_flag(p)
    p.set_defaults(handler=_run_reset_learning)


def _run_reset_learning(args: argparse.Namespace) -> int:
    from memvet.store import open_store
    from memvet.store.console import emit
    from memvet.store.learning import reset_learning

    store = open_store(create=False)
    try:
        forgotten = reset_learning(store, actor="operator:cli")
    finally:
        store.close()
    payload = {"reset": True, "decisions_forgotten": forgotten}
    emit(
        args,
        payload,
        lambda: print(f"forgot what {forgotten} review decision(s) taught the scorer"),
    )
    return 0


def _add_daemon(subparsers: argparse._SubParsersAction) -> None:
    daemon = subparsers.add_parser("daemon", help="the background daemon that reads transcripts")
    add_daemon_commands(
        daemon.add_subparsers(dest="daemon_command", metavar="ACTION", required=True)
    )


def add_daemon_commands(sub: argparse._SubParsersAction) -> None:
    """`run` and `status`; shared with `python -m memvet.daemon` (what service units run)."""
    from memvet.store.console import add_json_flag

    p = sub.add_parser("run", help="run the daemon in the foreground (what service units run)")
    p.add_argument(
        "--once",
        action="store_true",
        help="read everything new, run the sweeps that are due, and exit",
    )
    p.set_defaults(handler=_run_daemon)
    p = sub.add_parser("status", help="running or not, watched roots, files tracked, lag")
    add_json_flag(p)
    p.set_defaults(handler=_daemon_status)


# The handlers import memvet.daemon.commands only when they run: building the parser is paid
# by every `memvet` command, and that import costs ~90 ms.
def _run_daemon(args: argparse.Namespace) -> int:
    from memvet.daemon import commands

    return commands.run(args)


def _daemon_status(args: argparse.Namespace) -> int:
    from memvet.daemon import commands

    return commands.status(args)


def _add_extract(subparsers: argparse._SubParsersAction) -> None:
    from memvet.store.console import add_json_flag

    parser = subparsers.add_parser(
        "extract",
        help="dry run of the ingest pipeline on transcript files (writes nothing)",
        description="Parse, filter, redact and extract candidate memories from transcript files "
        "without writing anything anywhere.",
    )
    parser.add_argument(
        "--host", required=True, choices=hosts.names(), help="the transcript format"
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="transcript files (.jsonl)")
    add_json_flag(parser)
    parser.set_defaults(handler=_run_extract)


def _run_extract(args: argparse.Namespace) -> int:
    from memvet.daemon.pipeline import extract_paths
    from memvet.store.console import emit

    drafts, stats = extract_paths(args.host, args.paths)
    payload = {"candidates": [_candidate_json(d) for d in drafts], "stats": stats}
    emit(args, payload, lambda: _print_table(payload))
    return 0


def _candidate_json(draft) -> dict:
    doc = draft.to_json()
    evidence = doc.get("evidence") or {}
    doc["evidence"] = {
        k: evidence.get(k) for k in ("path", "line", "message_id", "timestamp", "excerpt")
    }
    doc["supersedes_hint"] = draft.supersedes_hint
    doc["score"] = doc[
        "confidence"
    ]  # the learned scorer's probability (the rules' confidence when it is off)
    doc["explanation"] = _explanation(draft.reasons)
    return doc


def _explanation(reasons: tuple[str, ...]) -> dict:
    """The reasons split for a reader: the rules that fired, the scorer's top features."""
    features = [r.removeprefix("feature:") for r in reasons if r.startswith("feature:")]
    scored = next((r.removeprefix("score:") for r in reasons if r.startswith("score:")), None)
    rules = [r for r in reasons if not r.startswith(("feature:", "score:"))]
    return {"rules": rules, "features": features, "scorer": scored is not None}


def _print_table(payload: dict) -> None:
    candidates, stats = payload["candidates"], payload["stats"]
    if candidates:
        print(f"{'KIND':<11} {'CONF':>4}  {'SCOPE':<9} {'LINE':>5}  STATEMENT")
        for item in candidates:
            scope = "global" if item["scope"]["workspace"] is None else "workspace"
            statement = (
                item["statement"] if len(item["statement"]) <= 88 else item["statement"][:87] + "…"
            )
            flags = " (deny)" if item["polarity"] == Polarity.DENY else ""
            flags += " (correction)" if item.get("supersedes_hint") is not None else ""
            print(
                f"{item['kind']:<11} {item['confidence']:>4.2f}  {scope:<9} {item['evidence']['line']:>5}  "
                f"{statement}{flags}"
            )
    else:
        print("no candidates")
    print(
        f"\n{stats['files']} file(s), {stats['lines']} lines ({stats['skipped_lines']} skipped), "
        f"{stats['turns']} turns, {len(candidates)} candidate(s)"
    )
