"""Near-duplicates: the same rule, said again in other words (another session, the other host),
merges into the pending candidate instead of queueing a second one.

Two statements are the same rule when they deny or assert alike and the token sets of their
normalised content words (`rule_words`: subjects.content_words, lightly stemmed, filler gone)
are close: Jaccard ≥ `SAME_RULE`, tuned on the dev pairs of
tests/corpus/extraction/same_rule.jsonl and measured on its test pairs (bench_near_duplicates).
Words are never expanded into concepts: "use pnpm" and "use npm" are rivals, not one rule.

A draft is compared with the pending candidates of its user at its scope, at the user-global
scope, and (a user-global draft) at every workspace; the merged candidate keeps the more
specific scope (a workspace over user-global). The comparison set is an in-memory index of the
pending candidates' word sets (in memory only), loaded once and kept up to date by this process
(reloaded every few minutes); a match is checked against the database before it is used.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.core import CAND
from memvet.store.errors import IntegrityError
from memvet.store.lexicon import CONCEPTS, LANGUAGES
from memvet.store.records import CandidateDraft
from memvet.store.rows import RowCodec
from memvet.store.sealing import resealed
from memvet.store.slots import GENERIC
from memvet.store.subjects import content_words, is_negated
from memvet.store.vocabulary import CandidateStatus
from sqlalchemy import Connection

SAME_RULE = 0.55  # similarity at or above which two statements are one rule (dev pairs)
MIN_WORDS = 2  # fewer content words say too little to match on, unless both say the same
_FILLER = frozenset(
    """ever anything everything something stuff thing things way ones one time
