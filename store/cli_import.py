"""`memvet memories import FILE.jsonl [--cwd DIR | --global] [--skip-bad] [--json]`: the
operator's bulk import, one `{"statement": …, "kind": …}` object per line (optional:
`importance`, `polarity`, `usage_boundary`, `confidence`). All or nothing: a bad line stops the
import before anything is written, naming every bad line, unless `--skip-bad` imports the
good ones and reports the others. Each statement then passes admission's gate and checks
exactly as any write (bulk.py); the audit chain records the import as one act.
"""

from __future__ import annotations

import argparse
import json
import os

from memvet.store.console import emit
from memvet.store.errors import UsageError

FIELDS = {
    "statement": str,
    "kind": str,
    "importance": int,
    "polarity": str,
    "usage_boundary": str,
    "confidence": (int, float),
}
SHOWN_PROBLEMS = 20


class BadLines(UsageError):
    code = "invalid_import"

    def __init__(self, path: str, problems: list[tuple[int, str]]) -> None:
        shown = "; ".join(f"line {n}: {why}" for n, why in problems[:SHOWN_PROBLEMS])
        more = (
            f" (and {len(problems) - SHOWN_PROBLEMS} more)"
            if len(problems) > SHOWN_PROBLEMS
            else ""
        )
        super().__init__(
            f"{path}: {len(problems)} bad line(s), nothing imported: {shown}{more} "
            "(fix them, or pass --skip-bad to import the rest)"
        )
        self.problems = problems


def _fields(line: str) -> dict:
    """One line's fields, or ValueError saying what is wrong (never echoing its text)."""
    try:
        doc = json.loads(line)
    except ValueError:
        raise ValueError("not a JSON object") from None
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    unknown = sorted(set(doc) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)}; known: {', '.join(FIELDS)}")
    for name in ("statement", "kind"):
        if name not in doc:
            raise ValueError(f'"{name}" is missing')
    for name, kinds in FIELDS.items():
        value = doc.get(name)
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            raise ValueError(f'"{name}" has the wrong type')
    return doc


def read_lines(path: str) -> tuple[list[tuple[int, dict]], list[tuple[int, str]]]:
    """(line number, fields) of each good line and (line number, problem) of each bad one;
    blank lines are skipped."""
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise UsageError(
            f"cannot read {path}: {exc.strerror or exc}", code="unreadable_file"
        ) from None
    good, bad = [], []
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    good.append((number, _fields(line)))
                except ValueError as exc:
                    bad.append((number, str(exc)))
        except UnicodeDecodeError:
            raise UsageError(f"{path} is not UTF-8 text", code="invalid_import") from None
    return good, bad


def memories_import(args: argparse.Namespace) -> int:
    from memvet.store.bulk import BadDrafts
    from memvet.store.records import CandidateDraft, Scope
    from memvet.store.reservation import default_owner
    from memvet.store.store import open_store
    from memvet.store.vocabulary import Polarity, SourceType
    from memvet.store.workspace import resolve_workspace

    good, bad = read_lines(args.file)
    if bad and not args.skip_bad:
        raise BadLines(args.file, bad)
    store = open_store(create=True)
    workspace = None if args.global_ else resolve_workspace(args.cwd or os.getcwd())
    scope = Scope(user=store.user, workspace=workspace)
    drafts = [
        CandidateDraft(
            statement=f["statement"].strip(),
            kind=f["kind"],
            source_type=SourceType.IMPORT,
            scope=scope,
            host="memvet",
            confidence=float(f.get("confidence", 1.0)),
            reasons=("imported",),
            importance=f.get("importance", 1),
            polarity=f.get("polarity", Polarity.ASSERT),
            usage_boundary=f.get("usage_boundary"),
        )
        for _, f in good
    ]
    numbers = [n for n, _ in good]
    outcomes = None
    while outcomes is None:
        try:
            outcomes = store.import_batch(drafts, actor=default_owner("cli"), note="cli")
        except BadDrafts as exc:  # the gate's refusals, by position: name their lines
            refused = [(numbers[i], why) for i, why in exc.problems]
            if not args.skip_bad:
                raise BadLines(args.file, sorted(bad + refused)) from None
            bad = sorted(bad + refused)
            drop = {i for i, _ in exc.problems}
            drafts = [d for i, d in enumerate(drafts) if i not in drop]
            numbers = [n for i, n in enumerate(numbers) if i not in drop]
    return _report(args, outcomes, numbers, bad)


def _report(
    args: argparse.Namespace, outcomes: list, numbers: list[int], bad: list[tuple[int, str]]
) -> int:
    imported = [o.memory_id for o in outcomes if o.outcome == "imported"]
    skipped = [
        {"line": n, "outcome": o.outcome, "id": o.other_id}
        for n, o in zip(numbers, outcomes, strict=True)
        if o.outcome != "imported"
    ]
    payload = {
        "imported": len(imported),
        "memory_ids": imported,
        "skipped": skipped,
        "bad_lines": [{"line": n, "error": why} for n, why in bad],
    }

    def human() -> None:
        print(f"imported {len(imported)} memories")
        for s in skipped:
            print(f"  line {s['line']}: skipped ({s['outcome']}: {s['id'] or '-'})")
        for n, why in bad:
            print(f"  line {n}: bad line, not imported: {why}")

    emit(args, payload, human)
    return 0
