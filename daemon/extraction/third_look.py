"""The third look: a user-typed sentence that no rule touched, read by the learned scorer alone.

Most rules the blind probes missed never reached the scorer: no kind, durable or correction rule
fired on them ("migrations are forward-only here", "my shell is fish", "the api runs on fly.io
in ams"). Such a sentence is scored when it has the shape of a statement (a cheap gate first,
so the hook and ingest budgets hold) and no rule at all spoke about it, reject rules included:
questions, reported speech, hypotheticals, one-off changes, time limits and broken remarks
keep the verdict the rules gave them. Its keep line (`threshold_third` in the weights, chosen
on dev so precision stays at or above 0.9) is its own; weights without one never take it.
"""

from __future__ import annotations

from memvet.daemon.extraction.clauses import depends_on_before

REASON = "scorer.third-look"
# Sections whose hit means a rule already judged the sentence (the second look or a veto).
_JUDGED = frozenset(("reject", "durable", "kind", "correction"))
_MIN_WORDS, _MAX_WORDS = 3, 32
# A question typed without its "?" (or a request to the agent) is never a statement.
_QUESTION_OPENERS = frozenset(
    """what why how where when which who whom whose is are am was were isn't aren't wasn't can
could would will shall may might does did doesn't didn't""".split()
)

# Hedged, hypothetical or someone else's words, which no reject rule caught ("if it ran on X the
# bill would drop", "Dana thinks it belongs on Y"): the rules' reject section says the same.
_NOT_ASSERTED = frozenset(
    """if suppose supposing imagine maybe perhaps probably possibly would could might wonder said
says told thinks think claims claimed wrote reckons mentioned suggested""".split()
)


def has_statement_shape(sentence: str) -> bool:
    """Cheap, before any rule or feature work: a few words, not a question, not hedged or
    reported, not leaning on the sentence before it ("it stays in the main loop" cannot be
    approved as it stands)."""
    stripped = sentence.rstrip()
    if stripped.endswith("?"):
        return False
    words = stripped.lower().split()
    if not _MIN_WORDS <= len(words) <= _MAX_WORDS:
        return False
    if words[0].strip("\"'(,") in _QUESTION_OPENERS:
        return False
    if any(word.strip(".,;:!\"'()") in _NOT_ASSERTED for word in words):
        return False
    return not depends_on_before(stripped)


def untouched_by_rules(hits: list[tuple]) -> bool:
    """No rule judged it (scope and polarity hits are cues, not verdicts: they stay features)."""
    return not any(rule.section in _JUDGED for rule, _ in hits)
