"""`memvet queue list` and `memvet memories list`: keyset pages (`--limit N`, `--after ID`,
`--all`), each record built once, JSON written record by record (still one document).

They read through read_layer.py (sqlite3, no ORM) when it can serve; otherwise (an `--as-of`,
`--recorded-as-of` or `--review` view, or a store that path cannot open) through the Store,
whose errors then say what is wrong. Both give the same records.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from memvet.store.errors import UsageError
from memvet.store.vocabulary import REVIEWABLE_STATUSES, MemoryStatus

DEFAULT_PAGE = 1000  # records per page unless --limit or --all
BATCH = 256  # records per json.dumps (write_list)
CANDIDATE_KEYS = (
    "id",
    "status",
    "statement",
    "kind",
    "source_type",
    "host",
    "scope",
    "confidence",
    "evidence_count",
    "created_at",
    "subject",
)
MEMORY_KEYS = (
    "id",
    "statement",
    "kind",
    "status",
    "scope",
    "source_type",
    "candidate_id",
    "valid_from",
    "valid_to",
    "recorded_at",
    "subject",
    "conflict_state",
)


def page_size(args: argparse.Namespace) -> int | None:
    if getattr(args, "all", False):
        return None
    limit = getattr(args, "limit", None)
    limit = DEFAULT_PAGE if limit is None else limit
    if limit < 1:
        raise UsageError(f"--limit must be at least 1 (got {limit}); --all lists everything")
    return limit


def origin(reasons: list[str]) -> str | None:
    """Where a candidate came from when a writer said so (`source: …` among its reasons, e.g.
    "Claude Code auto memory" from the native-memory gate); None for transcripts and typing."""
    return next((r[len("source: ") :] for r in reasons if r.startswith("source: ")), None)


def candidate_record(full: dict) -> dict:
    """The queue list's record from a candidate's fields (read layer row or Candidate.to_json)."""
    return {**{k: full[k] for k in CANDIDATE_KEYS}, "origin": origin(full["reasons"])}


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def queue_list(args: argparse.Namespace) -> int:
    from memvet.store.read_layer import open_reader

    statuses = tuple(args.status or REVIEWABLE_STATUSES)
    limit = page_size(args)
    reader = open_reader()
    if reader is None:
        from memvet.store.cli_handlers import queue_records

        source, records = queue_records(statuses, limit, getattr(args, "after", None))
    else:
        source = reader
        records = (
            r if "__more__" in r else candidate_record(r)
            for r in reader.candidates(statuses, limit=limit, after=getattr(args, "after", None))
        )

    def line(c: dict) -> str:
        where = c["scope"]["workspace"] or "(global)"
        came = f"  ({c['origin']})" if c["origin"] else ""
        return (
            f"{c['id']}  {c['status']:8} {c['kind']:10} {c['confidence']:.2f} "
            f"x{c['evidence_count']}  {_short(c['statement'])}  [{where}]{came}"
        )

    return write_list(args, "candidates", records, source, line, "the queue is empty")


def memories_list(args: argparse.Namespace) -> int:
    statuses = tuple(args.status or (MemoryStatus.ACTIVE,))
    limit = page_size(args)
    reader = None
    if not (getattr(args, "review", False) or args.as_of or args.recorded_as_of):
        from memvet.store.read_layer import open_reader

        reader = open_reader()
    if reader is None:
        from memvet.store.cli_handlers import memory_records

        found = memory_records(args, statuses, limit)
        if isinstance(found, int):  # --review printed its own view
            return found
        source, records = found
    else:
        from memvet.store.workspace import resolve_workspace

        workspace = (
            None if args.global_ or args.all_scopes else resolve_workspace(args.cwd or os.getcwd())
        )
        source, records = (
            reader,
            reader.memories(
                statuses,
                workspace=workspace,
                all_scopes=args.all_scopes,
                limit=limit,
                after=getattr(args, "after", None),
            ),
        )

    def line(m: dict) -> str:
        return (
            f"{m['id']}  {m['status']:10} {m['kind']:10} {_short(m['statement'])}  "
            f"[{m['scope']['workspace'] or 'global'}]"
        )

    return write_list(args, "memories", records, source, line, "no memories in this scope")


def write_list(args: argparse.Namespace, key: str, records, source, line, empty: str) -> int:  # noqa: ANN001
    """Stream one JSON document (`{key: [...], "next_after": id|null}` plus `unreadable` when
    rows were left out), or one line per record. A `{"__more__": True}` item ends a full page:
    `next_after` names the last record shown. JSON is encoded BATCH records at a time: one
    `json.dumps` per record cost a page more than building its records."""
    from memvet.store.text_safety import for_terminal, json_safe

    out, as_json, last, more, count = sys.stdout, args.json, None, False, 0
    batch: list[dict] = []
    written = [False]  # a batch went out: the next one starts with a comma

    def flush() -> None:
        if batch:
            text = json_safe(json.dumps(batch, ensure_ascii=False))[1:-1]  # no [ ]
            out.write((", " if written[0] else "") + text)
            written[0] = True
            batch.clear()

    if as_json:
        out.write(f'{{"{key}": [')
    for record in records:
        if "__more__" in record:
            more = True
            break
        if as_json:
            batch.append(record)
            if len(batch) == BATCH:
                flush()
        else:
            out.write(for_terminal(line(record)) + "\n")
        last, count = record["id"], count + 1
    flush()
    skipped = source.unreadable()
    if as_json:
        tail = {"next_after": last if more else None}
        if skipped["count"]:
            tail["unreadable"] = skipped
        out.write("], " + json.dumps(tail)[1:] + "\n")
    elif not count:
        print(empty)
    if skipped["count"]:
        from memvet.store.read_layer import warn_unreadable

        warn_unreadable(skipped)
    if more and not as_json:
        print(
            f"memvet: more after {last}: --after {last} for the next page, --all for everything",
            file=sys.stderr,
        )
    return 0
