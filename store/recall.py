"""The recall decision (architecture.md, "Recall decision"): a knowledge state, never just a list.

1. Lexical retrieval over the decrypted texts of the caller's scope, in memory (nothing is
   written): a memory matches when it holds at least MATCH_THRESHOLD of the question's terms,
   weighted by rarity (idf over everything in scope).
2. Answers are active memories in force now, or, for a question `as_of` an earlier time, memories
   valid then (a forgotten or false-written one never counts). Best first: match, then
   operator-typed over explicit over inferred, importance, recency.
3. A negative-evidence pass (after total-agent-memory's negative retrieval, seed-systems.md B.2)
   compares the best answer with every other active or disputed memory in scope on a related
   subject; a hard contradiction answers UNKNOWN/unresolved_conflict instead of picking a side, a
   soft one that limits the answer (a narrower prohibition or denial) makes it
   VERIFIED_WITH_NEGATIVE_BOUNDARY.
4. Without an answer: UNKNOWN with the first reason that applies, in the fixed order
   unresolved_conflict > retired_or_expired > candidate_or_unverified > insufficient_evidence.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from memvet.store import context_pack as cp
from memvet.store.records import MEMORY_STATUSES, Candidate, Memory, iso
from memvet.store.subjects import LINK_THRESHOLD, is_negated, overlap

MATCH_THRESHOLD = 0.5  # idf-weighted share of the question's terms a memory must contain
RELATED = LINK_THRESHOLD  # subject overlap at which the negative pass compares two memories
SAME_SUBJECT = 0.5  # subject overlap for two same-kind statements to be rival values
SOFT, HARD = 0.30, 0.60  # contradiction bands (B.2's THRESHOLD_SOFT / THRESHOLD_HARD)
MAX_ANSWERS = 5
MAX_CONTRADICTIONS = 10  # hard ones first; the rest of a crowded subject is left out
HISTORICAL_SLACK = timedelta(minutes=1)  # an as_of closer to now than this is a current question
QUERY_NOISE = frozenset({"tell", "know", "remember", "recall", "said", "say", "told", "memory",
                         "memories", "okay", "ok", "anything", "something", "whether"})
NEVER_VALID = ("false_write", "forget")  # retired this way: never an answer, not even historical
REASONS = ("unresolved_conflict", "retired_or_expired", "candidate_or_unverified",
           "insufficient_evidence")
MISSING = {"unresolved_conflict": "resolved_conflict",
           "retired_or_expired": "verified_active_record",
           "candidate_or_unverified": "operator_approval",
           "insufficient_evidence": "verified_active_record"}
LIMITING_RELATIONS = ("prohibition", "opposite_polarity")


def negative(memory: Memory) -> bool:
    """A denial ("X is not so"), or a rule against something ("never X")."""
    return memory.polarity == "deny" or (memory.kind == "constraint" and is_negated(memory.statement))


def in_force(memory: Memory, at: datetime) -> bool:
    return (memory.valid_from <= at and (memory.valid_to is None or memory.valid_to > at)
            and (memory.expires_at is None or memory.expires_at > at))


class Recall:
    """One question over one scope's memories and pending candidates."""

    def __init__(self, query: str, memories: list[Memory], candidates: list[Candidate], *,
                 now: datetime, as_of: datetime | None = None) -> None:
        self.q = cp.terms(query) - QUERY_NOISE
        self.memories, self.candidates = memories, candidates
        self.now, self.as_of = now, as_of
        self.historical = as_of is not None and as_of < now - HISTORICAL_SLACK
        self.at = as_of if self.historical else now
        self.terms = {m.id: cp.terms(m.statement) for m in memories}
        texts = [*self.terms.values(), *(cp.terms(c.statement) for c in candidates)]
        self.df: dict[str, int] = {}
        for words in texts:
            for word in words:
                self.df[word] = self.df.get(word, 0) + 1
        self.n = len(texts)

    def score(self, words: frozenset[str]) -> float:
        """The idf-weighted share of the question's terms that `words` contains."""
        if not self.q:
            return 0.0
        weight = lambda t: cp.idf_of(self.df.get(t, 0), self.n)  # noqa: E731
        return sum(map(weight, self.q & words)) / sum(map(weight, self.q))

    def answerable(self, m: Memory) -> bool:
        if m.status == "disputed" or m.retired_reason in NEVER_VALID:
            return False
        if self.historical:
            return m.status in ("active", "retired", "superseded") and in_force(m, self.at)
        return m.status == "active" and in_force(m, self.at)

    def decide(self) -> dict[str, Any]:
        scores = {m.id: self.score(self.terms[m.id]) for m in self.memories}
        matches = [m for m in self.memories if scores[m.id] >= MATCH_THRESHOLD]
        answers = cp.ranked(m for m in matches if self.answerable(m))
        answers.sort(key=lambda m: round(scores[m.id], 2), reverse=True)  # stable: rank in ties
        if not answers:
            return self._unknown(matches, scores, [])
        best = answers[0]
        found = self._contradictions(best, scores)
        hard = [c for c in found if c["severity"] == "hard"]
        if hard:
            contested = {**self._item(best, scores), "relation": "answer", "severity": "hard",
                         "contradicts": hard[0]["id"]}
            return self._unknown(matches, scores, [contested, *found[:MAX_CONTRADICTIONS]],
                                 conflict=True)
        against = {c["id"] for c in found}
        chosen = [m for m in answers if m.id not in against][:MAX_ANSWERS]
        boundaries = [c for c in found if c["relation"] in LIMITING_RELATIONS][:MAX_ANSWERS]
        if self.historical:
            state = "VERIFIED_HISTORICAL"
        elif best.polarity == "deny":
            state = "VERIFIED_NEGATIVE"
        elif boundaries or best.usage_boundary:
            state = "VERIFIED_WITH_NEGATIVE_BOUNDARY"
        else:
            state = "VERIFIED"
        items = [{**self._item(m, scores), "role": "answer"} for m in chosen]
        by_id = {m.id: m for m in self.memories}
        items += [{**self._item(by_id[c["id"]], scores), "role": "boundary"} for c in boundaries]
        return self._result(state, None, [], items, found[:MAX_CONTRADICTIONS])

    def _contradictions(self, best: Memory, scores: dict[str, float]) -> list[dict[str, Any]]:
        found = []
        for other in self.memories:
            if other.id == best.id or other.retired_reason in NEVER_VALID:
                continue
            if not (other.status == "disputed" or self.answerable(other)):
                continue
            verdict = self._contradiction(best, other, scores)
            if verdict is not None:
                relation, severity, score = verdict
                found.append({**self._item(other, scores), "relation": relation,
                              "severity": severity, "contradiction": round(score, 3),
                              "contradicts": best.id})
        found.sort(key=lambda c: (c["severity"] != "hard", -c["contradiction"]))
        return found

    def _contradiction(self, best: Memory, other: Memory,
                       scores: dict[str, float]) -> tuple[str, str, float] | None:
        a, b = self.terms[best.id], self.terms[other.id]
        subject = overlap(a, b)
        if subject < RELATED:
            return None
        if other.status == "disputed":  # excluded from answers, counted as conflict evidence
            hard = scores[other.id] >= MATCH_THRESHOLD or subject >= HARD
            return "disputed", "hard" if hard else "soft", subject
        if negative(best) != negative(other):
            neg, pos = (best, other) if negative(best) else (other, best)
            relation = "prohibition" if neg.kind == "constraint" else "opposite_polarity"
            # It denies all the other asserts (its terms are a subset): a contradiction. A
            # narrower one ("never tabs in YAML" against "use tabs") limits: a boundary.
            if self.terms[neg.id] <= self.terms[pos.id]:
                return relation, "hard", subject
            return relation, "soft", subject
        if other.kind == best.kind and subject >= SAME_SUBJECT and (a - b) and (b - a):
            # Rival values on one subject; as strong a rival as the answer itself is a conflict.
            rival = min(1.0, scores[other.id] / max(scores[best.id], 1e-9))
            if rival >= SOFT:
                return "different_value", "hard" if rival >= HARD else "soft", rival
        return None

    def _unknown(self, matches: list[Memory], scores: dict[str, float],
                 contradictions: list[dict[str, Any]], *, conflict: bool = False) -> dict[str, Any]:
        excluded = []
        present = {"unresolved_conflict": conflict}
        for m in matches:
            if m.status == "disputed":
                present["unresolved_conflict"] = True
                excluded.append({"id": m.id, "status": m.status, "reason": "unresolved_conflict"})
            elif not self.answerable(m):
                present["retired_or_expired"] = True
                excluded.append({"id": m.id, "status": m.status, "reason": "retired_or_expired"})
        for c in self.candidates:
            if self.score(cp.terms(c.statement)) >= MATCH_THRESHOLD:
                present["candidate_or_unverified"] = True
                excluded.append({"id": c.id, "status": c.status,
                                 "reason": "candidate_or_unverified"})
        reasons = [r for r in REASONS[:-1] if present.get(r)] or ["insufficient_evidence"]
        missing = list(dict.fromkeys(MISSING[r] for r in reasons))
        return {**self._result("UNKNOWN", reasons[0], missing, [], contradictions),
                "excluded": excluded}

    def _item(self, m: Memory, scores: dict[str, float]) -> dict[str, Any]:
        return {"id": m.id, "statement": m.statement, "kind": m.kind,
                "score": round(scores[m.id], 3), "polarity": m.polarity,
                "source_type": m.source_type, "status": m.status,
                "usage_boundary": m.usage_boundary, "valid_from": iso(m.valid_from),
                "valid_to": iso(m.valid_to)}

    def _result(self, state: str, reason: str | None, missing: list[str],
                memories: list[dict[str, Any]], contradictions: list[dict[str, Any]]) -> dict:
        return {"state": state, "reason_code": reason, "missing_conditions": missing,
                "memories": memories, "contradictions": contradictions,
                "as_of": iso(self.as_of), "historical": self.historical,
                "query_terms": sorted(self.q), "excluded": []}


