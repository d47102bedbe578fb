"""Rules propose, the learned scorer decides.

The declarative rules (`Extractor`) stay the cheap, high-recall front: their candidates are
scored, and so is every other sentence of the message that is long enough to be a statement
(terse rules with no trigger word, "X over Y", first-person facts). The scorer keeps what a
reviewer would approve, types its kind and scope, and says why. Polarity and what a correction
replaces still come from the rules: a statement never loses its "never".
"""

from __future__ import annotations

from dataclasses import replace

from memvet.daemon.extract import Extracted, Extractor, _replaced
from memvet.daemon.extraction.features import Context
from memvet.daemon.extraction.scorer import Scorer, default_scorer

GLOBAL_LINE = 0.5


def polarity_of(hits: list[tuple]) -> str:
    deny = any(r.section == "polarity" or (r.section == "kind" and r.polarity == "deny") for r, _ in hits)
    return "deny" if deny else "assert"


class LearnedExtractor:
    """`extract(text)` like `Extractor`, with the scorer deciding; `extractor` is the rule front."""

    def __init__(self, extractor: Extractor, scorer: Scorer | None = None) -> None:
        self.extractor = extractor
        self.scorer = scorer or default_scorer()

    def extract(self, text: str, *, previous_assistant: str = "", host: str | None = None) -> list[Extracted]:
        return self.decide(text, self.extractor.extract(text), previous_assistant=previous_assistant, host=host)

    def decide(self, text: str, proposed: list[Extracted], *, previous_assistant: str = "",
               host: str | None = None) -> list[Extracted]:
        extractor, scorer = self.extractor, self.scorer
        sentences = extractor.sentences(text)
        count = max(1, len(sentences))
        kept: list[Extracted] = []
        covered: set[int] = set()
        for item in proposed:
            folded = item.statement.casefold()
            inside = [i for i, s in enumerate(sentences) if s.casefold() in folded]
            covered.update(inside)
            hits = extractor.rule_hits(item.statement)
            adopted = "adopted" in item.reasons
            context = Context(message=text, index=inside[0] if inside else 0, count=count,
                              previous_assistant=previous_assistant, rules=tuple(r.name for r, _ in hits),
                              adopted=adopted, host=host)
            # An adoption has its own (lower) confidence cap and gate (adoption.py): typed, not dropped.
            if adopted or scorer.keep_score(item.statement, context) >= scorer.threshold_proposed:
                verdict = scorer.judge(item.statement, context)
                reasons = verdict.reasons
                confidence = min(verdict.score, item.confidence) if adopted else verdict.score
                kept.append(replace(item, kind=verdict.kind, confidence=round(confidence, 3),
                                    user_global=verdict.global_p >= GLOBAL_LINE,
                                    reasons=(*item.reasons, *reasons)))
        seen = {item.statement.casefold() for item in kept}
        for index, sentence in enumerate(sentences):
            if index in covered or not extractor.sized(sentence) or sentence.casefold() in seen:
                continue
            hits = extractor.rule_hits(sentence)
            context = Context(message=text, index=index, count=count, previous_assistant=previous_assistant,
                              rules=tuple(r.name for r, _ in hits), host=host)
            if scorer.keep_score(sentence, context) < scorer.threshold:
                continue
            verdict = scorer.judge(sentence, context)  # kept: type it and say why
            corrections = [(r, m) for r, m in hits if r.section == "correction"]
            seen.add(sentence.casefold())
            kept.append(Extracted(
                statement=sentence, kind=verdict.kind, confidence=round(verdict.score, 3),
                reasons=(*dict.fromkeys(r.name for r, _ in hits), "scorer.recall", *verdict.reasons),
                polarity=polarity_of(hits), user_global=verdict.global_p >= GLOBAL_LINE,
                supersedes_hint=_replaced(corrections) if corrections else None))
        return kept
