"""Memory lifecycle actions and reads: false write, forget, dispute, restore, retire, supersede;
bitemporal listing by valid time (`as_of`) and by record time (`recorded_as_of`)."""

from __future__ import annotations

import secrets
from datetime import datetime

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import MEM, TRANS, VERS
from memvet.store.errors import NotFoundError
from memvet.store.lifecycle import check_memory
from memvet.store.memory_lifecycle import MemoryLifecycle
from memvet.store.memory_versions import Version
from memvet.store.records import Change, Memory, Reader, Transition, valid_at
from memvet.store.rows import RowCodec
from memvet.store.slot_decisions import Slots
from memvet.store.tombstones import Tombstones
from memvet.store.vocabulary import MemoryStatus, RetireReason, TombstoneReason
from sqlalchemy import Connection


class Memories:
    def __init__(
        self,
        ctx: StoreContext,
        rows: RowCodec,
        lifecycle: MemoryLifecycle,
        slots: Slots,
        tombstones: Tombstones,
    ) -> None:
        self.ctx, self.rows, self.lifecycle = ctx, rows, lifecycle
        self.slots, self.tombstones = slots, tombstones

    # --- lifecycle --------------------------------------------------------------------------
    def false_write(
        self, memory_id: str, *, actor: str, reason: str | None = None, txn_id: str | None = None
    ) -> Change:
        """The memory should never have been written: retire it and tombstone its content."""
        return self._change(
            memory_id,
            MemoryStatus.RETIRED,
            actor,
            RetireReason.FALSE_WRITE,
            txn_id,
            tombstone=TombstoneReason.FALSE_WRITE,
            note=reason,
        )

    def forget(self, memory_id: str, *, actor: str, txn_id: str | None = None) -> Change:
        return self._change(
            memory_id,
            MemoryStatus.RETIRED,
            actor,
            RetireReason.FORGET,
            txn_id,
            tombstone=TombstoneReason.FORGET,
        )

    def retire(
        self,
        memory_id: str,
        *,
        actor: str,
        reason: str = RetireReason.OPERATOR,
        txn_id: str | None = None,
    ) -> Change:
        return self._change(memory_id, MemoryStatus.RETIRED, actor, reason, txn_id)

    def dispute(self, memory_id: str, *, actor: str, txn_id: str | None = None) -> Change:
        return self._change(memory_id, MemoryStatus.DISPUTED, actor, "dispute", txn_id)

    def resolve_dispute(self, memory_id: str, *, actor: str, txn_id: str | None = None) -> Change:
        return self._change(memory_id, MemoryStatus.ACTIVE, actor, "resolved", txn_id)

    def restore(self, memory_id: str, *, actor: str, txn_id: str | None = None) -> Change:
        return self._change(memory_id, MemoryStatus.ACTIVE, actor, "restore", txn_id)

    def _change(
        self,
        memory_id: str,
        to_status: str,
        actor: str,
        reason: str,
        txn_id: str | None,
        *,
        tombstone: str | None = None,
        note: str | None = None,
    ) -> Change:
        txn_id = txn_id or secrets.token_hex(12)
        with self.ctx.write() as conn:
            row = conn.execute(sa.select(MEM).where(MEM.c.id == memory_id)).first()
            if row is None:
                raise NotFoundError(f"no memory {memory_id}", id=memory_id)
            if self.lifecycle.replayed(conn, memory_id, txn_id):
                return Change(self.rows.memory(row), replayed=True)
            check_memory(row.status, to_status)
            # A row altered without the key refuses every change but the one that takes it out
            # of use for good (false write, forget): that re-seals it as retired.
            self.lifecycle.apply(
                conn, row, to_status, actor, reason, txn_id, repair=tombstone is not None
            )
            self.slots.refresh(conn, row)
            if tombstone:
                statement = (
                    self.rows.dec("memories", "statement", memory_id, row.statement_ct) or ""
                )
                self.tombstones.write(
                    conn,
                    row.content_key,
                    tombstone,
                    memory_id,
                    statement,
                    self.rows.scope_of("memories", row),
                )
            self.ctx.audit(conn, actor, f"memory.{reason}", "memory", memory_id, note)
            fresh = conn.execute(sa.select(MEM).where(MEM.c.id == memory_id)).one()
            return Change(self.rows.memory(fresh))

    # --- reads ---------------------------------------------------------------------------------
    def get(self, memory_id: str, reader: Reader | None = None) -> Memory:
        with self.ctx.read() as conn:
            query = sa.select(MEM).where(MEM.c.id == memory_id)
            if reader is not None:
                query = query.where(self.ctx.scope_clause(MEM, reader))
            row = conn.execute(query).first()
        if row is None:
            raise NotFoundError(f"no memory {memory_id}", id=memory_id)
        return self.rows.memory(row)

    def transitions(self, memory_id: str) -> list[Transition]:
        with self.ctx.read() as conn:
            rows = conn.execute(
                sa.select(TRANS)
                .where(TRANS.c.memory_id == memory_id)
                .order_by(TRANS.c.at, TRANS.c.id)
            ).all()
        return [
            Transition(
                r.memory_id,
                r.from_status,
                r.to_status,
                r.valid_to_before,
                r.valid_to_after,
                r.actor,
                r.reason,
                r.txn_id,
                r.at,
            )
            for r in rows
        ]

    def find(
        self,
        reader: Reader,
        *,
        statuses: tuple[str, ...] = (MemoryStatus.ACTIVE,),
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        limit: int | None = None,
    ) -> list[Memory]:
        """Memories in the reader's scope. as_of: those valid at that time (a false write was
        never valid). recorded_as_of: the store as it was recorded then, rebuilt from transitions."""
        with self.ctx.read() as conn:
            query = sa.select(MEM).where(self.ctx.scope_clause(MEM, reader))
            if recorded_as_of is not None:
                query = query.where(MEM.c.recorded_at <= recorded_as_of)
            elif as_of is None:
                query = query.where(MEM.c.status.in_(statuses))
            query = query.order_by(MEM.c.recorded_at.desc(), MEM.c.id)
            if limit is not None and as_of is None and recorded_as_of is None:
                query = query.limit(limit)
            rows = conn.execute(query).all()
            memories = self.ctx.readable(rows, self.rows.memory, "memories")
            if recorded_as_of is not None:
                memories = self._as_recorded(conn, memories, recorded_as_of)
                memories = [m for m in memories if m.status in statuses or as_of is not None]
        if as_of is not None:
            memories = [m for m in memories if valid_at(m, as_of)]
        return memories[:limit] if limit is not None else memories

    def _as_recorded(self, conn: Connection, memories: list[Memory], at: datetime) -> list[Memory]:
        from dataclasses import replace

        out = []
        for memory in memories:
            last = conn.execute(
                sa.select(TRANS)
                .where(TRANS.c.memory_id == memory.id, TRANS.c.at <= at)
                .order_by(TRANS.c.at.desc(), TRANS.c.id.desc())
                .limit(1)
            ).first()
            if last is None:
                continue
            said = self._said_then(conn, memory.id, at)
            if said is not None:  # edited since: what it said as recorded then
                memory = replace(
                    memory,
                    statement=said.statement,
                    subject=said.subject,
                    kind=said.kind,
                    polarity=said.polarity,
                    valid_from=said.valid_from,
                )
            out.append(
                replace(
                    memory,
                    status=last.to_status,
                    valid_to=last.valid_to_after,
                    retired_reason=last.reason if last.to_status == MemoryStatus.RETIRED else None,
                )
            )
        return out

    def _said_then(self, conn: Connection, memory_id: str, at: datetime) -> Version | None:
        """The version the first edit after `at` replaced (memory_edit.py), if any."""
        row = conn.execute(
            sa.select(VERS)
            .where(VERS.c.memory_id == memory_id, VERS.c.edited_at > at)
            .order_by(VERS.c.id)
            .limit(1)
        ).first()
        if row is None:
            return None
        return Version.from_json(
            self.rows.dec("memory_versions", "previous", row.id, row.previous_ct) or ""
        )

    def count(self, reader: Reader) -> dict[str, int]:
        with self.ctx.read() as conn:
            rows = conn.execute(
                sa.select(MEM.c.status, sa.func.count())
                .where(self.ctx.scope_clause(MEM, reader))
                .group_by(MEM.c.status)
            ).all()
        return {status: n for status, n in rows}
