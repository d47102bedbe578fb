"""The recall decision (architecture.md, "Recall decision"): a knowledge state, never just a list.

1. Retrieval over the decrypted texts of the caller's scope, in memory (nothing is written):
   a memory matches when its relevance (relevance.py: weighted term overlap with synonyms, a
   subject the question names) reaches the calibrated floor MATCH_THRESHOLD.
2. Answers: active memories in force now, or for a question `as_of` an earlier time, memories
   valid then (never a forgotten or false-written one). Best first: match, the workspace's own
   over user-global, operator-typed over explicit over inferred, importance, recency.
3. A negative-evidence pass (after total-agent-memory's negative retrieval, seed-systems.md B.2)
   compares the best answer with every other active or disputed memory in scope on its subject:
   a hard contradiction (a denial of it, a rival value as strong) answers UNKNOWN/
   unresolved_conflict instead of picking a side; a rule that limits it (a prohibition) makes it
   VERIFIED_WITH_NEGATIVE_BOUNDARY. A workspace memory overrides a global one it contradicts.
4. Without an answer: UNKNOWN with the first reason that applies, in the fixed order
   unresolved_conflict > retired_or_expired > candidate_or_unverified > insufficient_evidence.
   recall_assembly.py builds the verdict into recall_decision.py's records.

The thresholds were set on tests/eval (176 gold cases, oracle mode: gold statements typed in), in
the middle of the range that does well, not at its best point: see docs/host-integration.md.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from memvet.store import context_pack as cp
from memvet.store import relevance
from memvet.store import text_terms as tt
from memvet.store.recall_assembly import DecisionAssembly
from memvet.store.recall_decision import (
    Contradiction,
    Exclusion,
    ReasonCode,
    RecallDecision,
    Relation,
    Severity,
)
from memvet.store.recall_slots import SlotJudge, decide_which, unstated_attribute
from memvet.store.records import MEMORY_STATUSES, NEVER_VALID, Candidate, Memory, valid_at
from memvet.store.subjects import LINK_THRESHOLD, is_negated, overlap
from memvet.store.vocabulary import OPEN_STATUSES, Kind, MemoryStatus, Polarity, RetireReason

MATCH_THRESHOLD = relevance.FLOOR  # relevance a memory needs to be an answer (relevance.py)
RELATED = LINK_THRESHOLD  # subject overlap at which the negative pass compares two memories
HARD = 0.60  # relative match that makes another memory as much an answer (B.2's THRESHOLD_HARD)
MAX_ANSWERS = 5  # answers, and boundaries, listed at most
CO_ANSWER = 0.9  # another answer as good as the best (relative match) is served beside it
MAX_CONTRADICTIONS = 10  # hard ones first; the rest of a crowded subject is left out
HISTORICAL_SLACK = timedelta(minutes=1)  # an as_of closer to now than this is a current question
# Question words that say nothing about the subject; time words too (as_of carries the time).
QUERY_NOISE = relevance.QUERY_NOISE
YES_NO = frozenset(
    "can could should shall may might must is are am was were do does did will "
    "would have has had".split()
)  # a question starting so asks yes or no
WH = frozenset("what which how where who whom whose when why".split())
LIMITING_RELATIONS = (Relation.PROHIBITION, Relation.OPPOSITE_POLARITY)


def specific(memory: Memory) -> bool:
    """A workspace's own memory, as against a user-global one."""
    return memory.scope.workspace is not None


def negative(memory: Memory) -> bool:
    """A denial ("X is not so"), or a rule against something ("never X")."""
    return memory.polarity == Polarity.DENY or (
        memory.kind == Kind.CONSTRAINT and is_negated(memory.statement)
    )


def in_force(memory: Memory, at: datetime) -> bool:
    """Valid at `at`: records.valid_at, the one rule `memories list --as-of` follows too."""
    return valid_at(memory, at)


