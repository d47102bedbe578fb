"""The recall decision assembled: recall.py judges (what answers, what contradicts it, what is left
out), this builds its verdict into recall_decision.py's records. The listed memories' fields and
scores, the verified state's variant, and an UNKNOWN's reason and missing conditions: the first
reason present in the fixed order unresolved_conflict > retired_or_expired >
candidate_or_unverified > insufficient_evidence.

Import-light like recall_decision.py (the recall path, recall_read.py): stdlib only.
"""

from __future__ import annotations

from memvet.store.recall_decision import (
    Contradiction,
    Exclusion,
    KnowledgeState,
    ReasonCode,
    RecallDecision,
    Relation,
    Role,
    ServedMemory,
    Severity,
)
from memvet.store.vocabulary import Polarity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from memvet.store.records import Memory

REASONS = tuple(ReasonCode)  # the order UNKNOWN's reason is chosen in
MISSING = {
    ReasonCode.UNRESOLVED_CONFLICT: "resolved_conflict",
    ReasonCode.RETIRED_OR_EXPIRED: "verified_active_record",
    ReasonCode.CANDIDATE_OR_UNVERIFIED: "operator_approval",
    ReasonCode.INSUFFICIENT_EVIDENCE: "verified_active_record",
}


class DecisionAssembly:
    """One question's decisions: its memories' relevance scores, its terms and its time."""

    def __init__(
        self,
        scores: dict[str, float],
        query_terms: frozenset[str] | set[str],
        *,
        as_of: datetime | None,
        historical: bool,
    ) -> None:
        """scores: by memory id; recall.py adds the neighbours it reads later to the same dict."""
        self.scores = scores
        self.query_terms = tuple(sorted(query_terms))
        self.as_of, self.historical = as_of, historical

    def served(self, m: Memory, role: Role) -> ServedMemory:
        return ServedMemory(**self._fields(m), role=role)

    def against(
        self,
        m: Memory,
        relation: Relation,
        severity: Severity,
        contradiction: float | None = None,
        *,
        contradicts: str | None = None,
    ) -> Contradiction:
        return Contradiction(
            **self._fields(m),
            relation=relation,
            severity=severity,
            contradiction=contradiction,
            contradicts=contradicts,
        )

    def answered(
        self,
        best: Memory,
        also: list[Memory],
        boundaries: list[Memory],
        contradictions: list[Contradiction],
    ) -> RecallDecision:
        """A verified answer: `best` and the answers as good beside it, the rules that limit it."""
        if self.historical:
            state = KnowledgeState.VERIFIED_HISTORICAL
        elif best.polarity == Polarity.DENY:
            state = KnowledgeState.VERIFIED_NEGATIVE
        elif boundaries or best.usage_boundary:
            state = KnowledgeState.VERIFIED_WITH_NEGATIVE_BOUNDARY
        else:
            state = KnowledgeState.VERIFIED
        items = [self.served(m, Role.ANSWER) for m in (best, *also)]
        items += [self.served(m, Role.BOUNDARY) for m in boundaries]
        return self._decision(state, None, [], items, contradictions)

    def unknown(
        self,
        contradictions: list[Contradiction],
        excluded: list[Exclusion],
        *,
        conflict: bool = False,
        stale_answer: bool = False,
        settle: str | None = None,
    ) -> RecallDecision:
        """UNKNOWN, for the first reason present: a flag, or a match left out for it.
        settle: the missing condition naming the memories an operator has to decide between."""
        present = {e.reason for e in excluded}
        if conflict:
            present.add(ReasonCode.UNRESOLVED_CONFLICT)
        if stale_answer:
            present.add(ReasonCode.RETIRED_OR_EXPIRED)
        reasons = [r for r in REASONS[:-1] if r in present] or [ReasonCode.INSUFFICIENT_EVIDENCE]
        missing = list(dict.fromkeys(MISSING[r] for r in reasons))
        if settle is not None:
            missing.append(settle)
        return self._decision(
            KnowledgeState.UNKNOWN, reasons[0], missing, [], contradictions, excluded
        )

    def _fields(self, m: Memory) -> dict[str, Any]:
        """A listed memory's fields (recall_decision.RecalledMemory)."""
        return {
            "id": m.id,
            "statement": m.statement,
            "kind": m.kind,
            "score": round(self.scores[m.id], 3),
            "polarity": m.polarity,
            "source_type": m.source_type,
            "status": m.status,
            "usage_boundary": m.usage_boundary,
            "valid_from": m.valid_from,
            "valid_to": m.valid_to,
        }

    def _decision(
        self,
        state: KnowledgeState,
        reason: ReasonCode | None,
        missing: list[str],
        memories: list[ServedMemory],
        contradictions: list[Contradiction],
        excluded: list[Exclusion] | None = None,
    ) -> RecallDecision:
        return RecallDecision(
            state=state,
            reason_code=reason,
            missing_conditions=tuple(missing),
            memories=tuple(memories),
            contradictions=tuple(contradictions),
            as_of=self.as_of,
            historical=self.historical,
            query_terms=self.query_terms,
            excluded=tuple(excluded or ()),
        )
