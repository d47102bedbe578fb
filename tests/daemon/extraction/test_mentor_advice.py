"""Mentor advice as MemoryCode phrases it (issue 12, third-party dev dialogues): a habit named
as important, or one the user asks to take up or drop, is a candidate; the same frames around
an abstract quality, a pronoun or an unnamed "particular" thing are not."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.pipeline import load_rules

EXTRACTOR = Extractor(load_rules())


@pytest.mark.parametrize(
    "text",
    [
        "I want to emphasize the importance of including assert statements in your methods.",
        "Also, I want to stress the importance of using docstrings in your functions.",
        "I want you to start using a password manager.",
        "Instead, I want you to rely solely on print statements.",
        "However, I want you to steer clear of pre-commit hooks.",
    ],
)
def test_a_named_habit_is_a_candidate(text: str) -> None:
    found = EXTRACTOR.classify(text)
    assert found is not None and found.kind in ("preference", "constraint"), found


@pytest.mark.parametrize(
    "text",
    [
        "I want to emphasize the importance of consistency in our code.",
        "I want to emphasize the importance of taking time off.",
        "I want you to start using it for your projects as well.",
        "In terms of coding practices, I want you to start incorporating a specific technique.",
    ],
)
def test_an_abstract_or_unnamed_habit_is_not(text: str) -> None:
    assert EXTRACTOR.classify(text) is None
