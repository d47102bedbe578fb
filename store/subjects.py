"""What a statement is about: content words, for linking corrections, finding conflicts and
lexical recall. Deliberately simple and deterministic; thresholds are named constants."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9][a-z0-9_.+/#-]*")
STOPWORDS = frozenset(
    """
a an the and or but if then else of to in on at by for with from into onto as is are was were be
been being it its this that these those there here we our us you your i me my they them their he she
do does did done not no never always please should must will would can could may might shall use
uses using used prefer prefers preferred like likes want wants need needs make makes let lets just
also only so than too very all any each every some such what which who whom whose when where why how
about over under up down out off again now instead rather actually switched switch moved move go
going get got keep kept run runs running have has had our ours project repo here thing things
""".split()
)
NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "don't",
        "dont",
        "doesn't",
        "doesnt",
        "isn't",
        "isnt",
        "without",
        "avoid",
        "stop",
        "nor",
        "neither",
        "cannot",
        "can't",
        "won't",
    }
)
LINK_THRESHOLD = 0.34  # share of content words two statements must have in common to be related


def content_words(text: str) -> frozenset[str]:
    words = (w.rstrip(".-/") for w in WORD.findall(text.casefold()))
    return frozenset(w for w in words if w and w not in STOPWORDS and len(w) > 1)


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap coefficient: shared words over the smaller set (short statements still match)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def is_negated(text: str) -> bool:
    lowered = text.casefold().replace("’", "'")
    return any(re.search(rf"(?<![a-z']){re.escape(n)}(?![a-z'])", lowered) for n in NEGATIONS)


def related(a: str, b: str, threshold: float = LINK_THRESHOLD) -> bool:
    return overlap(content_words(a), content_words(b)) >= threshold
