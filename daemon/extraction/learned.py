"""Rules propose, the learned scorer decides.

The declarative rules (`Extractor`) stay the cheap, high-recall front: their candidates are
scored, and so is a sentence they did not propose only when one of their kind, durable or
correction rules saw something in it (a reject rule or the confidence floor stopped it), or,
in the third look (third_look.py), when no rule judged it at all and it has a statement's shape,
against its own keep line. The scorer keeps what a reviewer would approve and says why; a
strong explicit rule (rule confidence at or above the weights' `strong_rule`) is never scored
out. Kind and scope of a rule candidate stay the rules' when the weights say so (`rule_kinds`,
chosen on dev), polarity and what a correction replaces always do: a statement never loses its
"never".
"""

from __future__ import annotations

from dataclasses import replace

from memvet.daemon.extraction.clauses import ASSERT, DENY, depends_on_before
from memvet.daemon.extraction.extract import Extracted, Extractor, _replaced
from memvet.daemon.extraction.features import Context
from memvet.daemon.extraction.scorer import Scorer, default_scorer
from memvet.daemon.extraction.third_look import REASON as THIRD_LOOK
from memvet.daemon.extraction.third_look import has_statement_shape, untouched_by_rules

GLOBAL_LINE = 0.5
LEFT_OUT_MAX = 1024  # third-look sentences remembered as below the line, per extractor
# The scorer reads a sentence the rules did not propose only when a kind, durable or correction
# rule saw something in it (a reject rule or the confidence floor stopped it): scoring every
# sentence took office small talk and task chatter that no rule touches (MemoryCode dev: P 0.23).
SECOND_LOOK = frozenset(("kind", "durable", "correction"))


def worth_a_second_look(sentence: str, hits: list[tuple]) -> bool:
    """A clause that leans on the one before it ("That must stay private!", clauses.py's rule) is
    never a rule alone."""
    return any(rule.section in SECOND_LOOK for rule, _ in hits) and not depends_on_before(sentence)


def polarity_of(hits: list[tuple]) -> str:
    deny = any(
        r.section == "polarity" or (r.section == "kind" and r.polarity == DENY) for r, _ in hits
    )
    return DENY if deny else ASSERT


class LearnedExtractor:
    """`extract(text)` like `Extractor`, with the scorer deciding; `extractor` is the rule front."""

    def __init__(self, extractor: Extractor, scorer: Scorer | None = None) -> None:
        self.extractor = extractor
        self.scorer = scorer or default_scorer()
        # Third-look sentences scored below their line: a transcript repeats a prompt (queued,
        # echoed, resumed), and the third look's features are most of its cost.
        self._left_out: set[tuple] = set()

    def extract(
        self, text: str, *, previous_assistant: str = "", host: str | None = None
    ) -> list[Extracted]:
        return self.decide(
            text, self.extractor.extract(text), previous_assistant=previous_assistant, host=host
        )

    def decide(
        self,
        text: str,
        proposed: list[Extracted],
        *,
        previous_assistant: str = "",
        host: str | None = None,
    ) -> list[Extracted]:
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
            context = Context(
                message=text,
                index=inside[0] if inside else 0,
                count=count,
                previous_assistant=previous_assistant,
                rules=tuple(r.name for r, _ in hits),
                adopted=adopted,
                host=host,
                strength=item.confidence,
            )
            # An adoption has its own (lower) confidence cap and gate (adoption.py): typed, not dropped.
            # A strong explicit rule ("Never push to main.") and a correction of an earlier one are
            # never scored out: the prior wins (a dropped correction leaves the old rule served).
            strong = item.confidence >= scorer.strong_rule or item.supersedes_hint is not None
            if (
                adopted
                or strong
                or scorer.keep_score(item.statement, context) >= scorer.threshold_proposed
            ):
                verdict = scorer.judge(item.statement, context)
                score = max(verdict.score, scorer.threshold_proposed) if strong else verdict.score
                confidence = min(score, item.confidence) if adopted else score
                # Kind and scope: the rules' where they proposed it (they agree better with the
                # labels on dev), the scorer's for what only it kept.
                kind, user_global = (
                    (item.kind, item.user_global)
                    if scorer.rule_kinds
                    else (verdict.kind, verdict.global_p >= GLOBAL_LINE)
                )
                kept.append(
                    replace(
                        item,
                        kind=kind,
                        confidence=round(confidence, 3),
                        user_global=user_global,
                        reasons=(
                            *item.reasons,
                            *(("scorer.strong-rule",) if strong else ()),
                            *verdict.reasons,
                        ),
                    )
                )
        seen = {item.statement.casefold() for item in kept}
        for index, sentence in enumerate(sentences):
            if index in covered or not extractor.sized(sentence) or sentence.casefold() in seen:
                continue
            key = None  # the third look's: a sentence it left out is not scored again
            if extractor.worth_scoring(sentence):
                hits = extractor.rule_hits(sentence)
                if not worth_a_second_look(sentence, hits):
                    continue
                line, third = scorer.threshold, False
            else:  # no kind, durable or correction rule: the third look (third_look.py)
                if scorer.threshold_third > 1.0 or not has_statement_shape(sentence):
                    continue
                key = (scorer, text, index, previous_assistant, host)
                if key in self._left_out:
                    continue
                hits = extractor.rule_hits(sentence)
                if not untouched_by_rules(hits):
                    continue
                line, third = scorer.threshold_third, True
            context = Context(
                message=text,
                index=index,
                count=count,
                previous_assistant=previous_assistant,
                rules=tuple(r.name for r, _ in hits),
                host=host,
                third_look=third,
            )
            if scorer.keep_score(sentence, context) < line:
                if key is not None:
                    if len(self._left_out) >= LEFT_OUT_MAX:
                        self._left_out.clear()
                    self._left_out.add(key)
                continue
            verdict = scorer.judge(sentence, context)  # kept: type it and say why
            corrections = [(r, m) for r, m in hits if r.section == "correction"]
            seen.add(sentence.casefold())
            kept.append(
                Extracted(
                    statement=sentence,
                    kind=verdict.kind,
                    confidence=round(verdict.score, 3),
                    reasons=(
                        *dict.fromkeys(r.name for r, _ in hits),
                        THIRD_LOOK if third else "scorer.recall",
                        *verdict.reasons,
                    ),
                    polarity=polarity_of(hits),
                    # a [[scope]] rule (a widening phrase, a fact about the person) says so outright
                    user_global=verdict.global_p >= GLOBAL_LINE
                    or any(r.section == "scope" for r, _ in hits),
                    supersedes_hint=_replaced(corrections) if corrections else None,
                )
            )
        return kept