class Recall:
    """One question over one scope's memories and pending candidates."""

    def __init__(
        self,
        query: str,
        memories: list[Memory],
        candidates: list[Candidate],
        *,
        now: datetime,
        as_of: datetime | None = None,
        index: Any = None,
    ) -> None:
        """index: a recall_index.IndexedScope, when `memories` are only those it found."""
        self.q = tt.terms(query) - QUERY_NOISE
        words = query.casefold().split()
        self.wh_question = (not words or words[0] not in YES_NO) and bool(
            WH & set(w.strip("?,.!:;").replace("’", "'").split("'")[0] for w in words)
        )  # "what's"
        self.memories, self.candidates = memories, candidates
        self.now, self.as_of = now, as_of
        self.historical = as_of is not None and as_of < now - HISTORICAL_SLACK
        self.at = as_of if as_of is not None and self.historical else now
        self.terms = {m.id: tt.terms(m.statement) for m in memories}  # the negative pass's
        self.index = index
        self.relevance = relevance.Relevance(
            query,
            memories,
            (c.statement for c in candidates),
            **({} if index is None else {"noise": index.noise, "question": index.question}),
        )
        self.slots = SlotJudge()

    def answerable(self, m: Memory) -> bool:
        if m.status == MemoryStatus.DISPUTED or m.retired_reason in NEVER_VALID:
            return False
        if self.historical:
            return m.status in (
                MemoryStatus.ACTIVE,
                MemoryStatus.RETIRED,
                MemoryStatus.SUPERSEDED,
            ) and in_force(m, self.at)
        return m.status == MemoryStatus.ACTIVE and in_force(m, self.at)

    def decide(self) -> RecallDecision:
        self.scores = scores = self.relevance.scores()
        self.build = build = DecisionAssembly(
            scores, self.q, as_of=self.as_of, historical=self.historical
        )
        matches = [m for m in self.memories if scores[m.id] >= MATCH_THRESHOLD]
        answers = cp.ranked(m for m in matches if self.answerable(m))
        # Stable sorts: match first, then the workspace's own over user-global, then rank.
        answers.sort(key=specific, reverse=True)
        answers.sort(key=lambda m: round(scores[m.id], 2), reverse=True)
        if not answers:
            # A disputed slot: its memories are the contradictions, none is an answer.
            in_dispute = [m for m in matches if m.status == MemoryStatus.DISPUTED]
            return build.unknown(
                [
                    build.against(m, Relation.DISPUTED, Severity.HARD)
                    for m in in_dispute[:MAX_CONTRADICTIONS]
                ],
                self._excluded(matches),
                settle=decide_which(in_dispute[0], in_dispute[1:]) if in_dispute else None,
            )
        best = answers[0]
        if self._outranked_by_what_is_gone(best, matches):
            return build.unknown([], self._excluded(matches), stale_answer=True)
        found = self._contradictions(best)
        better = self._override(best, found)
        if better is not None:
            best, found = better, self._contradictions(better)
        if self.wh_question and unstated_attribute(self.relevance.question.absent, best.statement):
            return build.unknown([], self._excluded(matches))  # asks for a value no memory states
        if negative(best) and self._asks_for_what_is_gone(best, matches):
            return build.unknown(
                found[:MAX_CONTRADICTIONS], self._excluded(matches), stale_answer=True
            )
        by_id = {m.id: m for m in self.memories}
        hard = [c for c in found if c.severity is Severity.HARD]
        if hard:
            contested = build.against(best, Relation.ANSWER, Severity.HARD, contradicts=hard[0].id)
            return build.unknown(
                [contested, *found[:MAX_CONTRADICTIONS]],
                self._excluded(matches),
                conflict=True,
                settle=decide_which(best, [by_id[c.id] for c in hard]),
            )
        boundaries = [
            c for c in found if c.relation in LIMITING_RELATIONS and negative(by_id[c.id])
        ][:MAX_ANSWERS]
        related = {c.id for c in found}
        also = [
            m
            for m in answers
            if m.id != best.id
            and m.id not in related
            and not negative(m)
            and self._relative(m, best) >= CO_ANSWER
        ][: MAX_ANSWERS - 1]
        limits = [by_id[c.id] for c in boundaries]
        return build.answered(best, also, limits, found[:MAX_CONTRADICTIONS])

    def _override(self, best: Memory, found: list[Contradiction]) -> Memory | None:
        """A better answer than the best match: a workspace memory that contradicts a user-global
        best (the specific rule overrides the general one); or, when the best match is a rule
        against something, the positive answer it limits ("how do I build iOS?" is answered by
        "builds go through fastlane", bounded by "never call xcodebuild directly")."""
        by_id = {m.id: m for m in self.memories}
        for c in found:
            other = by_id[c.id]
            if other.status != MemoryStatus.ACTIVE and not self.historical:
                continue
            if specific(other) > specific(best) and c.relation is not Relation.PROHIBITION:
                return other
            if (
                negative(best)
                and not negative(other)
                and c.relation is Relation.PROHIBITION
                and specific(other) >= specific(best)
                and self._relative(other, best) >= HARD
            ):
                return other
        return None

    def _asks_for_what_is_gone(self, best: Memory, matches: list[Memory]) -> bool:
        """A "what/which/how" question whose best match only says what not to do, while the
        positive answer it asks for matched as well but is retired or superseded: the value asked
        for is unknown now, and the rule does not answer it (a yes/no question it would)."""
        if not self.wh_question:
            return False
        # A superseded memory whose successor answers too lost nothing: the value moved on.
        current = {m.id for m in matches if self.answerable(m)}
        return any(
            not negative(m)
            and not self.answerable(m)
            and m.status != MemoryStatus.DISPUTED
            and m.retired_reason != RetireReason.FALSE_WRITE  # never valid: nothing was lost
            and not (m.status == MemoryStatus.SUPERSEDED and m.superseded_by_id in current)
            and self._relative(m, best) >= HARD
            for m in matches
        )

    def _outranked_by_what_is_gone(self, best: Memory, matches: list[Memory]) -> bool:
        """A retired memory (forgotten, written false, expired) matches the question clearly
        better than the best answer: the question is about what memvet no longer holds, and the
        answer only shares a word with it ("which port is redis on?" after the redis address was
        forgotten is not answered by the postgres port). A superseded memory is not such: its
        successor answers."""
        if self.historical:
            return False
        return any(
            m.status == MemoryStatus.RETIRED and self._relative(best, m) < HARD for m in matches
        )

    def _relative(self, other: Memory, best: Memory) -> float:
        return min(1.0, self.scores[other.id] / max(self.scores[best.id], 1e-9))

    def _read_neighbours(self, best: Memory) -> None:
        """Over the index, the memories that could contradict `best` join those read."""
        if self.index is None:
            return
        more = self.index.neighbours(best, {m.id for m in self.memories})
        for m in more:
            self.terms[m.id] = tt.terms(m.statement)
            self.scores[m.id] = self.relevance.of_outside(m, self.index.corpus.position(m.id))
        pool = sorted([*self.memories, *more], key=lambda m: m.id)
        self.memories = sorted(pool, key=lambda m: m.recorded_at, reverse=True)  # as listed

    def _contradictions(self, best: Memory) -> list[Contradiction]:
        self._read_neighbours(best)
        found = []
        for other in self.memories:
            if other.id == best.id or other.retired_reason in NEVER_VALID:
                continue
            if not (other.status == MemoryStatus.DISPUTED or self.answerable(other)):
                continue
            verdict = self._contradiction(best, other)
            if verdict is not None:
                relation, severity, score = verdict
                if other.status == MemoryStatus.DISPUTED:
                    relation = Relation.DISPUTED  # never an answer; counted as conflict evidence
                found.append(
                    self.build.against(
                        other, relation, severity, round(score, 3), contradicts=best.id
                    )
                )
        found.sort(key=lambda c: (c.severity is not Severity.HARD, -(c.contradiction or 0.0)))
        return found

    def _subject(self, a: frozenset[str], b: frozenset[str]) -> float:
        """How much two statements are about the same thing: the overlap of their terms, or of
        the terms they share with the question when both answer it."""
        qa, qb = a & self.q, b & self.q
        return max(overlap(a, b), overlap(qa, qb) if qa and qb else 0.0)

    def _contradiction(
        self, best: Memory, other: Memory
    ) -> tuple[Relation, Severity, float] | None:
        """Hard only within one slot, on values (recall_slots.py); a rule of another subject
        that limits the answer is a soft boundary."""
        clash = self.slots.clash(best, other)
        if clash is not None:
            if specific(best) and not specific(other):
                return Relation.OVERRIDDEN, Severity.SOFT, 1.0  # the workspace's own answer wins
            relation = (
                Relation.OPPOSITE_POLARITY if clash == "negation" else Relation.DIFFERENT_VALUE
            )
            return relation, Severity.HARD, 1.0
        if negative(best) != negative(other):
            neg, pos = (best, other) if negative(best) else (other, best)
            if neg.kind == Kind.CONSTRAINT and pos.kind != Kind.CONSTRAINT:
                # A rule limiting how: a boundary. Both answering the question relates them.
                subject = self._subject(self.terms[best.id], self.terms[other.id])
                both_answer = min(self.scores[best.id], self.scores[other.id]) >= MATCH_THRESHOLD
                if subject >= RELATED or both_answer:
                    return Relation.PROHIBITION, Severity.SOFT, subject
        return None

    def _excluded(self, matches: list[Memory]) -> list[Exclusion]:
        """The matches recall cannot serve: a disputed memory, one not in force at the question's
        time, a pending candidate the question matches."""
        excluded = []
        for m in matches:
            if m.status == MemoryStatus.DISPUTED:
                excluded.append(Exclusion(m.id, m.status, ReasonCode.UNRESOLVED_CONFLICT))
            elif not self.answerable(m):
                excluded.append(Exclusion(m.id, m.status, ReasonCode.RETIRED_OR_EXPIRED))
        for c in self.candidates:
            if self.relevance.of_text(c.statement) >= MATCH_THRESHOLD:
                excluded.append(Exclusion(c.id, c.status, ReasonCode.CANDIDATE_OR_UNVERIFIED))
        return excluded


