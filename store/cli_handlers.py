"""Handlers behind the store's subcommands. Imported only when one of them runs."""

from __future__ import annotations

import argparse
import os

from memvet.store.cli_approve import print_results as _results  # approve's, shared
from memvet.store.cli_conventions import parse_time
from memvet.store.console import emit
from memvet.store.errors import MemvetError, TombstonedError
from memvet.store.records import CandidateDraft, Scope, iso
from memvet.store.reservation import default_owner
from memvet.store.store import Store, open_store
from memvet.store.vocabulary import CandidateStatus, MemoryStatus, SourceType
from memvet.store.workspace import resolve_workspace


def _open(schema: str = "create", *, create: bool = False) -> Store:
    """Only the commands that put something new in (propose, migrate) create a store; the
    others say there is none yet and write nothing."""
    return open_store(schema=schema, create=create)


def _workspace(args: argparse.Namespace) -> str | None:
    if getattr(args, "global_", False):
        return None
    return resolve_workspace(args.cwd or os.getcwd())


def propose(args: argparse.Namespace) -> int:
    store = _open(create=True)
    scope = Scope(user=store.user, workspace=_workspace(args), agent=None, session=None)
    draft = CandidateDraft(
        statement=args.statement.strip(),
        kind=args.kind,
        source_type=SourceType.OPERATOR,
        scope=scope,
        host="memvet",
        confidence=1.0,
        reasons=("operator typed",),
    )
    result = store.admit(draft, actor=default_owner("cli"))
    if result.outcome == "queued":
        emit(
            args,
            {"id": result.candidate_id, "status": CandidateStatus.PENDING},
            lambda: print(f"queued {result.candidate_id}"),
        )
        return 0
    tomb = (result.tombstone or "")[:16]
    hit = {
        "tombstoned": (
            "tombstoned",
            f"this statement was rejected or false-written before (tombstone {tomb})",
        ),
        "merged": ("duplicate", f"already pending as {result.candidate_id}"),
        "known": ("duplicate", f"already an active memory {result.memory_id}"),
    }[result.outcome]
    err = (TombstonedError if result.outcome == "tombstoned" else MemvetError)(hit[1], code=hit[0])
    payload = {
        **err.to_json(),
        "id": result.candidate_id or result.memory_id,
        "status": result.outcome,
        "tombstone": tomb or None,
    }
    emit(args, payload, lambda: print(f"memvet: {hit[1]}"))
    return 1


def queue_records(statuses: tuple[str, ...], limit: int | None, after: str | None):  # noqa: ANN201
    """cli_lists.queue_list through the Store (when the read layer cannot serve)."""
    from memvet.store.candidates import QueueFilter
    from memvet.store.cli_lists import candidate_record

    store = _open()
    reader = store.reader_for(None, all_scopes=True)
    key = None
    if after is not None:
        key = (store.get_candidate(after, reader).created_at, after)
    cands = store.list_candidates(
        reader,
        QueueFilter(statuses=statuses),
        after=key,
        limit=None if limit is None else limit + 1,
    )
    records = [candidate_record(c.to_json()) for c in cands]
    if limit is not None and len(records) > limit:
        records[limit:] = [{"__more__": True}]
    return store, records


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
            print(
                "  approve with --supersede MEMORY…, --keep-both or --dispute "
                f"(--supersede alone: {' '.join(detail.preselect)})"
            )
        if detail.supersedes:
            print(f"  would supersede {detail.supersedes.id}: {detail.supersedes.statement}")
        if detail.tombstone:
            print(f"  matches a tombstone ({detail.tombstone.reason})")

    emit(args, detail.to_json(), human)
    return 0


def queue_reject(args: argparse.Namespace) -> int:
    store = _open()
    results = []
    for cid in args.ids:
        try:
            store.reject(cid, actor=default_owner("cli"), reason=args.reason)
            results.append({"id": cid, "status": CandidateStatus.REJECTED})
        except MemvetError as exc:
            results.append(
                {
                    "id": cid,
                    "status": exc.details.get("status", "failed"),
                    "error": exc.message,
                    "code": exc.code,
                    "holder": exc.details.get("holder"),
                }
            )
    return _results(args, results, "rejected")


def queue_recover(args: argparse.Namespace) -> int:
    store = _open()
    try:
        out = store.recover(args.id, args.action, actor=default_owner("cli"))
        memory_id = getattr(out, "candidate_id", None) and out.id
        status = {
            "commit": CandidateStatus.COMMITTED,
            "release": CandidateStatus.PENDING,
            "reject": CandidateStatus.REJECTED,
        }[args.action]
        result = {"id": args.id, "status": status, "memory_id": memory_id}
    except MemvetError as exc:
        result = {"id": args.id, "status": "failed", "error": exc.message, "code": exc.code}
    return _results(args, [result], "recovered")


def memory_records(args: argparse.Namespace, statuses: tuple[str, ...], limit: int | None):  # noqa: ANN201
    """cli_lists.memories_list through the Store: the as-of views, `--review`, and a store the
    read layer cannot open. Returns (store, records), or `--review`'s exit code."""
    from memvet.store.cli_lists import MEMORY_KEYS

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
    memories = store.list_memories(
        reader,
        statuses=statuses,
        as_of=parse_time(args.as_of),
        recorded_as_of=parse_time(args.recorded_as_of),
    )
    after = getattr(args, "after", None)
    if after is not None:
        ids = [m.id for m in memories]
        if after not in ids:
            store.get_memory(after, reader)  # NotFoundError when it is not there at all
            raise MemvetError(f"memory {after} is not in this list", code="not_found")
        memories = memories[ids.index(after) + 1 :]
    records: list[dict] = []
    for m in memories:
        full = m.to_json()
        records.append({k: full[k] for k in MEMORY_KEYS})
    if limit is not None and len(records) > limit:
        records[limit:] = [{"__more__": True}]
    return store, records


def memories_list(args: argparse.Namespace) -> int:
    from memvet.store.cli_lists import memories_list as listing

    return listing(args)


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
        change = (
            store.resolve_dispute if current.status == MemoryStatus.DISPUTED else store.restore
        )(args.id, actor=actor, txn_id=txn)
    m = change.memory
    emit(
        args,
        {"id": m.id, "status": m.status, "replayed": change.replayed},
        lambda: print(
            f"{m.id}: {m.status}" + (" (already done: replayed)" if change.replayed else "")
        ),
    )
    return 0


def audit_verify(args: argparse.Namespace) -> int:
    report = _open().verify_audit()
    where = f" at event {report.first_bad_seq}" if report.first_bad_seq else ""
    emit(
        args,
        {
            "ok": report.ok,
            "events": report.events,
            "first_bad_seq": report.first_bad_seq,
            "problem": report.problem,
            "entity": report.entity,
        },
        lambda: print(
            f"audit chain intact, every record in its recorded state: {report.events} events"
            if report.ok
            else f"audit verification failed{where}: {report.problem}"
        ),
    )
    return 0 if report.ok else 1


def migrate(args: argparse.Namespace) -> int:
    from memvet.store.engine import create_store_engine
    from memvet.store.migrations import SCHEMA_VERSION
    from memvet.store.paths import db_path
    from memvet.store.schema import current_version

    before = current_version(create_store_engine(db_path())) if db_path().exists() else 0
    store = _open(schema="upgrade", create=True)
    emit(
        args,
        {"from": before, "to": SCHEMA_VERSION, "path": str(store.path)},
        lambda: print(f"store at schema version {SCHEMA_VERSION} (was {before})"),
    )
    return 0
