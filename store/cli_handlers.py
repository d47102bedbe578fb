"""Handlers behind the store's subcommands. Imported only when one of them runs."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from datetime import UTC, datetime

from memvet.store import cli_conflicts
from memvet.store.console import emit
from memvet.store.errors import MemvetError, TombstonedError, UsageError
from memvet.store.integrity import with_unreadable
from memvet.store.records import Candidate, CandidateDraft, Edits, Scope, iso
from memvet.store.reservation import default_owner
from memvet.store.store import Store, open_store
from memvet.store.workspace import resolve_workspace


def _open(schema: str = "create", *, create: bool = False) -> Store:
    """Only the commands that put something new in (propose, migrate) create a store; the
    others say there is none yet and write nothing."""
    return open_store(schema=schema, create=create)


def _workspace(args: argparse.Namespace) -> str | None:
    if getattr(args, "global_", False):
        return None
    return resolve_workspace(args.cwd or os.getcwd())


def parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"not an ISO 8601 time: {value!r} (e.g. 2026-03-01T12:00:00Z)") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def propose(args: argparse.Namespace) -> int:
    store = _open(create=True)
    scope = Scope(user=store.user, workspace=_workspace(args), agent=None, session=None)
    draft = CandidateDraft(statement=args.statement.strip(), kind=args.kind, source_type="operator",
                           scope=scope, host="memvet", confidence=1.0, reasons=("operator typed",))
    result = store.admit(draft, actor=default_owner("cli"))
    if result.outcome == "queued":
        emit(args, {"id": result.candidate_id, "status": "pending"},
             lambda: print(f"queued {result.candidate_id}"))
        return 0
    tomb = (result.tombstone or "")[:16]
    hit = {"tombstoned": ("tombstoned", f"this statement was rejected or false-written before "
                                        f"(tombstone {tomb})"),
           "merged": ("duplicate", f"already pending as {result.candidate_id}"),
           "known": ("duplicate", f"already an active memory {result.memory_id}")}[result.outcome]
    err = (TombstonedError if result.outcome == "tombstoned" else MemvetError)(hit[1], code=hit[0])
    payload = {**err.to_json(), "id": result.candidate_id or result.memory_id,
               "status": result.outcome, "tombstone": tomb or None}
    emit(args, payload, lambda: print(f"memvet: {hit[1]}"))
    return 1


def origin_of(candidate: Candidate) -> str | None:
    """Where a candidate came from when a writer said so (`source: …` among its reasons, e.g.
    "Claude Code auto memory" from the native-memory gate); None for transcripts and typing."""
    return next((r[len("source: "):] for r in candidate.reasons if r.startswith("source: ")), None)


def queue_list(args: argparse.Namespace) -> int:
    from memvet.store.candidates import QueueFilter

    store = _open()
    statuses = tuple(args.status or ("pending", "stale"))
    cands = store.list_candidates(store.reader_for(None, all_scopes=True),
                                  QueueFilter(statuses=statuses), limit=args.limit)
    keys = ("id", "status", "statement", "kind", "source_type", "host", "scope", "confidence",
            "evidence_count", "created_at", "subject")

    def human() -> None:
        if not cands:
            print("the queue is empty")
        for c in cands:
            where = c.scope.workspace or "(global)"
            origin = f"  ({origin_of(c)})" if origin_of(c) else ""
            print(f"{c.id}  {c.status:8} {c.kind:10} {c.confidence:.2f} x{c.evidence_count}  "
                  f"{_short(c.statement)}  [{where}]{origin}")

    emit(args, with_unreadable(store, {"candidates": [
        {**{k: c.to_json()[k] for k in keys}, "origin": origin_of(c)} for c in cands]}), human)
    return 0


def queue_show(args: argparse.Namespace) -> int:
    detail = _open().candidate_detail(args.id)

    def human() -> None:
        c = detail.candidate
        print(f"{c.id}  {c.status}  {c.kind}  confidence {c.confidence:.2f}  ({c.source_type})")
        print(f"  {c.statement}")
        print(f"  scope: {c.scope.workspace or 'user-global'}  host: {c.host}")
        print(f"  subject: {c.subject}  (slot: {len(detail.slot)} memories)")
        print(f"  reasons: {', '.join(c.reasons) or '-'}")
        if c.lease:
            print(f"  held by {c.lease.owner} since {iso(c.lease.reserved_at)}")
        if c.last_error:
            print(f"  last error: {c.last_error}")
        for e in detail.evidence:
            print(f"  evidence {e.path}:{e.line} {iso(e.timestamp) or ''}\n    {e.excerpt}")
        for m in detail.conflicts:
            print(f"  conflicts with {m.id}: {m.statement}")
        if detail.conflicts or detail.supersedes:
            print("  approve with --supersede MEMORY…, --keep-both or --dispute "
                  f"(--supersede alone: {' '.join(detail.preselect)})")
        if detail.supersedes:
            print(f"  would supersede {detail.supersedes.id}: {detail.supersedes.statement}")
        if detail.tombstone:
            print(f"  matches a tombstone ({detail.tombstone.reason})")

    emit(args, detail.to_json(), human)
    return 0


def _results(args: argparse.Namespace, results: list[dict], verb: str) -> int:
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
    store = _open()
    workspace = resolve_workspace(args.cwd) if args.cwd else None
    edits = Edits(statement=args.statement, kind=args.kind, workspace=workspace,
                  make_global=args.global_, supersede=False if args.no_supersede else None,
                  polarity=args.polarity, force_over_tombstone=args.force_over_tombstone,
                  **cli_conflicts.decision(args))
    if args.subject:
        edits = replace(edits, subject=args.subject)
    results = []
    for cid in args.ids:
        try:
            note = cli_conflicts.correction_note(store, cid, edits)
            memory = store.approve(cid, actor=default_owner("cli"), edits=edits)
            results.append({"id": cid, "status": "committed", "memory_id": memory.id,
                            "subject": memory.subject, **({"note": note} if note else {})})
        except MemvetError as exc:
            results.append({"id": cid, "status": exc.details.get("status", "failed"),
                            "memory_id": None, "error": exc.message, "code": exc.code,
                            "holder": exc.details.get("holder"),
                            "tombstone": exc.details.get("tombstone"),
                            **cli_conflicts.refused(exc)})
    return _results(args, results, "approved")


def queue_reject(args: argparse.Namespace) -> int:
    store = _open()
    results = []
    for cid in args.ids:
        try:
            store.reject(cid, actor=default_owner("cli"), reason=args.reason)
            results.append({"id": cid, "status": "rejected"})
        except MemvetError as exc:
            results.append({"id": cid, "status": exc.details.get("status", "failed"),
                            "error": exc.message, "code": exc.code,
                            "holder": exc.details.get("holder")})
    return _results(args, results, "rejected")


def queue_recover(args: argparse.Namespace) -> int:
    store = _open()
    try:
        out = store.recover(args.id, args.action, actor=default_owner("cli"))
        memory_id = getattr(out, "candidate_id", None) and out.id
        status = {"commit": "committed", "release": "pending", "reject": "rejected"}[args.action]
        result = {"id": args.id, "status": status, "memory_id": memory_id}
    except MemvetError as exc:
        result = {"id": args.id, "status": "failed", "error": exc.message, "code": exc.code}
    return _results(args, [result], "recovered")


def memories_list(args: argparse.Namespace) -> int:
    store = _open()
    if args.all_scopes:
        reader = store.reader_for(None, all_scopes=True)
    elif args.global_:
        reader = store.reader_for(None)
    else:
        reader = store.reader_for(resolve_workspace(args.cwd or os.getcwd()))
    if getattr(args, "review", False):
        from memvet.store.cli_review import memories_review

        return memories_review(args, store, reader)
    memories = store.list_memories(reader, statuses=tuple(args.status or ("active",)),
                                   as_of=parse_time(args.as_of),
                                   recorded_as_of=parse_time(args.recorded_as_of))
    keys = ("id", "statement", "kind", "status", "scope", "source_type", "candidate_id",
            "valid_from", "valid_to", "recorded_at", "subject", "conflict_state")

    def human() -> None:
        if not memories:
            print("no memories in this scope")
        for m in memories:
            print(f"{m.id}  {m.status:10} {m.kind:10} {_short(m.statement)}  "
                  f"[{m.scope.workspace or 'global'}]")

    emit(args, with_unreadable(store, {"memories": [{k: m.to_json()[k] for k in keys}
                                                    for m in memories]}), human)
    return 0


def memories_confirm(args: argparse.Namespace) -> int:
    from memvet.store.cli_review import memories_confirm as confirm

    return confirm(args)


def memories_action(args: argparse.Namespace) -> int:
    store = _open()
    actor = default_owner("cli")
    txn = args.txn_id
    if args.action == "false-write":
        change = store.false_write(args.id, actor=actor, reason=args.reason, txn_id=txn)
    elif args.action == "forget":
        change = store.forget(args.id, actor=actor, txn_id=txn)
    elif args.action == "dispute":
        change = store.dispute(args.id, actor=actor, txn_id=txn)
    else:
        current = store.get_memory(args.id)
        change = (store.resolve_dispute if current.status == "disputed" else store.restore)(
            args.id, actor=actor, txn_id=txn)
    m = change.memory
    emit(args, {"id": m.id, "status": m.status, "replayed": change.replayed},
         lambda: print(f"{m.id}: {m.status}" + (" (already done: replayed)" if change.replayed
                                                else "")))
    return 0


def audit_verify(args: argparse.Namespace) -> int:
    report = _open().verify_audit()
    where = f" at event {report.first_bad_seq}" if report.first_bad_seq else ""
    emit(args, {"ok": report.ok, "events": report.events, "first_bad_seq": report.first_bad_seq,
                "problem": report.problem, "entity": report.entity},
         lambda: print(f"audit chain intact, every record in its recorded state: "
                       f"{report.events} events" if report.ok
                       else f"audit verification failed{where}: {report.problem}"))
    return 0 if report.ok else 1


def migrate(args: argparse.Namespace) -> int:
    from memvet.store.engine import create_store_engine
    from memvet.store.migrations import SCHEMA_VERSION
    from memvet.store.paths import db_path
    from memvet.store.schema import current_version

    before = current_version(create_store_engine(db_path())) if db_path().exists() else 0
    store = _open(schema="upgrade", create=True)
    emit(args, {"from": before, "to": SCHEMA_VERSION, "path": str(store.path)},
         lambda: print(f"store at schema version {SCHEMA_VERSION} (was {before})"))
    return 0
