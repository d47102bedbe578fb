"""`memvet recall QUESTION [--cwd DIR] [--as-of T] [--recorded-as-of T] [--json]`: the recall decision
(memvet.store.recall) for the workspace of a folder, as one JSON document or a short listing."""

from __future__ import annotations

import argparse
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime  # parse_time imports it when a time is given (issue 15)

    from memvet.store.recall_decision import RecallDecision


def run(args: argparse.Namespace) -> int:
    from memvet.store.cli_conventions import parse_time
    from memvet.store.console import emit
    from memvet.store.recall_route import via_daemon
    from memvet.store.workspace import resolve_workspace

    workspace = resolve_workspace(args.cwd or os.getcwd())
    as_of = parse_time(args.as_of)
    recorded_as_of = parse_time(getattr(args, "recorded_as_of", None))
    # The running daemon, which has the recall modules loaded (store/recall_route.py); else
    # sqlite3 and the term index in this process, without the ORM (store/recall_read.py); the
    # Store's path for history as recorded earlier, and for a store neither can open (it
    # reports why). Every route prints the decision's JSON document redacted with today's
    # rules (redaction/served.py; the daemon does that on its side): issue 14. The direct
    # path skips that when the store's text was swept with today's rules already (issue 15).
    result = None if recorded_as_of else via_daemon(args.query, workspace, as_of)
    if result is None and not recorded_as_of:
        from memvet.store.recall_read import served_direct

        result = served_direct(args.query, workspace=workspace, as_of=as_of)
    if result is None:
        from memvet.store.redaction.served import recall_document

        decision = _recall_through_store(args.query, workspace, as_of, recorded_as_of)
        result = recall_document(decision)

    def human() -> None:
        reason = f" ({result['reason_code']})" if result["reason_code"] else ""
        print(f"{result['state']}{reason}")
        for m in result["memories"]:
            role = "" if m["role"] == "answer" else f" [{m['role']}]"
            print(f"  {m['id']}  {m['kind']:10} {m['score']:.2f}{role}  {m['statement']}")
        for c in result["contradictions"]:
            print(f"  {c['severity']} {c['relation']}: {c['id']}  {c['statement']}")
        if result["missing_conditions"]:
            print(f"  missing: {', '.join(result['missing_conditions'])}")

    emit(args, result, human)
    return 0


def _recall_through_store(
    query: str, workspace: str | None, as_of: datetime | None, recorded_as_of: datetime | None
) -> RecallDecision:
    from memvet.store.read_layer import unreadable_seen
    from memvet.store.recall import recall
    from memvet.store.store import open_store

    store = open_store(create=False)  # a question never creates a store
    try:
        decision = recall(
            store, query, workspace=workspace, as_of=as_of, recorded_as_of=recorded_as_of
        )
        return decision.with_unreadable(unreadable_seen(store))  # failed authentication: ids
    finally:
        store.close()
