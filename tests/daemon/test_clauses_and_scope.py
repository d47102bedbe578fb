"""One rule, one candidate (daemon/extraction/clauses.py) and scope decided per message
(daemon/extraction/scope_cues.py), through the real extractor and the packaged rules."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.pipeline import load_rules

EXTRACTOR = Extractor(load_rules())


def _one(text: str):
    found = EXTRACTOR.extract(text)
    assert len(found) == 1, [f.statement for f in found]
    return found[0]


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("We use pnpm in this repo, never npm.", "We use pnpm in this repo, never npm."),
        ("Always use uv, never pip.", "Always use uv, never pip."),
        ("Deploy to fly, never with heroku.", "Deploy to fly, never with heroku."),
        ("We deploy to fly.io. Never with heroku.", "We deploy to fly.io. Never with heroku."),
        (
            "Use ruff for linting. It must run before every commit.",
            "Use ruff for linting. It must run before every commit.",
        ),
    ],
)
def test_clauses_of_one_rule_become_one_self_contained_statement(text: str, statement: str) -> None:
    item = _one(text)
    assert item.statement == statement
    assert "clauses.merged" in item.reasons


def test_a_merged_statement_keeps_its_denial_and_its_assertion() -> None:
    item = _one("Deploy to fly, never with heroku.")
    assert (
        "never" in item.statement and item.polarity == "assert"
    )  # it asserts fly, words deny heroku
    denial = _one("Never use print for debugging in this repo.")
    assert denial.polarity == "deny"


@pytest.mark.parametrize(
    "text",
    [
        "Never with heroku.",
        "It must run before every commit.",
        "Yes. It must always run before every commit.",
    ],
)
def test_a_clause_that_cannot_stand_alone_is_no_candidate(text: str) -> None:
    assert EXTRACTOR.extract(text) == []


def test_fillers_are_not_glued_to_a_rule() -> None:
    text = "Also, never leave commented-out code in files. Thanks!"
    assert [f.statement for f in EXTRACTOR.extract(text)] == [
        "Never leave commented-out code in files."
    ]


def test_a_task_clause_before_a_rule_stays_out_of_it() -> None:
    found = EXTRACTOR.extract(
        "Fix the login bug in auth.py, never use print for debugging in this repo."
    )
    assert [f.statement for f in found] == ["Never use print for debugging in this repo."]
    found = EXTRACTOR.extract(
        "Port the cli to click; from now on every command needs a --json flag."
    )
    assert all("Port the cli" not in f.statement for f in found)


def test_a_scope_sentence_widens_the_rule_before_it_instead_of_being_a_candidate() -> None:
    item = _one("Always use tabs for indentation. That goes for all my projects.")
    assert item.statement == "Always use tabs for indentation."
    assert item.user_global and "scope.message" in item.reasons


@pytest.mark.parametrize(
    ("text", "user_global"),
    [
        ("I prefer British spelling in docs and comments.", True),  # first person, about the person
        ("Never commit directly to main in any of my repos.", True),
        (
            "Always write commit messages in the imperative mood. I want that everywhere, not just here.",
            True,
        ),
        ("Use snake_case for file names everywhere in this codebase.", False),
        ("Always run the tests with make test here.", False),
        ("We use pnpm in this repo, never npm.", False),
        ("Never use sudo with pip.", False),
        ("Always use tabs for indentation. Everywhere in this codebase.", False),
    ],
)
def test_scope_is_decided_per_message(text: str, user_global: bool) -> None:
    assert _one(text).user_global is user_global


def test_a_workspace_statement_drops_a_global_reason_it_does_not_have() -> None:
    item = _one("Use snake_case for file names everywhere in this codebase.")
    assert not any(r.startswith("scope.") for r in item.reasons)
