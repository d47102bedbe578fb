"""`queue approve`'s conflict flags (issue 13): --supersede MEMORY… | --keep-both | --dispute,
--subject; what a refused conflicting approval lists; the note when a correction replaced
nothing. Kept apart from cli_handlers.py so each rule is written once."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # the parser is built for every memvet command: stay import-light
if TYPE_CHECKING:
    from typing import Any

    from memvet.store.errors import MemvetError


def add_conflict_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--subject", help="what it is about (the slot it fills), e.g. 'package manager'")
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--supersede",
        nargs="+",
        metavar="MEMORY",
        help="these memories are replaced by it (valid until it was said)",
    )
    how.add_argument(
        "--keep-both",
        action="store_true",
        help="keep it beside the memories it conflicts with: both are true",
    )
    how.add_argument(
        "--dispute",
        action="store_true",
        help="it and the memories it conflicts with leave recall until settled",
    )


def decision(args: argparse.Namespace) -> dict[str, Any]:
    """Edits fields for the chosen way out of a conflict; no choice asks (a conflict is then
    refused with exit 1 naming the memories)."""
    if args.supersede:
        return {"conflict": "supersede", "supersede_ids": tuple(args.supersede)}
    if args.keep_both:
        return {"conflict": "keep_both"}
    if args.dispute:
        return {"conflict": "dispute"}
    return {"conflict": "ask"}


def refused(exc: MemvetError) -> dict[str, Any]:
    """The extra keys of a refused approval's result: the rival memories, the slot, and what a
    supersede would replace by default."""
    if exc.code not in ("conflict", "conflict_not_compatible"):
        return {}
    memories = exc.details.get("memories") or []
    return {
        "conflicts": memories,
        "subject": exc.details.get("subject"),
        "preselect": exc.details.get("preselect", []),
    }


def correction_note(found: Any) -> str | None:
    """A correction with nothing in its scope to replace says so instead of passing silently
    (`found`: the approval's look at the slot, reservation.approve's `checked`)."""
    if found is not None and found.correction and not found.preselect:
        return (
            "a correction, but no active memory in its scope says what it replaces: "
            "nothing was superseded"
        )
    return None
