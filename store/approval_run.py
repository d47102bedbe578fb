"""`memvet queue approve`'s work over an open Store: each id through Store.approve, one result
dict each (interfaces.md's shape). Both routes run this one function — the command itself
(no daemon) and the daemon on the command's behalf (memvet.daemon.approve_requests) — so what
an approval does, audits and reports is written once.

`options` are the command's flags as plain JSON (cli_approve.approval_options): the workspace
is already resolved where the command ran, so the daemon never resolves a path of its own.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from memvet.store import cli_conflicts
from memvet.store.errors import MemvetError
from memvet.store.records import Edits
from memvet.store.vocabulary import CandidateStatus


def edits_of(options: dict) -> Edits:
    args = argparse.Namespace(**options)
    edits = Edits(
        statement=args.statement,
        kind=args.kind,
        workspace=args.workspace,
        make_global=args.global_,
        supersede=False if args.no_supersede else None,
        polarity=args.polarity,
        force_over_tombstone=args.force_over_tombstone,
        **cli_conflicts.decision(args),
    )
    return replace(edits, subject=args.subject) if args.subject else edits


def approve_all(
    store, ids: list[str], options: dict, actor: str, *, resumed: bool = False
) -> list[dict]:  # noqa: ANN001
    """One result per id. `resumed`: an earlier attempt by this same `actor` may have committed
    some of them already (the daemon went away before it answered); those are reported as
    committed, since they were, rather than as refused."""
    edits = edits_of(options)
    results = []
    for cid in ids:
        try:
            if resumed and (done := _committed_by(store, cid, actor)) is not None:
                results.append(done)
                continue
            found: list = []  # the approval's one look at the slot, for the note
            memory = store.approve(cid, actor=actor, edits=edits, checked=found.append)
            note = cli_conflicts.correction_note(found[0] if found else None)
            results.append(
                {
                    "id": cid,
                    "status": CandidateStatus.COMMITTED,
                    "memory_id": memory.id,
                    "subject": memory.subject,
                    **({"note": note} if note else {}),
                }
            )
        except MemvetError as exc:
            results.append(
                {
                    "id": cid,
                    "status": exc.details.get("status", "failed"),
                    "memory_id": None,
                    "error": exc.message,
                    "code": exc.code,
                    "holder": exc.details.get("holder"),
                    "tombstone": exc.details.get("tombstone"),
                    **cli_conflicts.refused(exc),
                }
            )
    return results


def _committed_by(store, cid: str, actor: str) -> dict | None:  # noqa: ANN001
    cand = store.get_candidate(cid)
    if cand.status != CandidateStatus.COMMITTED or cand.decided_by != actor[:200]:
        return None
    memory = store.get_memory(cand.memory_id, store.reader_for(None, all_scopes=True))
    return {
        "id": cid,
        "status": CandidateStatus.COMMITTED,
        "memory_id": memory.id,
        "subject": memory.subject,
    }
