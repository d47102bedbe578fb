"""`memvet team status` and `memories list --team`: what this home knows of its team, read
locally; the server part (reachable, key version, lag) only when it answers in time."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from memvet.store.team import outbox
from memvet.store.team.config import load_config
from memvet.store.team.outbox import LINKS
from memvet.store.vocabulary import CandidateStatus, MemoryStatus


def team_status(store, home: Path) -> dict:  # noqa: ANN001
    config = load_config(home)
    payload = {
        "team": config.team_id,
        "member": config.member_id,
        "name": config.name,
        "personal": config.personal,
        "server": config.where(),
        "outbox": outbox.size(store),
        "last_sync": outbox.get_state(store, f"last_sync:{config.team_id}", "") or None,
        "reachable": False,
        "key_version": None,
        "lag": None,
        "member_status": None,
        "leases": None,
    }
    from memvet.store.errors import MemvetError
    from memvet.store.team.session import open_session

    try:
        session = open_session(home)
    except MemvetError as exc:
        return {**payload, "error": {"code": exc.code, "message": exc.message}}
    try:
        payload["reachable"] = True
        row = session.conn.execute(
            "SELECT status FROM team_members WHERE team_id = %s AND id = %s",
            (config.team_id, config.member_id),
        ).fetchone()
        payload["member_status"] = row[0] if row else "removed"
        payload["key_version"] = session.conn.execute(
            "SELECT key_version FROM teams WHERE id = %s", (config.team_id,)
        ).fetchone()[0]
        lag = 0
        for table in ("team_memories", "team_tombstones"):
            cursor = int(outbox.get_state(store, f"cursor:{config.team_id}:{table}"))
            lag += session.conn.execute(
                f"SELECT count(*) FROM {table} WHERE team_id = %s AND seq > %s",
                (config.team_id, cursor),
            ).fetchone()[0]
        payload["lag"] = lag  # team changes this home has not applied yet
        reserved, stale = session.conn.execute(
            "SELECT count(*) FILTER (WHERE lease_expires_at >= now()), count(*) FILTER "
            "(WHERE lease_expires_at < now()) FROM team_candidates WHERE team_id = %s AND "
            f"status = '{CandidateStatus.RESERVED}'",
            (config.team_id,),
        ).fetchone()
        payload["leases"] = {"reserved": reserved, "stale": stale}  # stale: `team recover`
    finally:
        session.close()
    return payload


def team_memories(store) -> list[dict]:  # noqa: ANN001
    """Local memories that came from (or went to) the team."""
    with store.ctx.read() as conn:
        links = conn.execute(
            sa.select(LINKS.c.team_item_id, LINKS.c.local_memory_id).where(
                LINKS.c.local_memory_id.is_not(None), LINKS.c.state.in_(("applied", "pushed"))
            )
        ).fetchall()
    out = []
    for team_item_id, memory_id in links:
        try:
            memory = store.get_memory(memory_id)
        except Exception:  # noqa: BLE001 - gone or unreadable: not listed
            continue
        if memory.status == MemoryStatus.ACTIVE:
            out.append({**memory.to_json(), "team_item_id": team_item_id})
    return out
