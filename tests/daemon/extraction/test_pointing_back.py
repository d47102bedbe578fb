"""A rule said over two sentences: the first names the thing ("Branch names need a fixed prefix"),
the second says the rule with a pronoun object pointing back ("Start them with `feat/`"). The
second alone cannot be approved (what is "them"?), so it joins the sentence before it; with
nothing before it, it is no candidate. The shape behind many MemoryCode dev misses (a naming
convention announced, then "Always start them with 'x_'."), and a common one in real prompts."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.clauses import depends_on_before
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.learned import LearnedExtractor
from memvet.daemon.extraction.rules import load_rules

EXTRACTOR = Extractor(load_rules())


@pytest.fixture(scope="module")
def learned() -> LearnedExtractor:
    return LearnedExtractor(EXTRACTOR)


@pytest.mark.parametrize(
    "sentence",
    [
        "Start them with `feat/` or `fix/`.",
        "Always prefix them with the team name",
        "Add it to every public handler in api/.",
        "Ensure that you add it to all your functions.",
        "From now on, add this decorator to all your methods.",
        "Always include the string 'chx' in them.",
    ],
)
def test_a_rule_whose_object_points_back_depends_on_the_sentence_before(sentence: str) -> None:
    assert depends_on_before(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Start every branch name with `feat/` or `fix/`.",
        "Always prefix DAG ids with the team name.",
        "Add the `@traced` decorator to every public handler in api/.",
        "Use this repo's Makefile targets, not raw docker commands.",
        "Always write it as one word: TypeScript.",  # "it" then names its object
    ],
)
def test_a_rule_that_names_its_object_stands_alone(sentence: str) -> None:
    assert not depends_on_before(sentence)


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "Branch names need a fixed prefix from now on. Start them with `feat/` or `fix/`.",
            "`feat/`",
        ),
        (
            "I'd like you to start following a specific convention for your function names. "
            "Always start them with 'x_'.",
            "function names",
        ),
        (
            "For variable names, I want you to follow a new rule. "
            "Always include the string 'chx' in them.",
            "variable names",
        ),
    ],
)
def test_the_two_sentences_become_one_candidate(
    learned: LearnedExtractor, text: str, wanted: str
) -> None:
    statements = [item.statement for item in learned.extract(text)]
    assert len(statements) == 1, statements
    assert wanted in statements[0]
    assert "them" in statements[0]  # the rule's own words are in it, not only the announcement


@pytest.mark.parametrize(
    "text", ["Add them to the changelog and push.", "Always start them with 'x_'."]
)
def test_with_nothing_to_point_back_to_there_is_no_candidate(
    learned: LearnedExtractor, text: str
) -> None:
    assert learned.extract(text) == []


# "Instead, rely on X" / "rely solely on X": a standing choice of what to use, said without "use"
# (MemoryCode dev: "Instead, rely on print statements to debug your code."; agent users: "rely
# solely on the dbt docs site for column definitions").
@pytest.mark.parametrize(
    "text",
    [
        "Instead, rely on print statements to debug your code.",
        "rely solely on the dbt docs site for column definitions, the old confluence page is stale",
        "Just rely only on the generated client for API calls.",
    ],
)
def test_relying_instead_or_solely_on_something_is_a_preference(text: str) -> None:
    assert [item.kind for item in EXTRACTOR.extract(text)] == ["preference"]


@pytest.mark.parametrize(
    "text",
    [
        "We rely on each other's skills to deliver quality work.",  # not a rule about a tool
        "Don't rely on the cache being warm in this test.",
        "Rely on your own judgement here.",
    ],
)
def test_relying_on_something_without_instead_or_solely_is_no_rule_of_this_kind(text: str) -> None:
    assert all("preference.rely-instead" not in item.reasons for item in EXTRACTOR.extract(text))
