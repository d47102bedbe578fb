"""The candidate generator on sentence shapes, not words: a first-person fact whatever its case
or adverb, a run-on whose second sentence opens with "I", where-things-go facts with a path verb
(issue 12, recall). Sentences written for these tests, not taken from the corpus."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.learned import LearnedExtractor
from memvet.daemon.pipeline import load_rules


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(load_rules())


@pytest.mark.parametrize(
    "text",
    [
        "My timezone is CET.",
        "my shell is zsh with oh-my-zsh",  # the splitter capitalises it: "My"
        "My keyboard layout is Colemak.",
        "I'm usually on Linux.",
        "I mostly work in Vim.",
    ],
)
def test_first_person_facts_are_user_global_facts(extractor: Extractor, text: str) -> None:
    found = extractor.extract(text)
    assert [(d.kind, d.user_global) for d in found] == [("fact", True)], found


def test_the_scorer_keeps_a_possessive_fact_about_the_user(extractor: Extractor) -> None:
    found = LearnedExtractor(extractor).extract("My shell is fish.")
    assert [d.kind for d in found] == ["fact"], found


@pytest.mark.parametrize(
    ("text", "first", "second"),
    [
        (
            "Lint errors block the merge I'm on a Pixelbook with Crostini.",
            "Lint errors block the merge.",
            "I'm on a Pixelbook with Crostini.",
        ),
        (
            "thanks for the fix I'd rather you use zod than yup for validation",
            "thanks for the fix.",
            "I'd rather you use zod than yup for validation",
        ),
        (
            "the release notes look fine I prefer terse commit messages",
            "the release notes look fine.",
            "I prefer terse commit messages",
        ),
    ],
)
def test_a_run_on_is_cut_before_a_first_person_clause(
    extractor: Extractor, text: str, first: str, second: str
) -> None:
    assert [s.lower() for s in extractor.sentences(text)] == [first.lower(), second.lower()]


@pytest.mark.parametrize(
    "text",
    [
        "the editor I use is Neovim",  # a relative clause without "that"
        "Use whatever version I'd pick for a new project.",
        "that's the branch I'm on right now",
        "Ship it when I say so.",
        "In all my projects I want type hints on every public function.",  # a fronted phrase
    ],
)
def test_a_first_person_relative_clause_stays_whole(extractor: Extractor, text: str) -> None:
    assert len(extractor.sentences(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Logs end up in Loki.",
        "The mobile app ships through TestFlight.",
        "Crash reports flow into Sentry.",
    ],
)
def test_where_things_go_is_a_fact(extractor: Extractor, text: str) -> None:
    assert [d.kind for d in extractor.extract(text)] == ["fact"]


@pytest.mark.parametrize(
    "text",
    [
        "My build is failing again.",
        "my branch is behind main",
        "My laptop is dying, brb.",
        "The logs ended up in the wrong bucket yesterday.",
    ],
)
def test_status_of_the_moment_is_no_fact(extractor: Extractor, text: str) -> None:
    assert LearnedExtractor(extractor).extract(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Prefer named exports.", "preference"),
        ("Favor small modules over big ones.", "preference"),
        ("I'd like tests next to the code they test.", "preference"),
        ("I'm a big fan of early returns.", "preference"),
        ("Go for httpx when you need an HTTP client.", "preference"),
        ("Stick to the standard library where you can.", "preference"),
        ("Deploys happen through ArgoCD.", "fact"),
        ("Nothing gets merged without a review.", "constraint"),
        ("To release, tag the commit and push the tag.", "procedure"),
        ("We primarily use Bitbucket for version control.", "preference"),  # any -ly adverb
    ],
)
def test_rules_with_no_trigger_word_are_proposed(
    extractor: Extractor, text: str, kind: str
) -> None:
    assert [d.kind for d in extractor.extract(text)] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "Prefer the second option for this one.",
        "I'd like you to fix the login bug.",
        "I'd like to see the diff first.",
        "Go for it.",
        "Stick to the plan for today.",
        "Nothing happens when I click save.",
        "To be honest, the old version was faster.",
        "To clarify, the bug is in the parser.",
    ],
)
def test_their_one_off_look_alikes_are_not(extractor: Extractor, text: str) -> None:
    assert LearnedExtractor(extractor).extract(text) == []


def test_a_demonstrative_with_a_typo_is_still_one() -> None:
    from memvet.daemon.extraction.features import typed_demonstrative

    assert all(map(typed_demonstrative, ["thiis", "tihs", "htat", "thsoe", "tht"]))
    assert not any(map(typed_demonstrative, ["the", "then", "than", "this", "thus", "tests"]))


@pytest.mark.parametrize("text", ["fyi thsi has to be idempotent", "htat must stay internal"])
def test_a_typed_pronoun_subject_is_no_rule(extractor: Extractor, text: str) -> None:
    assert LearnedExtractor(extractor).extract(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Error messages should say what to do next.",
        "Commits should stay small and focused.",
        "Public functions must have docstrings.",
        "New endpoints need to be behind a feature flag.",
    ],
)
def test_a_generic_plural_with_a_modal_is_a_constraint(extractor: Extractor, text: str) -> None:
    assert [d.kind for d in extractor.extract(text)] == ["constraint"]


@pytest.mark.parametrize(
    "text",
    [
        "The buttons should be blue.",  # a definite subject: these buttons, now
        "These tests should pass now.",
        "Things should work after the restart.",
        "My changes should be in the branch.",
    ],
)
def test_a_definite_subject_with_a_modal_is_no_rule(extractor: Extractor, text: str) -> None:
    assert extractor.extract(text) == []


def test_a_run_on_is_not_cut_inside_a_relative_clause_with_its_verb(extractor: Extractor) -> None:
    text = "One of the first things I want to mention is that we never use pre-commit hooks."
    assert len(extractor.sentences(text)) == 1


def test_an_expletive_it_is_not_a_pronoun_to_resolve(extractor: Extractor) -> None:
    text = (
        "It's important that we stay consistent across our repos, "
        "so I want you to always end test names with _spec."
    )
    found = LearnedExtractor(extractor).extract(text)
    assert len(found) == 1 and "_spec" in found[0].statement, found
