"""`memvet memories list --review` and `memvet memories confirm ID` (review.py's flags)."""

from __future__ import annotations

import argparse

from memvet.store.console import emit
from memvet.store.errors import UsageError
from memvet.store.integrity import with_unreadable
from memvet.store.reservation import default_owner

REVIEW_WHY = {
    "unconfirmed_for_days": "not confirmed or edited for a long time",
    "newer_session_on_subject": "a later session talks about its subject",
}


def _short(text: str, width: int = 72) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def memories_review(args: argparse.Namespace, store, reader) -> int:  # noqa: ANN001
    if args.status or args.as_of or args.recorded_as_of:
        raise UsageError("--review lists active memories now; it takes no --status or as-of")
    flags = store.review_due(reader)

    def human() -> None:
        if not flags:
            print("nothing is due for review in this scope")
        for f in flags:
            why = ", ".join(REVIEW_WHY[r] for r in f.reasons)
            print(f"{f.memory.id}  still true? {_short(f.memory.statement)}  ({why})")

    emit(args, with_unreadable(store, {"memories": [f.to_json() for f in flags]}), human)
    return 0


def memories_confirm(args: argparse.Namespace) -> int:
    from memvet.store.cli_handlers import _open

    store = _open()
    m = store.confirm(args.id, actor=default_owner("cli"))
    emit(
        args,
        {"id": m.id, "status": m.status, "confirmed": True},
        lambda: print(f"{m.id}: confirmed, still true"),
    )
    return 0
