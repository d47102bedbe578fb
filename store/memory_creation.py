"""Writing the memory an approval commits, inside the commit's transaction: the edited
statement through the same gate as admission, the tombstone check, the slot's conflicts and the
operator's decision about them (slot_decisions.py), the first transition and the audit event."""

from __future__ import annotations

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import MEM
from memvet.store.errors import UsageError
from memvet.store.memory_lifecycle import MemoryLifecycle
from memvet.store.records import KINDS, POLARITIES, Candidate, Edits, Memory
from memvet.store.rows import RowCodec
from memvet.store.sealing import seal
from memvet.store.slot_decisions import Slots, subject_for
from memvet.store.text_safety import sanitise, sanitise_optional
from memvet.store.tombstones import Tombstones
from memvet.store.vocabulary import MemoryStatus
from sqlalchemy import Connection


def memory_id_for(candidate_id: str) -> str:
    """Derived from the candidate, so a second commit of one candidate cannot make a second memory."""
    return "m_" + candidate_id.removeprefix("c_")


def gated_statement(text: str) -> str:
    """An edited statement is new text: it passes the same gate as admission."""
    statement = sanitise(text).strip()
    if not statement:
        raise UsageError("the edited statement is empty")
    return statement


def known_kind_and_polarity(kind: str, polarity: str) -> tuple[str, str]:
    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}")
    if polarity not in POLARITIES:
        raise UsageError(f"unknown polarity {polarity!r}: assert or deny")
    return kind, polarity


class MemoryCreation:
    def __init__(
        self,
        ctx: StoreContext,
        rows: RowCodec,
        tombstones: Tombstones,
        slots: Slots,
        lifecycle: MemoryLifecycle,
    ) -> None:
        self.ctx, self.rows, self.tombstones = ctx, rows, tombstones
        self.slots, self.lifecycle = slots, lifecycle

    def insert(self, conn: Connection, cand: Candidate, edits: Edits, actor: str) -> Memory:
        now = self.ctx.now()
        mid = memory_id_for(cand.id)
        statement = gated_statement(edits.statement) if edits.statement else cand.statement.strip()
        if not statement:
            raise UsageError("the edited statement is empty")
        kind, polarity = known_kind_and_polarity(
            edits.kind or cand.kind, edits.polarity or cand.polarity
        )
        workspace = None if edits.make_global else (edits.workspace or cand.scope.workspace)
        scope = type(cand.scope)(
            user=cand.scope.user, workspace=workspace, session=cand.scope.session
        )
        key = self.ctx.cipher.content_key(scope.user, scope.workspace, None, kind, statement)
        self.tombstones.refuse_commit_over(
            conn,
            scope,
            statement,
            candidate_id=cand.id,
            force=edits.force_over_tombstone,
            actor=actor,
        )
        subject = subject_for(cand, edits, statement, kind)
        valid_from = edits.valid_from or self.slots.statement_time(conn, cand)
        found = self.slots.conflicts(
            conn,
            cand,
            statement=statement,
            kind=kind,
            polarity=polarity,
            subject=subject,
            workspace=workspace,
            exclude=mid,
        )
        supersede = None if edits.supersede is False else (edits.supersede_id or cand.supersedes_id)
        if edits.conflict in ("keep_both", "dispute"):
            supersede = None
        elif edits.conflict == "supersede":
            supersede = next(iter(edits.supersede_ids or found.preselect), None)
        c = self.ctx.cipher
        values = dict(
            id=mid,
            candidate_id=cand.id,
            status=MemoryStatus.ACTIVE,
            kind=kind,
            source_type=cand.source_type,
            host=cand.host,
            content_key=key,
            polarity=polarity,
            confidence=cand.confidence,
            importance=cand.importance,
            approved_by=actor[:200],
            valid_from=valid_from,
            valid_to=edits.valid_to,
            recorded_at=now,
            updated_at=now,
            supersedes_id=supersede,
            statement_ct=c.encrypt("memories", "statement", mid, statement),
            usage_boundary_ct=c.encrypt(
                "memories",
                "usage_boundary",
                mid,
                sanitise_optional(edits.usage_boundary) or cand.usage_boundary,
            ),
            **self.rows.scope_columns("memories", mid, scope),
            **self.rows.subject_columns("memories", mid, subject, scope.workspace, scope.user),
        )
        conn.execute(MEM.insert(), {**values, "row_mac": seal(c, "memories", values)})
        self.lifecycle.append_transition(
            conn,
            mid,
            None,
            MemoryStatus.ACTIVE,
            None,
            edits.valid_to,
            actor,
            "approved",
            f"commit:{cand.id}",
        )
        if supersede and edits.conflict != "supersede":
            self.lifecycle.supersede(conn, supersede, mid, actor, valid_to=valid_from)
            found = found.without(supersede)
        self.slots.settle(conn, mid, found, edits, actor, valid_from)
        self.ctx.audit(conn, actor, "memory.created", "memory", mid, statement)
        row = conn.execute(sa.select(MEM).where(MEM.c.id == mid)).one()
        return self.rows.memory(row)
