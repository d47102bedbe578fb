"""Memory lifecycle actions and reads: false write, forget, dispute, restore, retire, supersede;
bitemporal listing by valid time (`as_of`) and by record time (`recorded_as_of`)."""

from __future__ import annotations

import secrets
from datetime import datetime

import sqlalchemy as sa
from memvet.store.core import MEM, StoreCore
from memvet.store.errors import NotFoundError
from memvet.store.lifecycle import check_memory
from memvet.store.models import MemoryTransitionRow, TombstoneRow
from memvet.store.records import Change, Memory, Reader, Tombstone, Transition, valid_at
from memvet.store.sealing import check as check_seal
from memvet.store.sealing import resealed, seal
from sqlalchemy import Connection

TRANS = MemoryTransitionRow.__table__
TOMB = TombstoneRow.__table__


class MemoryMixin(StoreCore):
    # --- lifecycle --------------------------------------------------------------------------
    def false_write(
        self, memory_id: str, *, actor: str, reason: str | None = None, txn_id: str | None = None
    ) -> Change:
        """The memory should never have been written: retire it and tombstone its content."""
        return self._change(
            memory_id, "retired", actor, "false_write", txn_id, tombstone="false_write", note=reason
        )

    def forget(self, memory_id: str, *, actor: str, txn_id: str | None = None) -> Change:
        return self._change(memory_id, "retired", actor, "forget", txn_id, tombstone="forget")

    def retire(
        self, memory_id: str, *, actor: str, reason: str = "operator", txn_id: str | None = None
    ) -> Change:
        return self._change(memory_id, "retired", actor, reason, txn_id)

    def dispute(self, memory_id: str, *, actor: str, txn_id: str | None = None) -> Change:
        return self._change(memory_id, "disputed", actor, "dispute", txn_id)

    def resolve_dispute(self, memory_id: str, *, actor: str, txn_id: str | None = None) -> Change:
        return self._change(memory_id, "active", actor, "resolved", txn_id)

    def restore(self, memory_id: str, *, actor: str, txn_id: str | None = None) -> Change:
        return self._change(memory_id, "active", actor, "restore", txn_id)

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
        with self._write() as conn:
            row = conn.execute(sa.select(MEM).where(MEM.c.id == memory_id)).first()
            if row is None:
                raise NotFoundError(f"no memory {memory_id}", id=memory_id)
            if self._replayed(conn, memory_id, txn_id):
                return Change(self.memory_from_row(row), replayed=True)
            check_memory(row.status, to_status)
            # A row altered without the key refuses every change but the one that takes it out
            # of use for good (false write, forget): that re-seals it as retired.
            self._apply(conn, row, to_status, actor, reason, txn_id, repair=tombstone is not None)
            self.refresh_slot(conn, row)  # type: ignore[attr-defined]
            if tombstone:
                statement = self._dec("memories", "statement", memory_id, row.statement_ct) or ""
                self._tombstone(  # type: ignore[attr-defined]
                    conn,
                    row.content_key,
                    tombstone,
                    memory_id,
                    statement,
                    self._scope_of("memories", row),
                )
            self._audit(conn, actor, f"memory.{reason}", "memory", memory_id, note)
            fresh = conn.execute(sa.select(MEM).where(MEM.c.id == memory_id)).one()
            return Change(self.memory_from_row(fresh))

    def _replayed(self, conn: Connection, memory_id: str, txn_id: str) -> bool:
        return (
            conn.execute(
                sa.select(TRANS.c.id).where(
                    TRANS.c.memory_id == memory_id, TRANS.c.txn_id == txn_id
                )
            ).first()
            is not None
        )

    def _apply(
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
        now = self.now()
        valid_to = row.valid_to
        # ends_at: a correction closes the old validity when the user said it, not at approval
        end = now if ends_at is None else min(now, max(ends_at, row.valid_from))
        if to_status in ("retired", "superseded") and (valid_to is None or valid_to > end):
            valid_to = end
        if to_status == "active" and row.status == "retired":
            valid_to = None  # restored: valid again from now on, history keeps the gap
        values: dict[str, object] = {
            "status": to_status,
            "valid_to": valid_to,
            "updated_at": now,
            "retired_reason": reason if to_status == "retired" else None,
        }
        if to_status == "disputed":
            values["conflict_state"] = "disputed"
        elif to_status == "active":
            values["conflict_state"] = "none"
        if superseded_by:
            values["superseded_by_id"] = superseded_by
        values["row_mac"] = (
            seal(self.cipher, "memories", {**row._mapping, **values})
            if repair
            else resealed(conn, self.cipher, MEM, row.id, values, row=row)
        )
        conn.execute(MEM.update().where(MEM.c.id == row.id).values(**values))
        self._append_transition(  # type: ignore[attr-defined]
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

    def _supersede(
        self,
        conn: Connection,
        old_id: str,
        new_id: str,
        actor: str,
        valid_to: datetime | None = None,
    ) -> None:
        row = conn.execute(sa.select(MEM).where(MEM.c.id == old_id)).first()
        if row is None or row.status not in ("active", "disputed"):
            return  # already settled; the new memory stands on its own
        check_memory(row.status, "superseded")
        self._apply(
            conn,
            row,
            "superseded",
            actor,
            "superseded",
            f"supersede:{new_id}",
            superseded_by=new_id,
            ends_at=valid_to,
        )
        self._audit(conn, actor, "memory.superseded", "memory", old_id, None)

    # --- reads ---------------------------------------------------------------------------------
    def get_memory(self, memory_id: str, reader: Reader | None = None) -> Memory:
        with self._read() as conn:
            query = sa.select(MEM).where(MEM.c.id == memory_id)
            if reader is not None:
                query = query.where(self.scope_clause(MEM, reader))
            row = conn.execute(query).first()
        if row is None:
            raise NotFoundError(f"no memory {memory_id}", id=memory_id)
        return self.memory_from_row(row)

    def transitions(self, memory_id: str) -> list[Transition]:
        with self._read() as conn:
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

    def list_memories(
        self,
        reader: Reader,
        *,
        statuses: tuple[str, ...] = ("active",),
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        limit: int | None = None,
    ) -> list[Memory]:
        """Memories in the reader's scope. as_of: those valid at that time (a false write was
        never valid). recorded_as_of: the store as it was recorded then, rebuilt from transitions."""
        with self._read() as conn:
            query = sa.select(MEM).where(self.scope_clause(MEM, reader))
            if recorded_as_of is not None:
                query = query.where(MEM.c.recorded_at <= recorded_as_of)
            elif as_of is None:
                query = query.where(MEM.c.status.in_(statuses))
            query = query.order_by(MEM.c.recorded_at.desc(), MEM.c.id)
            if limit is not None and as_of is None and recorded_as_of is None:
                query = query.limit(limit)
            rows = conn.execute(query).all()
            memories = self._readable(rows, self.memory_from_row, "memories")
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
            out.append(
                replace(
                    memory,
                    status=last.to_status,
                    valid_to=last.valid_to_after,
                    retired_reason=last.reason if last.to_status == "retired" else None,
                )
            )
        return out

    def count_memories(self, reader: Reader) -> dict[str, int]:
        with self._read() as conn:
            rows = conn.execute(
                sa.select(MEM.c.status, sa.func.count())
                .where(self.scope_clause(MEM, reader))
                .group_by(MEM.c.status)
            ).all()
        return {status: n for status, n in rows}

    # --- tombstones ----------------------------------------------------------------------------
    def list_tombstones(self, *, include_lifted: bool = False) -> list[Tombstone]:
        with self._read() as conn:
            query = sa.select(TOMB).order_by(TOMB.c.created_at.desc())
            if not include_lifted:
                query = query.where(TOMB.c.lifted_at.is_(None))
            rows = conn.execute(query).all()
        return self._readable(rows, self._tombstone_from_row, "tombstones")

    def _tombstone_from_row(self, r: sa.Row) -> Tombstone:
        check_seal(self.cipher, "tombstones", r)
        return Tombstone(
            r.content_key,
            r.reason,
            r.created_at,
            r.seen_again,
            self._dec("tombstones", "preview", r.content_key, r.preview_ct) or "",
            r.source_id,
            r.lifted_at,
        )

    def lift_tombstone(self, content_key: str, *, actor: str) -> Tombstone:
        with self._write() as conn:
            now = self.now()
            mac = resealed(conn, self.cipher, TOMB, content_key, {"lifted_at": now})
            done = conn.execute(
                TOMB.update()
                .where(TOMB.c.content_key == content_key, TOMB.c.lifted_at.is_(None))
                .values(lifted_at=now, row_mac=mac)
            ).rowcount
            if not done:
                raise NotFoundError(f"no active tombstone {content_key[:16]}", id=content_key)
            self._audit(conn, actor, "tombstone.lifted", "tombstone", content_key[:16])
            row = conn.execute(sa.select(TOMB).where(TOMB.c.content_key == content_key)).one()
            return self._tombstone_from_row(row)
