"""Tombstones: a rejected, false-written or forgotten statement never comes back.

A tombstone is found by its statement key (crypto.statement_key: the user and the canonical
statement, whatever the kind) and blocks that statement at the scope it was written in, at
every wider one and every narrower one: a rejection in workspace W blocks W and the global
form; a global rejection blocks the global form and every workspace. Two different workspaces
do not block each other. Admission, commit (an edited statement, a changed scope) and the
reviewer's detail view all ask the same question here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from memvet.store import row_mac
from memvet.store.context import StoreContext
from memvet.store.core import TOMB
from memvet.store.errors import IntegrityError, NotFoundError, TombstonedError
from memvet.store.records import Scope, Tombstone
from memvet.store.rows import RowCodec
from memvet.store.sealing import check as check_seal
from memvet.store.sealing import resealed, seal
from memvet.store.vocabulary import CandidateStatus
from sqlalchemy import Connection

CHUNK = 500  # keys per IN query
POLICY_ACTOR = "policy:"  # the actor prefix of commits no person made (selective mode)


def blocks(tomb_workspace_bidx: str | None, workspace_bidx: str | None) -> bool:
    """The scope rule of tombstones: the same scope, or one of the two is user-global."""
    return (
        tomb_workspace_bidx is None
        or workspace_bidx is None
        or (tomb_workspace_bidx == workspace_bidx)
    )


class Tombstones:
    """The ledger's tombstones: what blocks a statement, writing one, listing and lifting."""

    def __init__(self, ctx: StoreContext, rows: RowCodec) -> None:
        self.ctx, self.rows = ctx, rows

    def hits(
        self, conn: Connection, statements: Sequence[tuple[Scope, str]]
    ) -> list[sa.Row | None]:
        """For each (scope, statement), the live tombstone that blocks it, or None."""
        keys = [self.ctx.cipher.statement_key(scope.user, text) for scope, text in statements]
        live: dict[str, list[tuple[sa.Row, bool]]] = {}  # with whether its MAC holds
        unique = sorted(set(keys))
        for i in range(0, len(unique), CHUNK):
            for row in conn.execute(
                sa.select(TOMB).where(TOMB.c.statement_key.in_(unique[i : i + CHUNK]))
            ):
                # Fail closed: a tombstone whose row MAC fails (lifted or re-scoped without
                # the key) still blocks, at every scope.
                sealed = row_mac.intact(self.ctx.cipher.row_key, "tombstones", row._mapping)
                if row.lifted_at is None or not sealed:
                    live.setdefault(row.statement_key, []).append((row, sealed))
        hits: list[sa.Row | None] = []
        for (scope, _), key in zip(statements, keys, strict=True):
            ws = self.ctx.cipher.blind_index("workspace", scope.workspace)
            hits.append(
                next(
                    (
                        r
                        for r, sealed in live.get(key, ())
                        if not sealed or blocks(r.workspace_bidx, ws)
                    ),
                    None,
                )
            )
        return hits

    def blocking(self, conn: Connection, scope: Scope, statement: str) -> sa.Row | None:
        return self.hits(conn, [(scope, statement)])[0]

    def refuse_commit_over(
        self,
        conn: Connection,
        scope: Scope,
        statement: str,
        *,
        candidate_id: str,
        force: bool,
        actor: str,
    ) -> None:
        """Commit's check: a live tombstone on the statement at this scope refuses the commit,
        unless the operator forces it; a forced commit is audited as such."""
        tomb = self.blocking(conn, scope, statement)
        if tomb is None and actor.startswith(POLICY_ACTOR):
            tomb = self.restated(conn, scope, statement)
            force = False  # no person is here to decide it again
        if tomb is None:
            return
        name = tomb.content_key[:16]
        if force:
            self.ctx.audit(
                conn,
                actor,
                "tombstone.overridden",
                "tombstone",
                name,
                f"committed over by {candidate_id}",
            )
            return
        where = "user-global" if tomb.workspace_bidx is None else "a workspace"
        raise TombstonedError(
            f"the statement matches tombstone {name} ({tomb.reason} {tomb.created_at:%Y-%m-%d}, "
            f"{where}): it was turned down before; the same `memvet queue approve "
            f"{candidate_id} …` with `--force-over-tombstone` added commits it anyway",
            id=candidate_id,
            tombstone=name,
            reason=tomb.reason,
            status=CandidateStatus.PENDING,
        )

    def restated(self, conn: Connection, scope: Scope, statement: str) -> sa.Row | None:
        """A live tombstone whose statement is the same rule as `statement` in other words
        (same_rule.same_rule on its stored preview), at a scope that blocks it. Only the
        policy asks: a person approving a reworded rule decides it again."""
        from memvet.store.same_rule import same_rule

        ws = self.ctx.cipher.blind_index("workspace", scope.workspace)
        for row in conn.execute(sa.select(TOMB).where(TOMB.c.lifted_at.is_(None))):
            if not blocks(row.workspace_bidx, ws):
                continue
            try:
                preview = self.rows.dec("tombstones", "preview", row.content_key, row.preview_ct)
            except IntegrityError:  # unreadable: the exact lookup above still fails closed
                continue
            if preview and same_rule(preview, statement):
                return row
        return None

    def write(
        self,
        conn: Connection,
        content_key: str,
        reason: str,
        source_id: str,
        statement: str,
        scope: Scope,
    ) -> None:
        now = self.ctx.now()
        existing = conn.execute(
            sa.select(TOMB.c.content_key).where(TOMB.c.content_key == content_key)
        ).first()
        values = dict(
            reason=reason,
            source_id=source_id,
            lifted_at=None,
            preview_ct=self.ctx.cipher.encrypt(
                "tombstones", "preview", content_key, statement[:120]
            ),
            statement_key=self.ctx.cipher.statement_key(scope.user, statement),
            workspace_bidx=self.ctx.cipher.blind_index("workspace", scope.workspace),
        )
        if existing:  # re-tombstoning only blocks more, so it re-seals whatever was there
            values["row_mac"] = seal(
                self.ctx.cipher, "tombstones", {"content_key": content_key, **values}
            )
            conn.execute(TOMB.update().where(TOMB.c.content_key == content_key).values(**values))
        else:
            row = dict(content_key=content_key, created_at=now, seen_again=0, **values)
            conn.execute(
                TOMB.insert(), {**row, "row_mac": seal(self.ctx.cipher, "tombstones", row)}
            )
        self.ctx.audit(conn, "store", "tombstone.written", "tombstone", content_key[:16])

    # --- reads and lifting ---------------------------------------------------------------------
    def every(self, *, include_lifted: bool = False) -> list[Tombstone]:
        with self.ctx.read() as conn:
            query = sa.select(TOMB).order_by(TOMB.c.created_at.desc())
            if not include_lifted:
                query = query.where(TOMB.c.lifted_at.is_(None))
            rows = conn.execute(query).all()
        return self.ctx.readable(rows, self.from_row, "tombstones")

    def from_row(self, r: sa.Row) -> Tombstone:
        check_seal(self.ctx.cipher, "tombstones", r)
        return Tombstone(
            r.content_key,
            r.reason,
            r.created_at,
            r.seen_again,
            self.rows.dec("tombstones", "preview", r.content_key, r.preview_ct) or "",
            r.source_id,
            r.lifted_at,
        )

    def lift_in(self, conn: Connection, tomb: sa.Row, now: datetime, actor: str) -> None:
        """Lift `tomb` inside the caller's transaction (an undone rejection or retirement)."""
        mac = resealed(conn, self.ctx.cipher, TOMB, tomb.content_key, {"lifted_at": now}, row=tomb)
        conn.execute(
            TOMB.update()
            .where(TOMB.c.content_key == tomb.content_key)
            .values(lifted_at=now, row_mac=mac)
        )
        self.ctx.audit(conn, actor, "tombstone.lifted", "tombstone", tomb.content_key[:16])

    def lift(self, content_key: str, *, actor: str) -> Tombstone:
        with self.ctx.write() as conn:
            now = self.ctx.now()
            mac = resealed(conn, self.ctx.cipher, TOMB, content_key, {"lifted_at": now})
            done = conn.execute(
                TOMB.update()
                .where(TOMB.c.content_key == content_key, TOMB.c.lifted_at.is_(None))
                .values(lifted_at=now, row_mac=mac)
            ).rowcount
            if not done:
                raise NotFoundError(f"no active tombstone {content_key[:16]}", id=content_key)
            self.ctx.audit(conn, actor, "tombstone.lifted", "tombstone", content_key[:16])
            row = conn.execute(sa.select(TOMB).where(TOMB.c.content_key == content_key)).one()
            return self.from_row(row)
