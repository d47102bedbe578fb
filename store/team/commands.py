"""Handlers of the team's subcommands (cli.py). Each opens the local store and, when it needs
the server, a team session; errors are MemvetErrors (exit 1/2/3 with the cause and the fix)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from typing import Any

from memvet.store.console import emit
from memvet.store.errors import MemvetError
from memvet.store.paths import memvet_home
from memvet.store.records import iso
from memvet.store.vocabulary import REVIEWABLE_STATUSES, CandidateStatus, SourceType


def _lines(lines: Iterable[str]) -> Callable[[], None]:
    """The human form of a list: one line each."""

    def human() -> None:
        for line in lines:
            print(line)

    return human


@contextmanager
def _session(check_schema: bool = True):  # noqa: ANN202
    from memvet.store.team.session import open_session

    session = open_session(memvet_home(), check_schema=check_schema)
    try:
        yield session
    finally:
        session.close()


def _store():  # noqa: ANN202
    from memvet.store import open_store

    return open_store(create=True)


def _workspace(args: argparse.Namespace) -> str | None:
    from memvet.store.workspace import resolve_workspace

    return None if getattr(args, "global_", False) else resolve_workspace(args.cwd or os.getcwd())


def team_create(args: argparse.Namespace) -> int:
    from memvet.store.team.members import create_team, fingerprint

    _store().close()  # the local store first: a team home is a memvet home
    session = create_team(
        memvet_home(),
        args.url,
        args.name,
        personal=args.personal,
        approvals_required=args.approvals_required,
        self_approval=True if args.self_approval else None,
    )
    try:
        from memvet.store.team.wrapping import public_of

        payload = {
            "team": session.team_id,
            "member": session.member_id,
            "role": "admin",
            "server": session.config.where(),
            "personal": args.personal,
            "fingerprint": fingerprint(public_of(session.private_key())),
        }
    finally:
        session.close()
    emit(
        args,
        payload,
        lambda: print(
            f"team {payload['team']} created on {payload['server']}; you are {payload['member']} "
            f"(admin). Others join with `memvet team join URL --name NAME`."
        ),
    )
    return 0


def team_join(args: argparse.Namespace) -> int:
    from memvet.store.team.members import join_team

    _store().close()
    payload = join_team(memvet_home(), args.url, args.name, team_id=args.team_id)
    emit(
        args,
        payload,
        lambda: print(
            f"registered as {payload['member']} (pending). Ask an admin to compare the fingerprint "
            f"{payload['fingerprint']} and run `memvet team admit {payload['member']}`."
        ),
    )
    return 0


def team_members(args: argparse.Namespace) -> int:
    from memvet.store.team.members import members

    with _session() as session:
        listed = members(session)
    emit(
        args,
        {"members": listed},
        _lines(
            f"{m['id']}  {m['status']:<8} {m['role']:<8} key v{m['key_version'] or '-'}  "
            f"{m['fingerprint']}  {m['name'] or '?'}"
            for m in listed
        ),
    )
    return 0


def team_admit(args: argparse.Namespace) -> int:
    from memvet.store.team.members import admit

    with _session() as session:
        result = admit(session, args.member, role=args.role)
    emit(args, result, lambda: print(f"admitted {args.member} as {args.role}"))
    return 0


def team_remove(args: argparse.Namespace) -> int:
    from memvet.store.team.members import remove

    with _session() as session:
        result = remove(session, args.member)
    emit(
        args,
        result,
        lambda: print(
            f"removed {args.member}; the team key is now version "
            f"{result['key_version']} (every row re-encrypted)"
        ),
    )
    return 0


def _decide(args: argparse.Namespace, action: str) -> int:
    from memvet.store.team import approval, tombstones

    results, failed = [], False
    with _session() as session:
        for cid in args.ids:
            try:
                results.append(
                    approval.approve(session, cid)
                    if action == "approve"
                    else tombstones.reject(session, cid)
                )
            except MemvetError as exc:
                if exc.exit_code == 3:
                    raise
                failed = True
                results.append(
                    {"id": cid, "status": "failed", "error": exc.message, "code": exc.code}
                )
    emit(
        args,
        {"results": results},
        _lines(
            f"{r['id']}: {r['status']}" + (f" ({r['error']})" if r.get("error") else "")
            for r in results
        ),
    )
    return 1 if failed else 0


def team_recover(args: argparse.Namespace) -> int:
    from memvet.store.team.approval import recover

    with _session() as session:
        try:
            result = recover(session, args.id, args.action, force=getattr(args, "force", False))
        except MemvetError as exc:
            if exc.exit_code != 1:
                raise
            result = {"id": args.id, "status": "failed", "error": exc.message, "code": exc.code}
    emit(
        args,
        {"results": [result]},
        lambda: print(
            f"{args.id}: {result['status']}"
            + (f" ({result['error']})" if result.get("error") else "")
        ),
    )
    return 1 if result["status"] == "failed" else 0


def team_approve(args: argparse.Namespace) -> int:
    return _decide(args, "approve")


def team_reject(args: argparse.Namespace) -> int:
    return _decide(args, "reject")


def team_audit_verify(args: argparse.Namespace) -> int:
    from memvet.store.team.audit import verify

    with _session() as session:
        result = verify(session)
    bad: Any = result["first_bad"]
    emit(
        args,
        result,
        lambda: print(
            f"team audit chain intact ({result['events']} events)"
            if result["ok"]
            else f"team audit event {bad['seq']} is bad: {bad['reason']}"
        ),
    )
    return 0 if result["ok"] else 1


def team_migrate(args: argparse.Namespace) -> int:
    from memvet.store.team.schema import TEAM_SCHEMA_VERSION, migrate_server

    with _session(check_schema=False) as session:
        applied = migrate_server(session.conn)
    emit(
        args,
        {"applied": applied, "version": TEAM_SCHEMA_VERSION},
        lambda: print(
            f"server schema at version {TEAM_SCHEMA_VERSION}"
            + (f" (applied {', '.join(applied)})" if applied else " (nothing to do)")
        ),
    )
    return 0


def team_status(args: argparse.Namespace) -> int:
    from memvet.store.team.status import team_status as status

    store = _store()
    try:
        payload = status(store, memvet_home())
    finally:
        store.close()
    emit(args, payload, _lines(f"{k}: {v}" for k, v in payload.items()))
    return 0


def sync(args: argparse.Namespace) -> int:
    from memvet.store.team.loop import run_sync

    store = _store()
    try:
        report = run_sync(store, memvet_home(), once=args.once)
    finally:
        store.close()
    emit(
        args,
        report,
        lambda: print(
            f"sent {report['sent']}, applied {report['applied']}, retired {report['retired']}, "
            f"waiting {report['waiting']}"
            + (f", refused {len(report['refused'])}" if report["refused"] else "")
        ),
    )
    return 0


def propose(args: argparse.Namespace) -> int:
    from memvet.store.team.config import load_config
    from memvet.store.team.share import propose_team, send_offer

    config = load_config(memvet_home())
    store = _store()
    try:
        item_id = propose_team(
            store, config.team_id, args.statement.strip(), args.kind, _workspace(args)
        )
        report = send_offer(store, item_id)  # a team tombstone: exit 1
    finally:
        store.close()
    status = "queued_offline" if report.get("offline") else CandidateStatus.PENDING
    emit(
        args,
        {"id": item_id, "status": status, "team": config.team_id},
        lambda: print(
            f"offered to the team as {item_id}"
            + (" (server unreachable: it waits in the outbox)" if report.get("offline") else "")
        ),
    )
    return 0


def memories_share(args: argparse.Namespace) -> int:
    from memvet.store.team.config import load_config
    from memvet.store.team.share import offer_memory

    load_config(memvet_home())  # no team: exit 3 before a store is made
    store = _store()
    try:
        offer = offer_memory(store, args.id)
    finally:
        store.close()
    emit(
        args,
        {k: offer[k] for k in ("id", "memory_id", "offline")},
        lambda: print(
            f"offered {args.id} to the team as {offer['id']}"
            + (" (server unreachable: it waits in the outbox)" if offer["offline"] else "")
        ),
    )
    return 0


def queue_list(args: argparse.Namespace) -> int:
    from memvet.store.team import reads

    statuses = tuple(args.status or REVIEWABLE_STATUSES)  # the local default
    with _session() as session:
        found = reads.candidates(session, statuses)
    records = [
        {
            "id": c["id"],
            "status": c["status"],
            "statement": c["statement"],
            "kind": c["kind"],
            "source_type": SourceType.OPERATOR,
            "origin": "team",
            "host": None,
            "scope": {"user": None, "workspace": c["remote"], "agent": None, "session": None},
            "confidence": 1.0,
            "evidence_count": 1,
            "created_at": iso(c["created_at"]),
            "proposed_by": c["proposed_by"],
            "lease_owner": c["lease"] and c["lease"]["owner"],
            "lease_expires_at": c["lease"] and iso(c["lease"]["expires_at"]),
        }
        for c in found
    ]
    emit(
        args,
        {"candidates": records},
        _lines(
            f"{r['id']}  {r['status']:<9} {r['kind']:<10} {r['scope']['workspace'] or 'team-wide'}"
            f"  {r['statement']}"
            for r in records
        ),
    )
    return 0


def memories_list(args: argparse.Namespace) -> int:
    from memvet.store.team.status import team_memories

    store = _store()
    try:
        memories = team_memories(store)
    finally:
        store.close()
    records = [
        {
            k: m[k]
            for k in (
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
            )
        }
        | {"team_item_id": m["team_item_id"]}
        for m in memories
    ]
    emit(
        args,
        {"memories": records},
        _lines(f"{r['id']}  {r['status']:<8} {r['kind']:<10} {r['statement']}" for r in records),
    )
    return 0
