"""One sync pass between this home's local store and the team server: send the outbox, then
pull team memories and tombstones changed since the last pass into the local store (where
hooks, recall and the inspector read them; they never touch the network).

Nothing is lost or applied twice: an outbox row is deleted only after the server committed
it, and the server write is idempotent by its id, so a reply lost to a dropped connection is
simply sent again; a team memory becomes a local memory once (team_links, and the local
content key absorbs a repeat); cursors advance only past what was applied. Every local write
that came from the team is audited locally with the actor `team:MEMBER`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import sqlalchemy as sa
from memvet.store.records import CandidateDraft, Scope
from memvet.store.team import items, outbox
from memvet.store.team.errors import TeamRefusedError
from memvet.store.team.outbox import LINKS
from memvet.store.team.reads import changes
from memvet.store.team.session import TeamSession
from memvet.store.team.tombstones import false_write, publish
from memvet.store.vocabulary import NEVER_VALID, MemoryStatus, SourceType, TombstoneReason

TEAM_REASON = "team"


@dataclass
class SyncReport:
    sent: int = 0
    refused: list[str] = field(default_factory=list)
    applied: int = 0
    retired: int = 0
    waiting: int = 0
    unreadable: int = 0

    def to_json(self) -> dict:
        return {
            "sent": self.sent,
            "refused": self.refused,
            "applied": self.applied,
            "retired": self.retired,
            "waiting": self.waiting,
            "unreadable": self.unreadable,
        }


def push(store, session: TeamSession, report: SyncReport) -> None:  # noqa: ANN001
    for seq, op, item_id, payload in outbox.pending(store):
        try:
            if op == "propose":
                items.propose(
                    session,
                    item_id,
                    payload["statement"],
                    payload["kind"],
                    payload["polarity"],
                    payload["remote"],
                )
            elif op == "false_write":
                false_write(session, payload["team_memory_id"])
            elif op == "tombstone":
                publish(session, item_id, payload["statement"], payload["remote"])
            outbox.done(store, seq, item_id, "ok")
            report.sent += 1
        except TeamRefusedError as exc:  # refused for good (tombstone, role): reported, audited
            outbox.done(store, seq, item_id, f"refused_{exc.code}")
            report.refused.append(f"{item_id}: {exc.code}")
        except Exception as exc:
            outbox.failed(store, seq, type(exc).__name__)
            raise


def _links(store, ids: list[str]) -> dict[str, sa.Row]:  # noqa: ANN001
    with store.ctx.read() as conn:
        return (
            {
                r.team_item_id: r
                for r in conn.execute(sa.select(LINKS).where(LINKS.c.team_item_id.in_(ids)))
            }
            if ids
            else {}
        )


def _link(
    store,
    item_id: str,
    session: TeamSession,
    state: str,
    memory_id: str | None,  # noqa: ANN001
    payload: dict | None = None,
) -> None:
    blob = (
        None
        if payload is None
        else store.ctx.cipher.encrypt("team_links", "payload", item_id, json.dumps(payload))
    )
    with store.ctx.write() as conn:
        conn.execute(LINKS.delete().where(LINKS.c.team_item_id == item_id))
        conn.execute(
            LINKS.insert().values(
                team_item_id=item_id,
                team_id=session.team_id,
                kind="memory",
                state=state,
                local_memory_id=memory_id,
                payload_ct=blob,
                updated_at=store.now(),
            )
        )


def _apply_memories(store, session: TeamSession, found: list[dict]) -> tuple[int, int]:  # noqa: ANN001
    """Active team memories as local memories, a page at a time (one transaction per approver
    rather than per memory); those whose remote has no folder on this home wait. Returns
    (applied, waiting)."""
    from memvet.store.core import MEM

    ready: list[tuple[dict, CandidateDraft]] = []
    waiting = []
    folders: dict[str, str | None] = {}  # remote -> this home's folder: one look-up per page
    for item in found:
        workspace = None
        if item["remote"] is not None:
            if item["remote"] not in folders:
                folders[item["remote"]] = outbox.workspace_of(store, item["remote"])
            workspace = folders[item["remote"]]
            if workspace is None:
                waiting.append(item)
                continue
        ready.append(
            (
                item,
                CandidateDraft(
                    statement=item["statement"],
                    kind=item["kind"],
                    source_type=SourceType.IMPORT,
                    scope=Scope(user=store.user, workspace=workspace),
                    polarity=item["polarity"],
                    confidence=1.0,
                    reasons=(TEAM_REASON,),
                ),
            )
        )
    by_actor: dict[str, list[CandidateDraft]] = {}
    for item, draft in ready:
        by_actor.setdefault(f"team:{item['approved_by']}", []).append(draft)
    for actor, drafts in by_actor.items():
        store.import_memories(drafts, actor=actor)
    keys = {id(d): store.admission.content_key(d) for _, d in ready}
    with store.ctx.read() as conn:  # the local memory of each (new, or there already)
        local = {
            r.content_key: r.id
            for r in conn.execute(
                sa.select(MEM.c.content_key, MEM.c.id)
                .where(MEM.c.content_key.in_(sorted(set(keys.values()))))
                .order_by(MEM.c.recorded_at)
            )
        }
    links = [(item["id"], "applied", local.get(keys[id(d)], ""), None) for item, d in ready]
    links += [(item["id"], "waiting", None, item) for item in waiting]
    _link_many(store, session, links)
    return len(ready), len(waiting)


def _link_many(store, session: TeamSession, links: list[tuple]) -> None:  # noqa: ANN001
    if not links:
        return
    now, c = store.now(), store.ctx.cipher
    rows = [
        dict(
            team_item_id=item_id,
            team_id=session.team_id,
            kind="memory",
            state=state,
            local_memory_id=memory_id,
            updated_at=now,
            payload_ct=None
            if payload is None
            else c.encrypt("team_links", "payload", item_id, json.dumps(payload)),
        )
        for item_id, state, memory_id, payload in links
    ]
    with store.ctx.write() as conn:
        conn.execute(
            LINKS.delete().where(LINKS.c.team_item_id.in_([r["team_item_id"] for r in rows]))
        )
        conn.execute(LINKS.insert(), rows)


def _retire_local(store, memory_id: str | None, actor: str) -> bool:  # noqa: ANN001
    if not memory_id:
        return False
    try:
        memory = store.get_memory(memory_id)
    except Exception:  # noqa: BLE001 - gone or unreadable: nothing to retire
        return False
    if memory.status == MemoryStatus.RETIRED:
        return False
    store.false_write(memory_id, actor=actor, reason="team tombstone")
    return True


def pull(store, session: TeamSession, report: SyncReport) -> None:  # noqa: ANN001
    outbox.discover_workspaces(store)
    _retry_waiting(store, session, report)
    for table in ("team_memories", "team_tombstones"):
        key = f"cursor:{session.team_id}:{table}"
        cursor = int(outbox.get_state(store, key))
        while True:
            rows, bad = changes(session, table, cursor)
            report.unreadable += bad
            if not rows:
                break
            readable = [r for r in rows if not r.get("unreadable")]
            if table == "team_tombstones":
                for item in readable:
                    _apply_tombstone(store, session, item, report)
            else:
                _apply_memory_page(store, session, readable, report)
            cursor = rows[-1]["seq"]  # only after the whole page is applied
            with store.ctx.write() as conn:
                outbox.set_state(conn, key, str(cursor))


def _apply_tombstone(store, session: TeamSession, item: dict, report: SyncReport) -> None:  # noqa: ANN001
    source = item["source_id"]
    link = _links(store, [source]).get(source)
    if link is None and session.config.personal:
        _local_tombstone(store, session, item)
        return
    if link and _retire_local(store, link.local_memory_id, f"team:{item['created_by']}"):
        report.retired += 1
    if link:
        _link(store, source, session, "retired", link.local_memory_id)


def _local_tombstone(store, session: TeamSession, item: dict) -> None:  # noqa: ANN001
    """A personal team: what another of this person's machines rejected, this one refuses too
    (a local tombstone, audited, with the team's source id)."""
    workspace = None if item["remote"] is None else outbox.workspace_of(store, item["remote"])
    scope = Scope(user=store.user, workspace=workspace)
    key = store.ctx.cipher.content_key(
        store.user, workspace, None, "team-tombstone", item["statement"]
    )
    with store.ctx.write() as conn:
        store.tombstones.write(
            conn, key, TombstoneReason.TEAM, item["source_id"], item["statement"], scope
        )
    _link(store, item["source_id"], session, "applied", None)


def _apply_memory_page(store, session: TeamSession, page: list[dict], report: SyncReport) -> None:  # noqa: ANN001
    links = _links(store, [item["id"] for item in page])
    new = []
    for item in page:
        link = links.get(item["id"])
        if item["status"] != MemoryStatus.ACTIVE:
            if link and link.state != "retired":
                if _retire_local(store, link.local_memory_id, f"team:{item['approved_by']}"):
                    report.retired += 1
                _link(store, item["id"], session, "retired", link.local_memory_id)
        elif not (link and link.state in ("applied", "retired", "pushed")):
            new.append(item)
    applied, waiting = _apply_memories(store, session, new)
    report.applied += applied
    report.waiting += waiting


def _retry_waiting(store, session: TeamSession, report: SyncReport) -> None:  # noqa: ANN001
    with store.ctx.read() as conn:
        rows = conn.execute(
            sa.select(LINKS).where(LINKS.c.state == "waiting", LINKS.c.team_id == session.team_id)
        ).fetchall()
    found = [
        json.loads(
            store.ctx.cipher.decrypt("team_links", "payload", row.team_item_id, row.payload_ct)
        )
        for row in rows
    ]
    ready = [item for item in found if outbox.workspace_of(store, item["remote"]) is not None]
    report.applied += _apply_memories(store, session, ready)[0]


def queue_local_changes(store, session: TeamSession) -> None:  # noqa: ANN001
    """Local false writes of memories that came from the team go to the team; in a personal
    team, every approved local memory goes too (pushed, linked before the pull sees it)."""
    from memvet.store.core import MEM

    with store.ctx.read() as conn:
        rows = conn.execute(
            sa.select(LINKS.c.team_item_id, MEM.c.status, MEM.c.retired_reason, MEM.c.id)
            .join(MEM, MEM.c.id == LINKS.c.local_memory_id)
            .where(LINKS.c.state.in_(("applied", "pushed")), LINKS.c.team_id == session.team_id)
        ).fetchall()
    for item_id, status, reason, memory_id in rows:
        if status == MemoryStatus.RETIRED and reason in NEVER_VALID:
            outbox.enqueue(store, "false_write", "fw" + item_id[2:], {"team_memory_id": item_id})
            _link(store, item_id, session, "retired", memory_id)
    if session.config.personal:
        from memvet.store.team.share import push_personal

        push_personal(store, session)


def sync_once(store, session: TeamSession) -> SyncReport:  # noqa: ANN001
    report = SyncReport()
    queue_local_changes(store, session)
    push(store, session, report)
    pull(store, session, report)
    with store.ctx.write() as conn:
        outbox.set_state(conn, f"last_sync:{session.team_id}", store.now().isoformat())
    return report
