"""One label policy for the gold cases and the extraction corpus (tests/corpus/extraction/README.md,
"Label policy"): a memory is a statement a reviewer can approve as it stands. A turn made only of
clauses that lean on something said before it ("it's pnpm here", "they need to be async") names
nothing a reviewer could approve, so no gold memory comes from it; the corpus labels such turns as
negatives and the extractor makes no candidate of them. Which clauses lean on something before
them is the extractor's own definition (clauses.depends_on_before), not a copy of it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from memvet.daemon.extraction.clauses import depends_on_before
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.rules import load_rules

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

EXTRACTOR = Extractor(load_rules())


def _only_leaning_clauses(text: str) -> bool:
    sentences = EXTRACTOR.sentences(text)
    return bool(sentences) and all(depends_on_before(s) for s in sentences)


def _memory_turns() -> list[tuple[str, str, str]]:
    found = []
    for case in harness.load_cases():
        texts = {
            f"s{i}:{t['id']}": t["text"]
            for i, session in enumerate(case["sessions"])
            for t in session["turns"]
            if t["role"] == "user"
        }
        for memory in case["memories"]:
            if memory.get("status_after") != "rejected" and memory["from_turn"] in texts:
                found.append((case["id"], memory["id"], texts[memory["from_turn"]]))
    return found


def test_no_gold_memory_comes_from_a_turn_that_names_nothing() -> None:
    leaning = [(c, m, t) for c, m, t in _memory_turns() if _only_leaning_clauses(t)]
    assert leaning == []


@pytest.mark.parametrize(
    ("text", "leaning"),
    [
        ("it's pnpm here", True),
        ("they need to be async", True),
        ("we use pnpm here", False),
        ("The billing service is written in Go. It deploys to fly.", False),
    ],
)
def test_what_counts_as_a_turn_that_names_nothing(text: str, leaning: bool) -> None:
    assert _only_leaning_clauses(text) is leaning
    if leaning:  # the extractor agrees: nothing to approve, no candidate
        assert EXTRACTOR.extract(text) == []
