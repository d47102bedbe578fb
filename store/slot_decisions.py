"""Conflicts decided at approval (issue 13): which memories a candidate competes with, and what
approving does to them — supersede (any number), keep both as compatible, or dispute.

The rival test is claims.py's; this module finds a candidate's slot in SQL by its blind index
(the scope is never decrypted to look), adds what a correction replaces ("moved from X to Y":
every active memory of the scope that asserts X), and applies the operator's choice in the
commit's own transaction. A slot left with rivals and no choice is marked `unsettled` on every
rival, so recall and the hooks can refuse to pick a side without re-deriving anything.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import sqlalchemy as sa
from memvet.store.claims import Claim, asserts_any, claim_of, rivalry
from memvet.store.context import StoreContext
from memvet.store.core import EVID, MEM
from memvet.store.errors import ConflictError, IntegrityError, NotFoundError, UsageError
from memvet.store.memory_lifecycle import MemoryLifecycle
from memvet.store.records import Candidate, Edits, Memory
from memvet.store.rows import RowCodec
from memvet.store.slots import clean_subject, derive_subject, normalise_subject
from memvet.store.vocabulary import CandidateStatus, MemoryStatus
from sqlalchemy import Connection

DECISIONS = ("ask", "supersede", "keep_both", "dispute")
LIVE = (MemoryStatus.ACTIVE, MemoryStatus.DISPUTED)
MAX_LISTED_IDS = 900  # under SQLite's oldest limit of 999 parameters a statement
CORRECTION_CUE = re.compile(
    r"\b(?:any ?more|no longer|instead|moved|switched|migrated|replaced|"
    r"changed|now)\b"
)


@dataclass(frozen=True)
class SlotConflicts:
    """A candidate (as it would be committed) against its slot."""

    subject: str
    slot: tuple[Memory, ...] = ()  # live memories of the slot, in scope
    rivals: tuple[tuple[Memory, str], ...] = ()  # (memory, relation), the link among them
    preselect: tuple[str, ...] = ()  # ids approving supersedes unless told otherwise
    correction: bool = False
    link: str | None = None  # the correction's own link (admission's supersedes_id)
    negated: frozenset[tuple[str, str]] = field(default_factory=frozenset)

    @property
    def others(self) -> tuple[Memory, ...]:
        """The rivals besides the correction's own link (shown apart: "would supersede")."""
        return tuple(m for m, _ in self.rivals if m.id != self.link)

    def without(self, memory_id: str | None) -> SlotConflicts:
        return replace(self, rivals=tuple(r for r in self.rivals if r[0].id != memory_id))


def is_correction(statement: str, claim: Claim, link: str | None) -> bool:
    typed_negation = any(t != "word" for t, _ in claim.negated)
    return link is not None or (
        typed_negation and bool(CORRECTION_CUE.search(statement.casefold()))
    )


