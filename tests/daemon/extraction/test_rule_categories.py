"""Categories (not cases) the rules missed or took wrongly on the train split's new voices
(tests/corpus/extraction/handwritten_train.txt), through the packaged rules alone."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction import scope_cues
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.rules import load_rules

EXTRACTOR = Extractor(load_rules())


def _found(text: str) -> list[tuple[str, bool]]:
    return [(item.kind, item.user_global) for item in EXTRACTOR.extract(text)]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("swift concurrency, no combine in new code", "preference"),  # "X, no Y"
        ("hilt for DI, no koin", "preference"),
        ("astro for the marketing site, next for the app", "preference"),  # two jobs, two tools
        ("react query for server state, zustand for ui state", "preference"),
        ("we're moving everything to pnpm workspaces, lerna is being removed", "decision"),
        ("error responses follow RFC 7807 problem+json, keep it that way", "decision"),
    ],
)
def test_terse_rules_without_a_trigger_word_are_candidates(text: str, kind: str) -> None:
    assert _found(text) == [(kind, False)]


@pytest.mark.parametrize(
    "text",
    [
        "I'm dyslexic, short sentences and bullet points work best for me",
        "I'm a backend person, frontend stuff explain like I'm new to it",
        "I am working mostly from the office in Warsaw, the VPN there is slow",
    ],
)
def test_first_person_facts_about_the_person_are_user_global_facts(text: str) -> None:
    assert _found(text) == [("fact", True)]


@pytest.mark.parametrize(
    "text",
    [
        "ok I'm on a call for 20 min, continue with the plan",
        "I'm on my phone now, keep it short",
        "the orders table must have a unique index on order_id, add it in a migration",
        "the login page needs to redirect to /welcome after signup, change that",
        "the footer links must open in a new tab, fix the three in Footer.tsx",
        "it works, keep it that way",  # a pronoun subject: nothing a reviewer can approve
    ],
)
def test_one_off_changes_and_remarks_about_now_are_not_candidates(text: str) -> None:
    assert _found(text) == []


def test_a_standing_rule_with_a_must_stays_a_candidate() -> None:
    assert _found("Every loader must be idempotent, we rerun them all the time.") == [
        ("constraint", False)
    ]


def test_about_the_user_is_defined_once_in_the_rules() -> None:
    """The scope cue reads the `scope.about-user` rule; no second pattern in scope_cues.py."""
    assert not hasattr(scope_cues, "_ABOUT_ME")
    names = [rule.name for rule in EXTRACTOR.rules.scope]
    assert "scope.about-user" in names
    assert _found("my shell is nushell, not bash") == [("fact", True)]
    assert scope_cues.sentence_scope("my shell is nushell, not bash") is None  # alone: no rule
