"""`memvet recall QUESTION [--cwd DIR] [--as-of T] [--recorded-as-of T] [--json]`: the recall decision
(memvet.store.recall) for the workspace of a folder, as one JSON document or a short listing."""

from __future__ import annotations

import argparse
import os
from datetime import datetime


def run(args: argparse.Namespace) -> int:
    from memvet.store.cli_conventions import parse_time
    from memvet.store.console import emit
    from memvet.store.recall_read import recall_direct
    from memvet.store.workspace import resolve_workspace

    workspace = resolve_workspace(args.cwd or os.getcwd())
    as_of = parse_time(args.as_of)
    recorded_as_of = parse_time(getattr(args, "recorded_as_of", None))
    # sqlite3 and the term index, without the ORM (store/recall_read.py); the Store's path for
    # history as recorded earlier, and for a store that path cannot open (it reports why).
    result = None if recorded_as_of else recall_direct(args.query, workspace=workspace, as_of=as_of)
    if result is None:
        result = _recall_through_store(args.query, workspace, as_of, recorded_as_of)

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
) -> dict:
    from memvet.store.integrity import with_unreadable
    from memvet.store.recall import recall
    from memvet.store.store import open_store

    store = open_store(create=False)  # a question never creates a store
    try:
        result = recall(
            store, query, workspace=workspace, as_of=as_of, recorded_as_of=recorded_as_of
        )
        return with_unreadable(store, result)  # records that failed authentication: ids
    finally:
        store.close()
