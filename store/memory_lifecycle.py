"""The primitives of a memory's lifecycle, shared by every part that changes a memory: move it
to a status (closing or reopening its validity), supersede it, and append the transition that
records the change. Each takes the connection of the caller's transaction."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import MEM, TRANS
from memvet.store.lifecycle import check_memory
from memvet.store.sealing import resealed, seal
from memvet.store.vocabulary import MemoryStatus
from sqlalchemy import Connection


class MemoryLifecycle:
    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx

    def replayed(self, conn: Connection, memory_id: str, txn_id: str) -> bool:
        return (
            conn.execute(
                sa.select(TRANS.c.id).where(
                    TRANS.c.memory_id == memory_id, TRANS.c.txn_id == txn_id
                )
            ).first()
            is not None
        )

    def apply(
        self,
        conn: Connection,
        row: sa.Row,
        to_status: str,
        actor: str,
        reason: str,
        txn_id: str,
        superseded_by: str | None = None,
        repair: bool = False,
        ends_at: datetime | None = None,
    ) -> None:
        now = self.ctx.now()
        valid_to = row.valid_to
        # ends_at: a correction closes the old validity when the user said it, not at approval
        end = now if ends_at is None else min(now, max(ends_at, row.valid_from))
        if to_status in (MemoryStatus.RETIRED, MemoryStatus.SUPERSEDED) and (
            valid_to is None or valid_to > end
        ):
            valid_to = end
        if to_status == MemoryStatus.ACTIVE and row.status == MemoryStatus.RETIRED:
            valid_to = None  # restored: valid again from now on, history keeps the gap
        values: dict[str, object] = {
            "status": to_status,
            "valid_to": valid_to,
            "updated_at": now,
            "retired_reason": reason if to_status == MemoryStatus.RETIRED else None,
        }
        if to_status == MemoryStatus.DISPUTED:
            values["conflict_state"] = "disputed"
        elif to_status == MemoryStatus.ACTIVE:
            values["conflict_state"] = "none"
        if superseded_by:
            values["superseded_by_id"] = superseded_by
        values["row_mac"] = (
            seal(self.ctx.cipher, "memories", {**row._mapping, **values})
            if repair
            else resealed(conn, self.ctx.cipher, MEM, row.id, values, row=row)
        )
        conn.execute(MEM.update().where(MEM.c.id == row.id).values(**values))
        self.append_transition(
            conn,
            row.id,
            row.status,
            to_status,
            row.valid_to,
            valid_to,
            actor,
            reason,
            txn_id,
        )

    def supersede(
        self,
        conn: Connection,
        old_id: str,
        new_id: str,
        actor: str,
        valid_to: datetime | None = None,
    ) -> None:
        row = conn.execute(sa.select(MEM).where(MEM.c.id == old_id)).first()
        if row is None or row.status not in (MemoryStatus.ACTIVE, MemoryStatus.DISPUTED):
            return  # already settled; the new memory stands on its own
        check_memory(row.status, MemoryStatus.SUPERSEDED)
        self.apply(
            conn,
            row,
            MemoryStatus.SUPERSEDED,
            actor,
            MemoryStatus.SUPERSEDED,
            f"supersede:{new_id}",
            superseded_by=new_id,
            ends_at=valid_to,
        )
        self.ctx.audit(conn, actor, "memory.superseded", "memory", old_id, None)

    def append_transition(
        self,
        conn: Connection,
        memory_id: str,
        from_status: str | None,
        to_status: str,
        valid_to_before,
        valid_to_after,
        actor: str,  # noqa: ANN001
        reason: str | None,
        txn_id: str,
    ) -> None:
        conn.execute(
            TRANS.insert(),
            dict(
                memory_id=memory_id,
                from_status=from_status,
                to_status=to_status,
                valid_to_before=valid_to_before,
                valid_to_after=valid_to_after,
                actor=actor[:200],
                reason=reason,
                txn_id=txn_id,
                at=self.ctx.now(),
            ),
        )
