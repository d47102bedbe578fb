"""Offering statements to the team: `propose --team` (a new team candidate), `memories share
ID` (a local memory), and in a personal team every approved local memory. Each goes through
the outbox, so it is offered once the server is reachable, and only once (ids derived from
what is offered)."""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from memvet.store.team import outbox
from memvet.store.team.items import memory_id_of, new_item_id
from memvet.store.team.outbox import LINKS
from memvet.store.team.sync import TEAM_REASON
from memvet.store.vocabulary import REVIEWABLE_STATUSES, CandidateStatus, MemoryStatus, Polarity


def _derived_id(team_id: str, local_id: str) -> str:
    return "tc" + hashlib.sha256(f"{team_id}\x1f{local_id}".encode()).hexdigest()[:20]


def _remote(store, workspace: str | None) -> str | None:  # noqa: ANN001
    if workspace is None:
        return None
    remote = outbox.note_workspace(store, workspace)
    if remote is None:
        from memvet.store.errors import UsageError

        raise UsageError(
            f"{workspace} has no git remote: a team workspace is named by its "
            "remote (add one, or offer it --global)"
        )
    return remote


def propose_team(
    store,
    team_id: str,
    statement: str,
    kind: str,
    workspace: str | None,  # noqa: ANN001
    polarity: str = Polarity.ASSERT,
) -> str:
    item_id = new_item_id()
    outbox.enqueue(
        store,
        "propose",
        item_id,
        {
            "statement": statement,
            "kind": kind,
            "polarity": polarity,
            "remote": _remote(store, workspace),
        },
    )
    return item_id


def share_memory(store, team_id: str, memory_id: str) -> str:  # noqa: ANN001
    memory = store.get_memory(memory_id)
    if memory.status != MemoryStatus.ACTIVE:
        from memvet.store.team.errors import TeamRefusedError

        raise TeamRefusedError(
            f"memory {memory_id} is {memory.status}; only an active memory is offered to the team",
            code="not_active",
        )
    item_id = _derived_id(team_id, memory_id)
    outbox.enqueue(
        store,
        "propose",
        item_id,
        {
            "statement": memory.statement,
            "kind": memory.kind,
            "polarity": memory.polarity,
            "remote": _remote(store, memory.scope.workspace),
        },
    )
    with store.ctx.write() as conn:
        conn.execute(LINKS.delete().where(LINKS.c.team_item_id == memory_id_of(item_id)))
        conn.execute(
            LINKS.insert().values(
                team_item_id=memory_id_of(item_id),
                team_id=team_id,
                kind="memory",
                state="pushed",
                local_memory_id=memory_id,
                updated_at=store.now(),
            )
        )
    return item_id


def send_offer(store, item_id: str) -> dict:  # noqa: ANN001
    """Send a queued offer now when the server answers (offline it waits in the outbox, and
    the report says `offline`); a refusal by the team (its tombstone) is an error, exit 1."""
    from memvet.store.team.errors import TeamRefusedError
    from memvet.store.team.loop import sync_or_offline

    report = sync_or_offline(store, store.home)
    for entry in report.get("refused", []):
        if entry.startswith(f"{item_id}:"):
            code = entry.split(": ", 1)[-1]
            why = (
                "the team rejected this statement before (team tombstone)"
                if code == "tombstoned"
                else f"the team refused it ({code})"
            )
            raise TeamRefusedError(f"{why}; it is not offered again", code=code)
    return report


def share_candidate(store, team_id: str, candidate_id: str) -> str:  # noqa: ANN001
    """A local candidate offered as a team candidate (its statement, kind and workspace; the
    evidence stays here). The local one stays in this queue: the team's decision comes back
    as a team memory or a team tombstone. Offered once (the id derives from the candidate)."""
    cand = store.get_candidate(candidate_id)
    if cand.status not in REVIEWABLE_STATUSES:
        from memvet.store.team.errors import TeamRefusedError

        raise TeamRefusedError(
            f"candidate {candidate_id} is {cand.status}; only an undecided candidate is offered "
            "to the team",
            code="not_pending",
        )
    item_id = _derived_id(team_id, candidate_id)
    outbox.enqueue(
        store,
        "propose",
        item_id,
        {
            "statement": cand.statement,
            "kind": cand.kind,
            "polarity": cand.polarity,
            "remote": _remote(store, cand.scope.workspace),
        },
    )
    return item_id


def _offer(store, local_id: str, share) -> dict:  # noqa: ANN001
    from memvet.store.team.config import load_config
    from memvet.store.team.errors import unreachable

    config = load_config(store.home)
    item_id = share(store, config.team_id, local_id)
    offline = bool(send_offer(store, item_id).get("offline"))
    return {
        "id": item_id,
        "offline": offline,
        "cause": unreachable(config.where()).message if offline else None,
    }


def offer_memory(store, memory_id: str) -> dict:  # noqa: ANN001
    """`memvet memories share ID` and the inspector's key: the memory offered to this home's
    team and sent now if the server answers. Exit 3 when the home has no team."""
    return {**_offer(store, memory_id, share_memory), "memory_id": memory_id}


def offer_candidate(store, candidate_id: str) -> dict:  # noqa: ANN001
    """The inspector's `T` on the queue: a local candidate offered to this home's team."""
    return {**_offer(store, candidate_id, share_candidate), "candidate_id": candidate_id}


def push_personal(store, session) -> int:  # noqa: ANN001
    """Every active local memory not from the team and not yet offered (a personal team)."""
    from memvet.store.core import MEM

    with store.ctx.read() as conn:
        linked = sa.select(LINKS.c.local_memory_id).where(LINKS.c.local_memory_id.is_not(None))
        ids = [
            r.id
            for r in conn.execute(
                sa.select(MEM.c.id).where(
                    MEM.c.status == MemoryStatus.ACTIVE, MEM.c.id.not_in(linked)
                )
            )
        ]
    count = _push_rejections(store, session)
    for memory_id in ids:
        memory = store.get_memory(memory_id)
        if TEAM_REASON in (memory.approved_by or "").split(":")[:1]:
            continue
        try:
            share_memory(store, session.team_id, memory_id)
            count += 1
        except Exception:  # noqa: BLE001 - one that cannot be offered (no remote) stays local
            continue
    return count


def _push_rejections(store, session) -> int:  # noqa: ANN001
    """Candidates rejected on this machine (not ones tombstoned by the team) go as tombstones."""
    from memvet.store.core import CAND

    with store.ctx.read() as conn:
        rows = conn.execute(
            sa.select(CAND).where(CAND.c.status == CandidateStatus.REJECTED)
        ).fetchall()
        known = {r.team_item_id for r in conn.execute(sa.select(LINKS.c.team_item_id))}
    count = 0
    for row in rows:
        item_id = "tb" + _derived_id(session.team_id, row.id)[2:]
        if item_id in known or (row.decided_by or "").startswith("team:"):
            continue
        cand = store.rows.candidate(row)
        remote = (
            None
            if cand.scope.workspace is None
            else outbox.note_workspace(store, cand.scope.workspace)
        )
        if cand.scope.workspace is not None and remote is None:
            continue  # a folder without a remote: this machine's own
        outbox.enqueue(store, "tombstone", item_id, {"statement": cand.statement, "remote": remote})
        with store.ctx.write() as conn:
            conn.execute(
                LINKS.insert().values(
                    team_item_id=item_id,
                    team_id=session.team_id,
                    kind="tombstone",
                    state="pushed",
                    local_memory_id=None,
                    updated_at=store.now(),
                )
            )
        count += 1
    return count
