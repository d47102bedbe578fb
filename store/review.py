"""Old memories come back for a look (issue 13): "still true?".

An active memory is due for review when nobody confirmed or edited it for `after_days` (default
90; `[review] after_days` in MEMVET_HOME/config.toml), or when a later session said something
new about its subject (a pending candidate of its slot, created after its last look). The flags
are derived when asked, from the memory's transitions and the queue, so they are never out of
date; the daemon's review sweep counts them (ids and counts only in its log).

Confirming appends an `active → active` transition ("confirmed") and an audit event: the memory
is looked at again from now on. Its validity does not change.
"""

from __future__ import annotations

import os
import secrets
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import CAND, MEM, TRANS
from memvet.store.errors import IllegalTransitionError, NotFoundError
from memvet.store.memories import Memories
from memvet.store.memory_lifecycle import MemoryLifecycle
from memvet.store.records import Memory, Reader
from memvet.store.rows import RowCodec
from memvet.store.vocabulary import CandidateStatus, MemoryStatus

REVIEW_AFTER_DAYS = 90
LOOKED_AT = ("confirmed", "edited", "restore", "approval_undone", "resolved")


@dataclass(frozen=True)
class ReviewFlag:
    memory: Memory
    reasons: tuple[str, ...]  # "unconfirmed_for_days", "newer_session_on_subject"
    last_look: datetime

    def to_json(self) -> dict:
        return {
            **self.memory.to_json(),
            "review": list(self.reasons),
            "last_look": self.last_look.isoformat(),
        }


def review_after(home: str | os.PathLike | None) -> timedelta:
    """The configured review age; a bad or missing value falls back to the default."""
    days = REVIEW_AFTER_DAYS
    path = os.path.join(str(home), "config.toml") if home else None
    if path and os.path.isfile(path):
        try:
            with open(path, "rb") as handle:
                value = tomllib.load(handle).get("review", {}).get("after_days")
        except (OSError, tomllib.TOMLDecodeError):
            value = None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            days = value
    return timedelta(days=days)


class Review:
    def __init__(
        self, ctx: StoreContext, rows: RowCodec, lifecycle: MemoryLifecycle, memories: Memories
    ) -> None:
        self.ctx, self.rows, self.lifecycle, self.memories = ctx, rows, lifecycle, memories

    def confirm(self, memory_id: str, *, actor: str) -> Memory:
        """The operator says it is still true: looked at now (audited)."""
        with self.ctx.write() as conn:
            row = conn.execute(sa.select(MEM).where(MEM.c.id == memory_id)).first()
            if row is None:
                raise NotFoundError(f"no memory {memory_id}", id=memory_id)
            if row.status != MemoryStatus.ACTIVE:
                raise IllegalTransitionError(
                    f"memory {memory_id} is {row.status}: only an active memory is confirmed",
                    entity="memory",
                    from_status=row.status,
                    to_status=MemoryStatus.ACTIVE,
                )
            self.lifecycle.append_transition(
                conn,
                memory_id,
                MemoryStatus.ACTIVE,
                MemoryStatus.ACTIVE,
                row.valid_to,
                row.valid_to,
                actor,
                "confirmed",
                secrets.token_hex(12),
            )
            self.ctx.audit(conn, actor, "memory.confirmed", "memory", memory_id)
            return self.rows.memory(row)

    def review_due(self, reader: Reader, *, after: timedelta | None = None) -> list[ReviewFlag]:
        """Active memories in the reader's scope that are due for a "still true?" look, the
        longest unlooked first."""
        after = after if after is not None else review_after(self.ctx.home)
        now = self.ctx.now()
        memories = self.memories.find(reader, statuses=(MemoryStatus.ACTIVE,))
        if not memories:
            return []
        with self.ctx.read() as conn:
            looks = dict(
                conn.execute(
                    sa.select(TRANS.c.memory_id, sa.func.max(TRANS.c.at))
                    .where(
                        TRANS.c.memory_id.in_([m.id for m in memories]),
                        TRANS.c.reason.in_(LOOKED_AT),
                    )
                    .group_by(TRANS.c.memory_id)
                ).all()
            )
            subjects = (
                dict(
                    conn.execute(
                        sa.select(MEM.c.id, MEM.c.subject_bidx).where(
                            MEM.c.id.in_([m.id for m in memories])
                        )
                    ).all()
                )
                if "subject_bidx" in MEM.c
                else {}
            )
            newer = {}
            for bidx, created in (
                conn.execute(
                    sa.select(CAND.c.subject_bidx, sa.func.max(CAND.c.created_at))
                    .where(
                        CAND.c.status == CandidateStatus.PENDING,
                        self.ctx.scope_clause(CAND, reader),
                        CAND.c.subject_bidx.in_([b for b in subjects.values() if b]),
                    )
                    .group_by(CAND.c.subject_bidx)
                ).all()
                if subjects
                else ()
            ):
                newer[bidx] = created
        flags = []
        for m in memories:
            look = max(filter(None, (m.recorded_at, looks.get(m.id))))
            reasons = []
            if now - look >= after:
                reasons.append("unconfirmed_for_days")
            said = newer.get(subjects.get(m.id))
            if said is not None and said > look:
                reasons.append("newer_session_on_subject")
            if reasons:
                flags.append(ReviewFlag(m, tuple(reasons), look))
        flags.sort(key=lambda f: (f.last_look, f.memory.id))
        return flags
