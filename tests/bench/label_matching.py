"""Matching drafts to free-text labels, for the extraction benchmarks (bench_extraction.py).

Lexical: a draft matches a label when it holds every quoted token of the label and most of its
content words (stems). MemoryCode's topics get a second chance: a draft that names what sets a
topic apart from its sibling variants ("jira" among Jira / Trello / Asana) is credited too.
"""

from __future__ import annotations

import json
import re

from benchlib import SHARED

MEMORYCODE = SHARED / "benchdata" / "memorycode"

STOP = frozenset(
    """a an the to of in on for with and or as at by from is are be it its this that these those
all any every each your my our their always never use using used when even if not no do does make sure
should must please you we i also just so into than then there here which who what how can will would""".split()
)


# --- matching -----------------------------------------------------------------------------------


def _stem(word: str) -> str:
    """Crude but symmetric: "naming"/"names"/"name" and "attributes"/"attribute" meet."""
    word = word.lower().strip("'\"`.,;:!?()")
    for suffix in ("ing", "es", "s", "ed", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word.rstrip("e")[:6]


_QUOTED = re.compile(r"(?<![A-Za-z])'([^'\s][^']{0,38}?)'(?![A-Za-z])")


def terms(text: str) -> tuple[set[str], set[str]]:
    quoted = {q.lower().lstrip("@") for q in _QUOTED.findall(text)}
    words = re.findall(r"[A-Za-z][A-Za-z0-9_+#.\-]*", _QUOTED.sub(" ", text))
    return quoted, {_stem(w) for w in words if w.lower() not in STOP and len(w) > 1}


def matches(statement: str, label: str, share: float = 0.6) -> bool:
    quoted, content = terms(label)
    low = statement.lower()
    if any(q not in low for q in quoted):
        return False
    _, said = terms(statement)
    if not content:
        return bool(quoted)
    return len(content & said) / len(content) >= share


def naive_sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.split()) >= 3]


# --- MemoryCode -----------------------------------------------------------------------------------


_WEAK_PIVOT = frozenset(("only", "but", "least", "most", "mor"))  # stems that name no variant


def memorycode_pivots() -> dict[str, set[str]]:
    """Each topic variant of MemoryCode's inventory (topics.json) -> the content words that tell it
    apart from its siblings ("jira" in "use Jira as the project management tool"; none for
    "always use a virtual environment" / "never ...", whose difference is a stop word)."""
    inventory = json.loads((MEMORYCODE / "topics.json").read_text())
    pivots: dict[str, set[str]] = {}
    for family in inventory["instructions"] + inventory["fillers_instruction"]:
        words = [terms(text)[1] for text in family["text"]]
        frame = set.intersection(*words)
        for text, content in zip(family["text"], words, strict=True):
            pivots[text] = content - frame - _WEAK_PIVOT
    return pivots


def topic_matches(statement: str, label: str, pivots: dict[str, set[str]]) -> bool:
    """`matches`, or: every quoted token, at least half of the label's pivot and a third of its
    content words. The mentor paraphrases a topic's frame ("for video calls", "when coding", "as
    the project management tool"), so a draft that says the variant ("We primarily use Skype for
    business communications.") is credited; the strict figure is reported beside it."""
    if matches(statement, label):
        return True
    pivot = pivots.get(label)
    if not pivot:
        return False
    quoted, content = terms(label)
    low = statement.lower()
    if any(q not in low for q in quoted):
        return False
    said = terms(statement)[1]
    return len(pivot & said) / len(pivot) >= 0.5 and len(content & said) / len(content) >= 1 / 3
