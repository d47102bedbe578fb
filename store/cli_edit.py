"""`memvet memories edit ID …`: an approved memory edited in place, or its last edit undone
(memory_edit.py). A new rival in its slot is refused with exit 1 naming the memories, as at
approval, unless --supersede, --keep-both or --dispute says what happens to them."""

from __future__ import annotations

import argparse

from memvet.store import cli_conflicts
from memvet.store.cli_conventions import parse_time
from memvet.store.console import emit
from memvet.store.errors import MemvetError, UsageError
from memvet.store.reservation import default_owner

CHANGES = ("statement", "subject", "kind", "polarity", "valid_from", "valid_until")


def memories_edit(args: argparse.Namespace) -> int:
    from memvet.store.cli_handlers import _open
    from memvet.store.memory_edit import MemoryEdits

    asked = [name for name in CHANGES if getattr(args, name) is not None] + (
        ["open"] if args.open else []
    )
    if args.undo and asked:
        raise UsageError("--undo takes the last edit back: it takes no changes of its own")
    if not args.undo and not asked:
        raise UsageError(
            "nothing to change: pass --statement, --subject, --kind, --polarity, "
            "--valid-from, --valid-until or --open (or --undo)"
        )
    store = _open()
    actor = default_owner("cli")
    if args.undo:
        change = store.undo_edit(args.id, actor=actor)
    else:
        edits = MemoryEdits(
            statement=args.statement,
            subject=args.subject,
            kind=args.kind,
            polarity=args.polarity,
            valid_from=parse_time(args.valid_from),
            valid_to=parse_time(args.valid_until),
            reopen=args.open,
            force_over_tombstone=args.force_over_tombstone,
            **cli_conflicts.decision(args),
        )
        try:
            change = store.edit_memory(args.id, edits, actor=actor)
        except MemvetError as exc:
            rivals = cli_conflicts.refused(exc)
            if not (rivals and args.json):
                raise
            error = {"code": exc.code, "message": exc.message, **rivals}  # the rivals, listed
            doc = {"error": error}
            emit(args, doc, lambda: None)
            return exc.exit_code
    m = change.memory
    out = {
        "id": m.id,
        "status": m.status,
        "statement": m.statement,
        "subject": m.subject,
        "kind": m.kind,
        "valid_from": m.to_json()["valid_from"],
        "valid_to": m.to_json()["valid_to"],
        "undone": bool(args.undo),
        "restored": list(change.restored),  # an undo: the memories it made active again
    }
    verb = "edit undone" if args.undo else "edited"
    back = f"; active again: {', '.join(change.restored)}" if change.restored else ""
    emit(args, out, lambda: print(f"{m.id}: {verb}; it now says: {m.statement}{back}"))
    return 0