def recall(store: Any, query: str, *, workspace: str | None,
           as_of: datetime | None = None) -> dict[str, Any]:
    """The decision over the memories and pending candidates the scope rule lets `workspace` see."""
    from memvet.store.candidates import QueueFilter

    reader = store.reader_for(workspace)
    memories = store.list_memories(reader, statuses=MEMORY_STATUSES)
    candidates = store.list_candidates(
        reader, QueueFilter(statuses=("pending", "reserved", "stale")), limit=None)
    return Recall(query, memories, candidates, now=store.now(), as_of=as_of).decide()


def cli_recall(args: Any) -> int:
    """`memvet recall QUERY [--cwd DIR] [--as-of T] [--json]`."""
    import os

    from memvet.store.cli_handlers import parse_time
    from memvet.store.console import emit
    from memvet.store.store import open_store
    from memvet.store.workspace import resolve_workspace

    store = open_store()
    result = recall(store, args.query, workspace=resolve_workspace(args.cwd or os.getcwd()),
                    as_of=parse_time(args.as_of))

    def human() -> None:
        reason = f" ({result['reason_code']})" if result["reason_code"] else ""
        print(f"{result['state']}{reason}")
        for m in result["memories"]:
            role = "" if m["role"] == "answer" else f" [{m['role']}]"
            print(f"  {m['id']}  {m['kind']:10} {m['score']:.2f}{role}  {m['statement']}")
        for c in result["contradictions"]:
            print(f"  {c['severity']} {c['relation']}: {c['id']}  {c['statement']}")
        if result["missing_conditions"]:
            print(f"  missing: {', '.join(result['missing_conditions'])}")

    emit(args, result, human)
    return 0
