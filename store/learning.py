"""What the reviewer's decisions taught the extractor, kept for this user only.

The daemon (daemon/extraction/reviewer.py) turns approvals, edits, rejections and false writes
into per-feature weight offsets for the learned scorer. The store keeps them in one file,
`MEMVET_HOME/learning/reviewer.bin`, encrypted with the store's data key (AES-GCM, bound to
its name): hashed feature ids, weights, a decision count and a cursor. No statement, word or
excerpt is ever in it. `memvet rules reset-learning` deletes it (audited).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from memvet.store.core import CAND, MEM
from memvet.store.errors import IntegrityError
from memvet.store.vocabulary import CandidateStatus, RetireReason, SourceType

FILE = Path("learning") / "reviewer.bin"
_AAD = ("learning", "weights", "reviewer")  # table, column, row: what the ciphertext is bound to
FORMAT = 1


@dataclass
class Learning:
    weights: dict[int, float] = field(default_factory=dict)  # feature bucket -> offset
    decisions: int = 0
    cursor: tuple[str, str] = ("", "")  # (decided_at ISO, candidate id) of the last one learned

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "decisions": self.decisions,
            "cursor": list(self.cursor),
            "weights": {str(k): round(v, 6) for k, v in self.weights.items()},
        }


@dataclass(frozen=True)
class Decision:
    """One decision of the reviewer: what was queued and whether it was kept."""

    candidate_id: str
    statement: str  # as queued (read to compute features, never stored by learning)
    reasons: tuple[str, ...]
    kept: bool  # approved (as queued or edited); False: rejected, or later a false write
    edited: bool
    decided_at: datetime


def learning_path(store: Any) -> Path:
    return Path(store.home) / FILE


def load_learning(store: Any) -> Learning:
    """The stored offsets; empty when there are none. A file that does not decrypt (another
    store's, or altered) raises IntegrityError: it is never silently replaced."""
    path = learning_path(store)
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return Learning()
    text = store.ctx.cipher.decrypt(*_AAD, blob)
    doc = json.loads(text or "{}")
    if doc.get("format") != FORMAT:
        raise IntegrityError(f"{path}: unknown learning format; run `memvet rules reset-learning`")
    cursor = doc.get("cursor") or ["", ""]
    return Learning(
        {int(k): float(v) for k, v in doc.get("weights", {}).items()},
        int(doc.get("decisions", 0)),
        (str(cursor[0]), str(cursor[1])),
    )


def save_learning(store: Any, learning: Learning) -> None:
    path = learning_path(store)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    blob = store.ctx.cipher.encrypt(*_AAD, json.dumps(learning.to_json(), separators=(",", ":")))
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(blob)
    os.replace(temporary, path)  # a reader sees the old file or the new one, never half


def reset_learning(store: Any, *, actor: str) -> int:
    """Forget what was learned from the reviewer (audited): the offsets go, and the decisions
    made so far are not learned again. Returns how many decisions were forgotten."""
    try:
        forgotten = load_learning(store).decisions
    except IntegrityError:
        forgotten = 0  # an unreadable file is replaced: that is what a reset is for
    with store.ctx.read() as conn:
        last = conn.execute(
            sa.select(CAND.c.decided_at, CAND.c.id)
            .where(CAND.c.decided_at.is_not(None))
            .order_by(CAND.c.decided_at.desc(), CAND.c.id.desc())
            .limit(1)
        ).first()
    cursor = (last.decided_at.isoformat(), last.id) if last is not None else ("", "")
    save_learning(store, Learning(cursor=cursor))
    with store.ctx.write() as conn:
        store.ctx.audit(conn, actor, "learning.reset", "learning", "reviewer")
    return forgotten


def decisions_since(store: Any, cursor: tuple[str, str], limit: int = 1000) -> list[Decision]:
    """Decisions after `cursor`, oldest first: approvals (with whether the statement was edited)
    and rejections of candidates typed by the user."""
    after_time = datetime.fromisoformat(cursor[0]) if cursor[0] else None
    query = sa.select(
        CAND.c.id,
        CAND.c.status,
        CAND.c.statement_ct,
        CAND.c.reasons_ct,
        CAND.c.decided_at,
        CAND.c.memory_id,
    ).where(
        CAND.c.status.in_((CandidateStatus.COMMITTED, CandidateStatus.REJECTED)),
        CAND.c.decided_at.is_not(None),
        CAND.c.source_type == SourceType.EXPLICIT_USER,
    )
    if after_time is not None:
        query = query.where(
            sa.tuple_(CAND.c.decided_at, CAND.c.id) > sa.tuple_(after_time, cursor[1])
        )
    query = query.order_by(CAND.c.decided_at, CAND.c.id).limit(limit)
    found: list[Decision] = []
    with store.ctx.read() as conn:
        rows = conn.execute(query).all()
        memories = _memories(store, conn, [r.memory_id for r in rows if r.memory_id])
        for row in rows:
            try:
                statement = (
                    store.rows.dec("candidates", "statement", row.id, row.statement_ct) or ""
                )
                reasons = json.loads(
                    store.rows.dec("candidates", "reasons", row.id, row.reasons_ct) or "[]"
                )
            except (IntegrityError, ValueError):
                continue
            memory = memories.get(row.memory_id or "")
            kept = row.status == CandidateStatus.COMMITTED and (
                memory is None or memory[1] != RetireReason.FALSE_WRITE
            )
            edited = memory is not None and memory[0] != statement
            found.append(Decision(row.id, statement, tuple(reasons), kept, edited, row.decided_at))
    return found


def _memories(store: Any, conn: sa.Connection, ids: list[str]) -> dict[str, tuple[str, str | None]]:
    """memory id -> (statement as approved, retired reason)."""
    out: dict[str, tuple[str, str | None]] = {}
    for start in range(0, len(ids), 500):
        for row in conn.execute(
            sa.select(MEM.c.id, MEM.c.statement_ct, MEM.c.retired_reason).where(
                MEM.c.id.in_(ids[start : start + 500])
            )
        ):
            try:
                out[row.id] = (
                    store.rows.dec("memories", "statement", row.id, row.statement_ct) or "",
                    row.retired_reason,
                )
            except IntegrityError:
                continue
    return out