def recall(
    store: Any,
    query: str,
    *,
    workspace: str | None,
    as_of: datetime | None = None,
    recorded_as_of: datetime | None = None,
) -> RecallDecision:
    """The decision over the memories and pending candidates the scope rule lets `workspace` see.
    recorded_as_of: decide as the store stood at that record time (rebuilt from transitions)."""
    from memvet.store.candidates import QueueFilter

    reader = store.reader_for(workspace)
    candidates = store.list_candidates(reader, QueueFilter(statuses=OPEN_STATUSES), limit=None)
    index = None
    if recorded_as_of is None:  # the store as it is now: the term index finds what to read
        from memvet.store.recall_index import IndexedScope

        index = IndexedScope(store, reader, query, candidates)
        memories = index.memories
    else:
        memories = store.list_memories(
            reader, statuses=MEMORY_STATUSES, recorded_as_of=recorded_as_of
        )
    now = store.now()
    if recorded_as_of is not None:
        candidates = [c for c in candidates if c.created_at <= recorded_as_of]
        if recorded_as_of < now - HISTORICAL_SLACK:
            # The store as recorded then answers as history, never as what is current now.
            as_of = as_of or recorded_as_of
        else:
            now = min(now, recorded_as_of)
    return Recall(query, memories, candidates, now=now, as_of=as_of, index=index).decide()
