"""Reading the review queue: lists with keyset paging and filters, counts, and the detail a
reviewer needs (evidence, conflicts, the memory a correction would replace, tombstone hits)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import CAND, EVID, MEM, TOMB
from memvet.store.errors import IntegrityError, NotFoundError
from memvet.store.leases import expired_clause, shown_counts, status_clause
from memvet.store.records import Candidate, CandidateDetail, Evidence, Reader
from memvet.store.rows import RowCodec
from memvet.store.slot_decisions import Slots
from memvet.store.tombstones import Tombstones
from memvet.store.vocabulary import CandidateStatus


@dataclass(frozen=True)
class QueueFilter:
    statuses: tuple[str, ...] = (CandidateStatus.PENDING, CandidateStatus.STALE)
    hosts: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    workspace: str | None = None  # only this workspace's candidates (exact)
    global_only: bool = False
    text: str | None = None  # case-insensitive substring of the statement (decrypted, so scanned)


# Orders the queue can be listed in, besides creation time. Keyset paging on these takes
# `after=(value, created_at, id)`; host sorts with NULL as "".
SORT_COLUMNS = {
    "confidence": CAND.c.confidence,
    "evidence": CAND.c.evidence_count,
    "kind": CAND.c.kind,
    "host": sa.func.coalesce(CAND.c.host, ""),
}


class QueueReads:
    def __init__(
        self, ctx: StoreContext, rows: RowCodec, tombstones: Tombstones, slots: Slots
    ) -> None:
        self.ctx, self.rows, self.tombstones, self.slots = ctx, rows, tombstones, slots

    def _queue_where(self, reader: Reader, flt: QueueFilter) -> list[sa.ColumnElement[bool]]:
        clauses = [self.ctx.scope_clause(CAND, reader)]
        if flt.statuses:
            clauses.append(status_clause(CAND, flt.statuses, self.ctx.now()))
        if flt.hosts:
            clauses.append(CAND.c.host.in_(flt.hosts))
        if flt.kinds:
            clauses.append(CAND.c.kind.in_(flt.kinds))
        if flt.global_only:
            clauses.append(CAND.c.workspace_bidx.is_(None))
        elif flt.workspace is not None:
            clauses.append(
                CAND.c.workspace_bidx == self.ctx.cipher.blind_index("workspace", flt.workspace)
            )
        return clauses

    def page(
        self,
        reader: Reader,
        flt: QueueFilter | None = None,
        *,
        limit: int | None = 500,
        after: tuple[datetime, str] | tuple[object, datetime, str] | None = None,
        newest_first: bool = False,
        sort: str = "created",
    ) -> list[Candidate]:
        """One page of the queue. `after` is the (created_at, id) of the last row of the previous
        page: keyset paging, so page 200 costs what page 1 costs. With `sort` set to one of
        SORT_COLUMNS, `after` is (value, created_at, id) and ties fall back to creation order."""
        flt = flt or QueueFilter()
        query = sa.select(CAND).where(*self._queue_where(reader, flt))
        if sort != "created":
            column = SORT_COLUMNS[sort]
            key = sa.tuple_(column, CAND.c.created_at, CAND.c.id)
            if after is not None:
                query = query.where(
                    key < sa.tuple_(*after) if newest_first else key > sa.tuple_(*after)
                )
            order = [column, CAND.c.created_at, CAND.c.id]
            query = query.order_by(*(c.desc() for c in order) if newest_first else order)
        else:
            if after is not None:
                at, cid = after[0], after[1]  # (created_at, id) without a sort column
                if newest_first:
                    query = query.where(
                        sa.or_(
                            CAND.c.created_at < at,
                            sa.and_(CAND.c.created_at == at, CAND.c.id < cid),
                        )
                    )
                else:
                    query = query.where(
                        sa.or_(
                            CAND.c.created_at > at,
                            sa.and_(CAND.c.created_at == at, CAND.c.id > cid),
                        )
                    )
            order = (
                (CAND.c.created_at.desc(), CAND.c.id.desc())
                if newest_first
                else (CAND.c.created_at, CAND.c.id)
            )
            query = query.order_by(*order)
        if flt.text:
            return self._scan_text(query, flt.text, limit)
        if limit is not None:
            query = query.limit(limit)
        with self.ctx.read() as conn:
            rows = conn.execute(query).all()
        found = self.ctx.readable(rows, self.rows.candidate, "candidates")
        if limit is not None and len(rows) == limit and len(found) < limit:
            # Rows that failed authentication were left out: fill the page from past the last
            # row read, so a short page still means the end of the queue to a pager.
            last = rows[-1]
            key = (
                (last.created_at, last.id)
                if sort == "created"
                else (
                    (last.host or "") if sort == "host" else last._mapping[SORT_COLUMNS[sort].name],
                    last.created_at,
                    last.id,
                )
            )
            found += self.page(
                reader,
                flt,
                limit=limit - len(found),
                after=key,
                newest_first=newest_first,
                sort=sort,
            )
        return found

    def _scan_text(self, query: sa.Select, text: str, limit: int | None) -> list[Candidate]:
        """Statements are encrypted, so a text filter decrypts them in order until the page is
        full: only the statement of each row, the whole candidate only for matches."""
        needle = text.casefold()
        found: list[Candidate] = []
        with self.ctx.read() as conn:
            result = conn.execute(query)  # rows are fetched as iterated, never all at once
            for row in result:
                statement = self._statement_or_none(row)
                if statement is not None and needle in statement.casefold():
                    found.extend(self.ctx.readable([row], self.rows.candidate, "candidates"))
                    if limit is not None and len(found) >= limit:
                        break
            result.close()
        return found

    def _statement_or_none(self, row: sa.Row) -> str | None:
        """A row's statement for a text filter; None (the row reported) when it fails."""
        try:
            return self.rows.dec("candidates", "statement", row.id, row.statement_ct) or ""
        except IntegrityError:
            self.ctx.note_unreadable("candidates", row.id)
            return None

    def count(self, reader: Reader, flt: QueueFilter | None = None) -> int:
        flt = flt or QueueFilter()
        if flt.text:
            needle = flt.text.casefold()
            query = sa.select(CAND.c.id, CAND.c.statement_ct).where(*self._queue_where(reader, flt))
            with self.ctx.read() as conn:
                return sum(
                    needle in (self._statement_or_none(r) or "").casefold()
                    for r in conn.execute(query)
                )
        with self.ctx.read() as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count())
                    .select_from(CAND)
                    .where(*self._queue_where(reader, flt))
                ).scalar_one()
            )

    def counts(self, reader: Reader) -> dict[str, int]:
        with self.ctx.read() as conn:
            rows = conn.execute(
                sa.select(CAND.c.status, sa.func.count())
                .where(self.ctx.scope_clause(CAND, reader))
                .group_by(CAND.c.status)
            ).all()
            expired = conn.execute(
                sa.select(sa.func.count())
                .select_from(CAND)
                .where(self.ctx.scope_clause(CAND, reader), expired_clause(CAND, self.ctx.now()))
            ).scalar_one()
        return shown_counts(dict(rows), expired)

    def get(self, candidate_id: str, reader: Reader | None = None) -> Candidate:
        query = sa.select(CAND).where(CAND.c.id == candidate_id)
        if reader is not None:
            query = query.where(self.ctx.scope_clause(CAND, reader))
        with self.ctx.read() as conn:
            row = conn.execute(query).first()
        if row is None:
            raise NotFoundError(f"no candidate {candidate_id}", id=candidate_id)
        return self.rows.candidate(row)

    def detail(self, candidate_id: str, reader: Reader | None = None) -> CandidateDetail:
        """The candidate with its evidence, tombstone hit and slot: the rival memories approving
        it has to decide about (slot_decisions.py), and what a correction would replace."""
        cand = self.get(candidate_id, reader)
        with self.ctx.read() as conn:
            row = conn.execute(sa.select(CAND.c.content_key).where(CAND.c.id == candidate_id)).one()
            evidence = tuple(self._evidence(conn, candidate_id))
            # The tombstone admission would hit now (by statement, at this scope or one around
            # it), else this candidate's own, lifted or not.
            tomb = (
                self.tombstones.blocking(conn, cand.scope, cand.statement)
                or conn.execute(
                    sa.select(TOMB).where(TOMB.c.content_key == row.content_key)
                ).first()
            )
            supersedes = None
            if cand.supersedes_id:
                srow = conn.execute(sa.select(MEM).where(MEM.c.id == cand.supersedes_id)).first()
                found_rows = self.ctx.readable([srow] if srow else [], self.rows.memory, "memories")
                supersedes = found_rows[0] if found_rows else None
        found = self.slots.conflicts_for(cand)
        tombs = self.ctx.readable(
            [tomb] if tomb else [],
            self.tombstones.from_row,
            "tombstones",
        )
        tombstone = tombs[0] if tombs else None
        return CandidateDetail(
            cand,
            evidence,
            found.others,
            supersedes,
            tombstone,
            slot=found.slot,
            preselect=found.preselect,
            correction=found.correction,
        )

    def _evidence(self, conn: sa.Connection, candidate_id: str) -> list[Evidence]:
        rows = conn.execute(
            sa.select(EVID).where(EVID.c.candidate_id == candidate_id).order_by(EVID.c.id)
        ).all()
        out = []
        for r in rows:
            rid = str(r.id)
            out.append(
                Evidence(
                    path=self.rows.dec("evidence", "path", rid, r.path_ct) or "",
                    line=r.line,
                    message_id=self.rows.dec("evidence", "message_id", rid, r.message_id_ct),
                    timestamp=r.timestamp,
                    excerpt=self.rows.dec("evidence", "excerpt", rid, r.excerpt_ct) or "",
                    session=self.rows.dec("evidence", "session", rid, r.session_ct),
                )
            )
        return out
