"""Corpus messages → the scorer's training samples, built exactly as the runtime scores them
(memvet.daemon.extraction.learned): every rule candidate, then every other sentence long enough
to be a statement, each with its Context and the label it matches (if any)."""

from __future__ import annotations

from dataclasses import dataclass

from labelled_corpus import match
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.features import Context
from memvet.daemon.extraction.learned import worth_a_second_look
from memvet.daemon.extraction.third_look import has_statement_shape, untouched_by_rules
from memvet.store.redaction import redact


@dataclass
class Sample:
    message_id: str
    statement: str
    context: Context
    label: dict | None  # the corpus label it holds, None for a negative
    proposed: bool = False  # a rule (or adoption) candidate, not a sentence only the scorer reads
    rule_kind: str | None = None  # the kind the rules gave it (proposed candidates only)
    third: bool = False  # no rule judged it: the runtime's third look (third_look.py)


def message_samples(extractor: Extractor, message: dict) -> list[Sample]:
    kept = extractor.rules.filters.apply(message["text"], message["host"])
    if not kept.kept:
        return []
    text = redact(kept.text).text
    sentences = extractor.sentences(text)
    count = max(1, len(sentences))
    prev = message.get("previous_assistant", "")
    out: list[Sample] = []
    covered: set[int] = set()
    candidates: list[tuple[str, int, bool, float, str | None, bool]] = []
    for item in extractor.extract(text):
        inside = [i for i, s in enumerate(sentences) if s.casefold() in item.statement.casefold()]
        covered.update(inside)
        candidates.append(
            (
                item.statement,
                inside[0] if inside else 0,
                "adopted" in item.reasons,
                item.confidence,
                item.kind,
                False,
            )
        )
    # the sentences the runtime gives a second look (learned.worth_a_second_look) or a third
    # (third_look.py: no rule judged it, a statement's shape), nothing else
    for i, s in enumerate(sentences):
        if i in covered or not extractor.sized(s):
            continue
        hits = extractor.rule_hits(s)
        if extractor.worth_scoring(s):
            if worth_a_second_look(s, hits):
                candidates.append((s, i, False, 0.0, None, False))
        elif has_statement_shape(s) and untouched_by_rules(hits):
            candidates.append((s, i, False, 0.0, None, True))
    for statement, index, adopted, strength, rule_kind, third in candidates:
        hits = extractor.rule_hits(statement)
        proposed = strength > 0
        context = Context(
            message=text,
            index=index,
            count=count,
            previous_assistant=prev,
            rules=tuple(r.name for r, _ in hits),
            adopted=adopted,
            host=message["host"],
            strength=strength,
            third_look=third,
        )
        label = next(
            (
                lab
                for lab in message["labels"]
                if not lab["adopted"] and match(statement, lab["evidence"])
            ),
            None,
        )
        out.append(Sample(message["id"], statement, context, label, proposed, rule_kind, third))
    # An adopted rule is built from the assistant's proposal (issue 12, adoption): score that too.
    for lab in message["labels"]:
        if lab["adopted"]:
            out.append(
                Sample(
                    message["id"],
                    lab["evidence"],
                    Context(
                        message=text,
                        previous_assistant=prev,
                        adopted=True,
                        host=message["host"],
                        rules=tuple(r.name for r, _ in extractor.rule_hits(lab["evidence"])),
                    ),
                    lab,
                    True,
                )
            )
    if not message["labels"] and prev and message["voice"] == "bare-ack":
        out.append(
            Sample(
                message["id"],
                prev,
                Context(message=text, previous_assistant=prev, adopted=True, host=message["host"]),
                None,
                True,
            )
        )
    return out
