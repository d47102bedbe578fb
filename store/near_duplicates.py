"""Near-duplicates: the same rule, said again in other words (another session, the other host),
merges into the pending candidate instead of queueing a second one. What "the same rule" means
is same_rule.py's.

A draft is compared with the pending candidates of its user at its scope, at the user-global
scope, and (a user-global draft) at every workspace; the merged candidate keeps the more
specific scope (a workspace over user-global). The comparison set is an in-memory index of the
pending candidates' word sets (in memory only), loaded once and kept up to date by this process
(reloaded every few minutes); a match is checked against the database before it is used.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import CAND
from memvet.store.errors import IntegrityError
from memvet.store.records import CandidateDraft
from memvet.store.rows import RowCodec
from memvet.store.same_rule import SAME_RULE, RuleWords, rule_words, similarity
from memvet.store.sealing import resealed
from memvet.store.vocabulary import CandidateStatus
from sqlalchemy import Connection

RELOAD_SECONDS = 300.0  # candidates other processes queued are seen at the next load


@dataclass
class NearDuplicateIndex:
    """The pending candidates' rule words, by word, for one store. Not thread-safe: one writer
    (the daemon's worker, or one CLI command) admits at a time."""

    entries: dict[str, tuple[RuleWords, str, str, str]] = field(
        default_factory=dict
    )  # cid -> (words, user, ws, statement)
    by_word: dict[str, set[str]] = field(default_factory=dict)
    loaded_at: float = -1.0

    def add(self, cid: str, statement: str, user_bidx: str, workspace_bidx: str) -> None:
        said = rule_words(statement)
        if not said.words:
            return
        self.entries[cid] = (said, user_bidx, workspace_bidx, statement)
        for word in said.words:
            self.by_word.setdefault(word, set()).add(cid)

    def discard(self, cid: str) -> None:
        entry = self.entries.pop(cid, None)
        if entry is not None:
            for word in entry[0].words:
                self.by_word.get(word, set()).discard(cid)

    def matches(
        self,
        statement: str,
        user_bidx: str,
        workspace_bidx: str,
        global_bidx: str,
        threshold: float = SAME_RULE,
    ) -> list[tuple[float, str]]:
        """Pending candidates that are the same rule, best first: (similarity, candidate id).
        Equal similarities are ordered by the candidates' statements, then the workspace's own
        before user-global: never by id, which is random, so which candidate a restatement joins
        does not depend on ids (a store rebuilt from the same transcripts merges the same way)."""
        said = rule_words(statement)
        near: set[str] = set()
        for word in said.words:
            near |= self.by_word.get(word, set())
        found = []
        for cid in near:
            words, user, workspace, text = self.entries[cid]
            if user != user_bidx:
                continue
            if workspace_bidx != global_bidx and workspace not in (workspace_bidx, global_bidx):
                continue  # another workspace's rule (a user-global draft meets every one)
            score = similarity(said, words, threshold)
            if score >= threshold:
                found.append((-score, text, workspace == global_bidx, cid))
        return [(-negated, cid) for negated, *_, cid in sorted(found)]


class NearDuplicates:
    """Admission's near-duplicate step: find the pending candidate a draft restates, and narrow
    that candidate to the draft's workspace when the draft's scope is the more specific one."""

    def __init__(self, ctx: StoreContext, rows: RowCodec) -> None:
        self.ctx, self.rows = ctx, rows
        self._index: NearDuplicateIndex | None = None

    def index(self, conn: Connection) -> NearDuplicateIndex:
        index = self._index
        if index is None or time.monotonic() - index.loaded_at > RELOAD_SECONDS:
            index = NearDuplicateIndex(loaded_at=time.monotonic())
            rows = conn.execute(
                sa.select(
                    CAND.c.id, CAND.c.statement_ct, CAND.c.user_bidx, CAND.c.workspace_bidx
                ).where(CAND.c.status == CandidateStatus.PENDING)
            )
            for row in rows:
                try:
                    statement = (
                        self.rows.dec("candidates", "statement", row.id, row.statement_ct) or ""
                    )
                except IntegrityError:
                    continue  # unreadable rows are reported by the reads; here they are skipped
                index.add(row.id, statement, row.user_bidx, row.workspace_bidx or "")
            self._index = index
        return index

    def restated(
        self, conn: Connection, draft: CandidateDraft, fresh: set[str]
    ) -> tuple[str, sa.Row | None] | None:
        """The pending candidate `draft` restates: its id and row (None for one queued earlier in
        this batch, in `fresh`, not written yet), checked against the database; or None."""
        c = self.ctx.cipher
        index = self.index(conn)
        user, workspace = (
            c.blind_index("user", draft.scope.user),
            c.blind_index("workspace", draft.scope.workspace),
        )
        global_bidx = c.blind_index("workspace", None) or ""
        for _, cid in index.matches(draft.statement, user or "", workspace or "", global_bidx):
            if cid in fresh:
                return cid, None
            row = conn.execute(
                sa.select(CAND).where(CAND.c.id == cid, CAND.c.status == CandidateStatus.PENDING)
            ).first()
            if row is not None:
                return cid, row
            index.discard(cid)  # decided elsewhere since the index was loaded
        return None

    def remember(self, cid: str, draft: CandidateDraft) -> None:
        """A candidate this process just queued: later restatements merge into it."""
        if self._index is not None:
            c = self.ctx.cipher
            self._index.add(
                cid,
                draft.statement,
                c.blind_index("user", draft.scope.user) or "",
                c.blind_index("workspace", draft.scope.workspace) or "",
            )

    def narrow_to(self, conn: Connection, row: sa.Row, draft: CandidateDraft) -> str:
        """A user-global candidate restated in a workspace becomes that workspace's (the more
        specific scope); returns its content key, unchanged when nothing narrows."""
        if (
            row.workspace_bidx != self.ctx.cipher.blind_index("workspace", None)
            or draft.scope.workspace is None
        ):
            return row.content_key
        c = self.ctx.cipher
        statement = self.rows.dec("candidates", "statement", row.id, row.statement_ct) or ""
        user = self.rows.dec("candidates", "user", row.id, row.user_ct) or draft.scope.user
        key = c.content_key(user, draft.scope.workspace, None, row.kind, statement)
        taken = conn.execute(
            sa.select(CAND.c.id).where(
                CAND.c.content_key == key,
                CAND.c.status.in_(
                    (CandidateStatus.PENDING, CandidateStatus.RESERVED, CandidateStatus.STALE)
                ),
            )
        ).first()
        if taken is not None:
            return row.content_key  # that workspace already has it pending under this wording
        from memvet.store.slots import derive_subject

        changes = {
            "workspace_bidx": c.blind_index("workspace", draft.scope.workspace),
            "workspace_ct": c.encrypt("candidates", "workspace", row.id, draft.scope.workspace),
            "content_key": key,
            **self.rows.subject_columns(
                "candidates",
                row.id,
                derive_subject(statement, row.kind),
                draft.scope.workspace,
                user,
            ),
        }
        changes["row_mac"] = resealed(conn, c, CAND, row.id, changes, row=row)
        conn.execute(CAND.update().where(CAND.c.id == row.id).values(**changes))
        if self._index is not None:
            self._index.discard(row.id)
            self._index.add(row.id, statement, row.user_bidx, changes["workspace_bidx"] or "")
        return key
