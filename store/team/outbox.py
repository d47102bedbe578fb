"""The local side of the team store, in the local SQLite (migration m008_team): the outbox of
team writes waiting for the server, the links from team rows to local memories, the sync
cursors, and which local folder is which remote's workspace. Payloads and paths are encrypted
with the local store's key, like every other free-text field."""

from __future__ import annotations

import json

import sqlalchemy as sa
from memvet.store.models import TeamLinkRow, TeamOutboxRow, TeamSyncStateRow, TeamWorkspaceRow
from memvet.store.team.remote import remote_of

OUTBOX = TeamOutboxRow.__table__
LINKS = TeamLinkRow.__table__
STATE = TeamSyncStateRow.__table__
WORKSPACES = TeamWorkspaceRow.__table__


def enqueue(store, op: str, item_id: str, payload: dict) -> None:  # noqa: ANN001 - a Store
    """Idempotent by item id: the same write queued twice is queued once."""
    blob = store.ctx.cipher.encrypt("team_outbox", "payload", item_id, json.dumps(payload))
    with store.ctx.write() as conn:
        if conn.execute(sa.select(OUTBOX.c.seq).where(OUTBOX.c.item_id == item_id)).first():
            return
        conn.execute(
            OUTBOX.insert().values(
                op=op, item_id=item_id, payload_ct=blob, created_at=store.now(), attempts=0
            )
        )
        store.ctx.audit(conn, "team", f"team.queued_{op}", "team_item", item_id)


def pending(store) -> list[tuple[int, str, str, dict]]:  # noqa: ANN001
    with store.ctx.read() as conn:
        rows = conn.execute(sa.select(OUTBOX).order_by(OUTBOX.c.seq)).fetchall()
    return [
        (
            r.seq,
            r.op,
            r.item_id,
            json.loads(store.ctx.cipher.decrypt("team_outbox", "payload", r.item_id, r.payload_ct)),
        )
        for r in rows
    ]


def done(store, seq: int, item_id: str, outcome: str) -> None:  # noqa: ANN001
    with store.ctx.write() as conn:
        conn.execute(OUTBOX.delete().where(OUTBOX.c.seq == seq))
        store.ctx.audit(conn, "team", f"team.sent_{outcome}", "team_item", item_id)


def failed(store, seq: int, code: str) -> None:  # noqa: ANN001
    with store.ctx.write() as conn:
        conn.execute(
            OUTBOX.update()
            .where(OUTBOX.c.seq == seq)
            .values(attempts=OUTBOX.c.attempts + 1, last_error=code[:64])
        )


def size(store) -> int:  # noqa: ANN001
    with store.ctx.read() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(OUTBOX)).scalar_one())


def get_state(store, key: str, default: str = "0") -> str:  # noqa: ANN001
    with store.ctx.read() as conn:
        value = conn.execute(sa.select(STATE.c.value).where(STATE.c.key == key)).scalar()
    return default if value is None else value


def set_state(conn, key: str, value: str) -> None:  # noqa: ANN001
    conn.execute(STATE.delete().where(STATE.c.key == key))
    conn.execute(STATE.insert().values(key=key, value=value))


# --- workspaces: remote -> local folder --------------------------------------------------------
def note_workspace(store, path: str | None) -> str | None:  # noqa: ANN001
    """Remember the folder of its remote; returns the remote (None: not a git clone)."""
    remote = remote_of(path)
    if remote is None:
        return None
    c = store.ctx.cipher
    key = c.blind_index("team-remote", remote)
    if workspace_of(store, remote) == path:
        return remote  # known already: no write
    with store.ctx.write() as conn:
        conn.execute(WORKSPACES.delete().where(WORKSPACES.c.remote_bidx == key))
        conn.execute(
            WORKSPACES.insert().values(
                remote_bidx=key,
                remote_ct=c.encrypt("team_workspaces", "remote", key, remote),
                path_ct=c.encrypt("team_workspaces", "path", key, path),
            )
        )
    return remote


def discover_workspaces(store) -> None:  # noqa: ANN001
    """Every workspace the local store knows (one row per distinct workspace), by remote."""
    from memvet.store.models import CandidateRow, MemoryRow

    known: set[str] = set()
    with store.ctx.read() as conn:
        for table in (MemoryRow.__table__, CandidateRow.__table__):
            rows = conn.execute(
                sa.select(table.c.id, table.c.workspace_ct)
                .where(table.c.workspace_bidx.is_not(None))
                .group_by(table.c.workspace_bidx)
            ).fetchall()
            for row in rows:
                name = "memories" if table is MemoryRow.__table__ else "candidates"
                try:
                    known.add(store.ctx.cipher.decrypt(name, "workspace", row.id, row.workspace_ct))
                except Exception:  # noqa: BLE001 - an unreadable row names no workspace
                    continue
    for path in sorted(known):
        note_workspace(store, path)


def workspace_of(store, remote: str) -> str | None:  # noqa: ANN001
    key = store.ctx.cipher.blind_index("team-remote", remote)
    with store.ctx.read() as conn:
        row = conn.execute(sa.select(WORKSPACES).where(WORKSPACES.c.remote_bidx == key)).first()
    return (
        None
        if row is None
        else store.ctx.cipher.decrypt("team_workspaces", "path", key, row.path_ct)
    )