class Slots:
    def __init__(self, ctx: StoreContext, rows: RowCodec, lifecycle: MemoryLifecycle) -> None:
        self.ctx, self.rows, self.lifecycle = ctx, rows, lifecycle

    def members(
        self,
        conn: Connection,
        subject: str,
        workspace: str | None,
        *,
        statuses: tuple[str, ...] = LIVE,
    ) -> list[Memory]:
        """Memories of one subject that a reader in `workspace` sees: this workspace's slot and
        the user-global one, found by blind index; rows from before subjects existed (no index)
        are matched on their derived subject."""
        normal = normalise_subject(subject)
        keys = {self.rows.slot_index(normal, ws, self.ctx.user) for ws in {workspace, None}}
        reader = self.ctx.reader_for(workspace)
        # Two steps: given status and scope in one query, SQLite's planner walks the user's
        # (user, status) index — every memory of the scope — instead of the subject's.
        of_subject = sa.or_(MEM.c.subject_bidx.in_(keys), MEM.c.subject_bidx.is_(None))
        ids = list(conn.execute(sa.select(MEM.c.id).where(of_subject)).scalars())
        if not ids:  # a new subject; `IN ()` would walk the scope again
            return []
        rows = conn.execute(
            sa.select(MEM).where(
                # many rows with no subject index (a store from before subjects): too many ids
                # to list as parameters, and the scope is read anyway
                MEM.c.id.in_(ids) if len(ids) <= MAX_LISTED_IDS else of_subject,
                MEM.c.status.in_(statuses),
                self.ctx.scope_clause(MEM, reader),
            )
        ).all()
        return [m for m in self._decoded(rows) if normalise_subject(m.subject) == normal]

    def _decoded(self, rows: Sequence[sa.Row]) -> list[Memory]:
        """Rows that fail authentication are left out (context.py reports them), never trusted."""
        out = []
        for row in rows:
            try:
                out.append(self.rows.memory(row))
            except IntegrityError:
                continue
        return out

    def conflicts(
        self,
        conn: Connection,
        cand: Candidate,
        *,
        statement: str,
        kind: str,
        polarity: str,
        subject: str,
        workspace: str | None,
        exclude: str | None = None,
    ) -> SlotConflicts:
        claim = claim_of(statement, polarity, subject)
        members = [m for m in self.members(conn, subject, workspace) if m.id != exclude]
        link = cand.supersedes_id
        rivals: dict[str, tuple[Memory, str]] = {}
        for m in members:
            relation = rivalry(claim, claim_of(m.statement, m.polarity, m.subject), kind, m.kind)
            if relation is not None:
                rivals[m.id] = (m, relation)
        correction = is_correction(statement, claim, link)
        if correction:
            typed = frozenset(v for v in claim.negated if v[0] != "word")
            reader = self.ctx.reader_for(workspace)
            rows = conn.execute(
                sa.select(MEM).where(MEM.c.status.in_(LIVE), self.ctx.scope_clause(MEM, reader))
            ).all()
            for m in self._decoded(rows):
                if (
                    m.id != exclude
                    and m.id not in rivals
                    and asserts_any(claim_of(m.statement, m.polarity, m.subject), typed)
                ):
                    rivals[m.id] = (m, "replaced")
        if link and link not in rivals and link != exclude:
            row = conn.execute(
                sa.select(MEM).where(MEM.c.id == link, MEM.c.status.in_(LIVE))
            ).first()
            linked = self._decoded([row]) if row is not None else []
            if linked and self.ctx.visible(self.ctx.reader_for(workspace), linked[0].scope):
                rivals = {link: (linked[0], "replaced"), **rivals}
        return SlotConflicts(
            subject,
            tuple(members),
            tuple(rivals.values()),
            tuple(rivals),
            correction,
            link,
            claim.negated,
        )

    def statement_time(self, conn: Connection, cand: Candidate) -> datetime:
        """When the user said it: the earliest evidence time, else when it was proposed; never
        later than now (valid time is the user's, record time the approval's)."""
        earliest = conn.execute(
            sa.select(sa.func.min(EVID.c.timestamp)).where(EVID.c.candidate_id == cand.id)
        ).scalar()
        said = earliest or cand.created_at
        if said.tzinfo is None:
            said = said.replace(tzinfo=UTC)
        return min(said, self.ctx.now())

    def conflicts_for(self, cand: Candidate, edits: Edits | None = None) -> SlotConflicts:
        """The candidate's slot and rivals as approving it with `edits` would commit it."""
        edits = edits or Edits()
        statement = (edits.statement or cand.statement).strip()
        kind = edits.kind or cand.kind
        workspace = None if edits.make_global else (edits.workspace or cand.scope.workspace)
        with self.ctx.read() as conn:
            return self.conflicts(
                conn,
                cand,
                statement=statement,
                kind=kind,
                polarity=edits.polarity or cand.polarity,
                subject=subject_for(cand, edits, statement, kind),
                workspace=workspace,
                exclude=cand.memory_id,
            )

    def check(self, cand: Candidate, edits: Edits) -> SlotConflicts | None:
        """Approval's early refusal (before anything is reserved) of a conflict left to ask;
        else the slot it found (the approval's note on a correction reads it: no second look)."""
        if cand.status not in (CandidateStatus.PENDING, CandidateStatus.STALE):
            return None  # reserve() says why it cannot be approved
        found = self.conflicts_for(cand, edits)
        left = found
        if edits.supersede is not False or edits.supersede_id:
            left = found.without(edits.supersede_id or cand.supersedes_id)  # that one is followed
        if left.rivals and edits.conflict == "ask":
            raise conflict_error(left)
        return found

    # --- applying the decision, inside the commit's transaction ---------------------------------
    def settle(
        self,
        conn: Connection,
        new_id: str,
        found: SlotConflicts,
        edits: Edits,
        actor: str,
        valid_from: datetime,
    ) -> None:
        decision = edits.conflict
        if decision is not None and decision not in DECISIONS:
            raise UsageError(f"unknown conflict decision {decision!r}: {', '.join(DECISIONS)}")
        rivals = {m.id: (m, r) for m, r in found.rivals}
        if decision == "ask" and rivals:
            raise conflict_error(found)
        if decision == "supersede":
            targets = list(edits.supersede_ids) or list(found.preselect)
            if not targets:
                raise UsageError("nothing to supersede: no memory of its slot disagrees with it")
            for target in targets:
                self._check_target(conn, target, found)
                self.lifecycle.supersede(conn, target, new_id, actor, valid_to=valid_from)
            rivals = {k: v for k, v in rivals.items() if k not in targets}
        elif decision == "keep_both" and rivals:
            clash = [m for m, r in rivals.values() if r in ("negation", "replaced")]
            if clash:
                raise ConflictError(
                    "they cannot both be true: it denies what "
                    + ", ".join(m.id for m in clash)
                    + " says; supersede or dispute instead",
                    code="conflict_not_compatible",
                    status=CandidateStatus.PENDING,
                    memories=[
                        {
                            "id": m.id,
                            "statement": m.statement,
                            "relation": "negation",
                            "status": m.status,
                        }
                        for m in clash
                    ],
                )
            mark = next(
                (m.compatible_key for m, _ in rivals.values() if m.compatible_key), None
            ) or secrets.token_hex(8)
            ids = [new_id, *rivals]
            conn.execute(
                MEM.update()
                .where(MEM.c.id.in_(ids))
                .values(compatible_key=mark, updated_at=self.ctx.now())
            )
            for mid in ids:
                self.ctx.audit(conn, actor, "memory.kept_both", "memory", mid)
            rivals = {}
        elif decision == "dispute" and rivals:
            for mid in [new_id, *rivals]:
                row = conn.execute(sa.select(MEM).where(MEM.c.id == mid)).one()
                if row.status == MemoryStatus.ACTIVE:
                    self.lifecycle.apply(
                        conn, row, MemoryStatus.DISPUTED, actor, "dispute", f"dispute:{new_id}"
                    )
                    self.ctx.audit(conn, actor, "memory.dispute", "memory", mid)
            rivals = {}
        if rivals:
            self.mark_unsettled(conn, [new_id, *rivals])

    def _check_target(self, conn: Connection, target: str, found: SlotConflicts) -> None:
        allowed = {m.id for m in found.slot} | set(found.preselect)
        row = conn.execute(sa.select(MEM.c.id, MEM.c.status).where(MEM.c.id == target)).first()
        if row is None:
            raise NotFoundError(f"no memory {target} to supersede", id=target)
        if row.status not in LIVE:
            raise UsageError(
                f"memory {target} is {row.status}: only an active or disputed "
                "memory can be superseded"
            )
        if target not in allowed:
            raise UsageError(
                f"memory {target} is not in this candidate's slot "
                f"({found.subject!r}) nor replaced by it; use --subject to name "
                "the slot, or approve it on its own",
                id=target,
            )

    def mark_unsettled(self, conn: Connection, ids: list[str]) -> None:
        conn.execute(
            MEM.update()
            .where(MEM.c.id.in_(ids), MEM.c.status == MemoryStatus.ACTIVE)
            .values(conflict_state="unsettled", updated_at=self.ctx.now())
        )  # updated: hook caches refresh

    def refresh(self, conn: Connection, row: sa.Row) -> None:
        """After a memory of a slot changed status: `unsettled` stays only on active memories
        that still have an active rival in the slot (an undecided conflict that is gone is no
        longer flagged)."""
        subject = self.rows.subject("memories", row)
        workspace = self.rows.dec("memories", "workspace", row.id, row.workspace_ct)
        members = self.members(conn, subject, workspace, statuses=(MemoryStatus.ACTIVE,))
        claims = {m.id: claim_of(m.statement, m.polarity, m.subject) for m in members}
        for m in members:
            if m.conflict_state not in ("none", "unsettled"):
                continue
            rival = any(
                rivalry(claims[m.id], claims[o.id], m.kind, o.kind) is not None
                and not (m.compatible_key and m.compatible_key == o.compatible_key)
                for o in members
                if o.id != m.id
            )
            if m.conflict_state == "unsettled" and not rival:
                conn.execute(
                    MEM.update()
                    .where(MEM.c.id == m.id)
                    .values(conflict_state="none", updated_at=self.ctx.now())
                )


def subject_for(cand: Candidate, edits: Edits, statement: str, kind: str) -> str:
    """The subject a commit stores: the operator's, else the candidate's when the statement and
    kind are unchanged, else derived afresh from the edited text."""
    if edits.subject is not None and clean_subject(edits.subject):
        return clean_subject(edits.subject)
    if cand.subject and statement == cand.statement.strip() and kind == cand.kind:
        return cand.subject
    return derive_subject(statement, kind)


def conflict_error(found: SlotConflicts) -> ConflictError:
    names = "; ".join(f"{m.id} ({relation}): {m.statement[:80]}" for m, relation in found.rivals)
    return ConflictError(
        f"it conflicts with {len(found.rivals)} memor{'y' if len(found.rivals) == 1 else 'ies'} "
        f"of its slot {found.subject!r}: {names}. Choose --supersede MEMORY…, --keep-both or "
        "--dispute",
        memories=[
            {"id": m.id, "statement": m.statement, "relation": relation, "status": m.status}
            for m, relation in found.rivals
        ],
        subject=found.subject,
        preselect=list(found.preselect),
        status=CandidateStatus.PENDING,
    )