times please thanks now then today also anyway always never stop reach reaching allow allowed don
doesn isn won reopen decid decide decided user style everywhere goes through want how repository
repositories codebase""".split()
)
_SUFFIXES = ("ing", "ies", "ied", "es", "ed", "s")
_QUOTES = re.compile(r"[`'\"“”‘’]")
_CODE = re.compile(r"`([^`]+)`")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.+/#-]*")
_VALUE_SHAPE = re.compile(r"[0-9/._]")  # numbers, versions, paths, files
_LANGUAGES = LANGUAGES
_TOOLS = (
    frozenset(w for words in CONCEPTS.values() for w in words if " " not in w) - GENERIC
) | _LANGUAGES


def _stem(word: str) -> str:
    if len(word) <= 4 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            return stem + "y" if suffix in ("ies", "ied") else stem
    return word


@dataclass(frozen=True)
class RuleWords:
    """What a statement says, for comparing: its content words, which of them are values (a
    path, a number, a command, a tool) and which values it denies ("pnpm, not npm")."""

    words: frozenset[str]
    values: frozenset[str]
    denied: frozenset[str]
    negated: bool


_CLAUSE = re.compile(r"[,;:.!?()\u2014\u2013]|\s-\s")


def _is_command(value: str) -> bool:
    return value.startswith("`")


def _is_number(value: str) -> bool:
    return (
        not _is_command(value)
        and not value.endswith("/")
        and any(ch.isdigit() for ch in value)
        and "_" not in value
    )


def _is_path(value: str) -> bool:
    return not _is_command(value) and (
        value.endswith("/") or not _is_number(value) and any(ch in "._" for ch in value)
    )


def _is_tool(value: str) -> bool:
    return not (_is_command(value) or _is_number(value) or _is_path(value))


_VALUE_KINDS = (_is_command, _is_number, _is_path, _is_tool)


def _values(clause: str) -> set[str]:
    found = {
        "`" + " ".join(span.split()) for span in _CODE.findall(clause)
    }  # a command is one value
    for token in _TOKEN.findall(_CODE.sub(" ", clause)):
        bare = token.rstrip(".,-")
        if "/" in token:
            found.add(bare if bare.endswith("/") else bare + "/")  # a path, however it ends
        elif _VALUE_SHAPE.search(bare) or bare in _TOOLS:
            found.add(_stem(bare))
    found.discard("`")
    found.discard("")
    return found


def rule_words(statement: str) -> RuleWords:
    folded = statement.casefold()
    values: set[str] = set()
    denied: set[str] = set()
    for clause in _CLAUSE.split(
        _CODE.sub(lambda m: m.group(0).replace(",", " ").replace(".", "\x00"), folded)
    ):
        clause = clause.replace("\x00", ".")
        found = _values(clause)
        values |= found
        if is_negated(clause):
            denied |= found
    words = frozenset(
        _stem(w) for w in content_words(_QUOTES.sub(" ", statement)) if w not in _FILLER
    )
    return RuleWords(words, frozenset(values), frozenset(denied), is_negated(statement))


def _close(a: str, b: str) -> bool:
    """One typo apart (a letter changed, added, dropped or two swapped), for words of 5+."""
    if min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _shared(a: frozenset[str], b: frozenset[str]) -> int:
    count, rest = len(a & b), set(b - a)
    for word in a - b:
        twin = next((w for w in rest if _close(word, w)), None)
        if twin is not None:
            count += 1
            rest.discard(twin)
    return count


def similarity(a: RuleWords, b: RuleWords) -> float:
    """0 for rivals (values that share nothing, a value one asserts and the other denies, or
    without values opposite polarity); else the mean of the
    Jaccard and the overlap coefficient of their words (a restatement adds words)."""
    if not a.words or not b.words:
        return 0.0
    if a.values and b.values:
        for kind in _VALUE_KINDS:  # "staging listens on 5433" / "… on 3001": one slot, two rules
            mine, theirs = {v for v in a.values if kind(v)}, {v for v in b.values if kind(v)}
            if mine and theirs and not _shared(frozenset(mine), frozenset(theirs)):
                return 0.0
        common = a.values & b.values
        if (a.denied & common) != (b.denied & common):
            return 0.0  # "use npm" / "pnpm, not npm"
    elif a.negated != b.negated:
        return 0.0
    if a.words == b.words:
        return 1.0
    if min(len(a.words), len(b.words)) < MIN_WORDS and not (a.values & b.values):
        return 0.0
    shared = _shared(a.words, b.words)
    jaccard = shared / (len(a.words) + len(b.words) - shared)
    return (jaccard + shared / min(len(a.words), len(b.words))) / 2


def same_rule(a: str, b: str, threshold: float = SAME_RULE) -> bool:
    return similarity(rule_words(a), rule_words(b)) >= threshold


@dataclass
class NearDuplicateIndex:
    """The pending candidates' rule words, by word, for one store. Not thread-safe: one writer
    (the daemon's worker, or one CLI command) admits at a time."""

    entries: dict[str, tuple[RuleWords, str, str]] = field(
        default_factory=dict
    )  # cid -> (words, user, ws)
    by_word: dict[str, set[str]] = field(default_factory=dict)
    loaded_at: float = -1.0

    def add(self, cid: str, statement: str, user_bidx: str, workspace_bidx: str) -> None:
        said = rule_words(statement)
        if not said.words:
            return
        self.entries[cid] = (said, user_bidx, workspace_bidx)
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
        """Pending candidates that are the same rule, best first: (similarity, candidate id)."""
        said = rule_words(statement)
        near: set[str] = set()
        for word in said.words:
            near |= self.by_word.get(word, set())
        found = []
        for cid in near:
            words, user, workspace = self.entries[cid]
            if user != user_bidx:
                continue
            if workspace_bidx != global_bidx and workspace not in (workspace_bidx, global_bidx):
                continue  # another workspace's rule (a user-global draft meets every one)
            score = similarity(said, words)
            if score >= threshold:
                found.append((score, cid))
        return sorted(found, reverse=True)


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


RELOAD_SECONDS = 300.0  # candidates other processes queued are seen at the next load
