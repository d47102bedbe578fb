"""The candidate generator on what the blind set showed it missed or took wrongly: terse rules
with no trigger word, first-person facts about the user, and one-off, time-limited, reported or
framed statements that are no rule (issue 12). Kinds as tests/corpus/extraction/README.md
defines them."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.pipeline import load_rules

EXTRACTOR = Extractor(load_rules())


@pytest.mark.parametrize(
    ("text", "kind", "polarity"),
    [
        ("Ruff format, not black", "preference", "assert"),
        ("Use tokio, not async-std!", "preference", "assert"),
        ("pnpm here, npm in the legacy app", "preference", "assert"),
        ("No network calls in unit tests, ever", "constraint", "deny"),
        (
            "no mocks, real postgres only",
            "preference",
            "deny",
        ),  # "Y, not X" said the other way round
        ("`make lint` before every push", "procedure", "assert"),
        ("Migrations stay hand-written.", "decision", "assert"),
        ("Decided: httpx instead of requests, don't reopen it.", "decision", "assert"),
        ("Stop reaching for Postgres, we don't allow it here.", "constraint", "deny"),
        ("My style everywhere is absolute imports, never relative ones.", "preference", "assert"),
        ("The team settled on Prisma.", "decision", "assert"),
        ("Postgres was chosen over MySQL.", "decision", "assert"),
        ("tests: `make test`", "procedure", "assert"),
        ("`just gen` regenerates the client", "procedure", "assert"),
        ("The way to deploy is `make ship`", "procedure", "assert"),
        ("One component per file", "preference", "assert"),
        ("Guard clauses at the top of handlers.", "preference", "assert"),
    ],
)
def test_terse_rules_are_one_candidate_of_their_kind(text: str, kind: str, polarity: str) -> None:
    found = EXTRACTOR.extract(text)
    assert [(d.kind, d.polarity) for d in found] == [(kind, polarity)], found
    assert found[0].statement.lower().startswith(text.lower()[:12])  # the rule, not a clause of it


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("I'm on a ThinkPad running Fedora.", "fact"),
        ("I'm in Melbourne, so times in AEST please.", "fact"),
        ("fyi I use Zed.", "fact"),
        ("I write British English.", "preference"),
        ("In all my projects, no emojis in commit messages", "constraint"),
    ],
)
def test_facts_about_the_user_are_user_global(text: str, kind: str) -> None:
    found = EXTRACTOR.extract(text)
    assert [(d.kind, d.user_global) for d in found] == [(kind, True)], found


@pytest.mark.parametrize(
    "text",
    [
        "The timeout in internal/server/routes.go needs to be 30s.",
        "The auth middleware needs a better name.",
        "Vite has to be bumped to the latest minor",
        "Makefile has to go, it's dead code.",
        "The beta flag must be off in the next build.",
        "The retry count for the invoice renderer should be 5 instead of 3.",
        "Don't deploy today!",
        "Until the freeze ends, no pushes to main.",
        "Kenji said we should never use sqlite",
        "A blog post I read claims structlog is always faster",
        "According to the README, deploys go through `make migrate`.",
        "TODO: never-ending spinner on the login page",
        "Bug: the worker returns 500 on empty carts",
        "The frontend always times out when the cache is cold.",
        "`go test ./...` never finishes on my machine since the update.",
        "Keep this reply short.",
        "Just give me the diff",
    ],
)
def test_one_off_time_limited_reported_and_broken_are_not_candidates(text: str) -> None:
    assert EXTRACTOR.extract(text) == []


def test_a_change_made_today_is_still_a_candidate() -> None:
    assert EXTRACTOR.extract("we upgraded everything to node 20 today, prod included.")
    assert EXTRACTOR.extract(
        "ios builds have to go through fastlane (`bundle exec fastlane ios beta`)"
    )


def test_a_rejected_clause_is_not_glued_to_the_rule_beside_it() -> None:
    found = EXTRACTOR.extract("dont ship it today tho, we don't deploy on fridays.")
    assert [d.statement for d in found] == ["We don't deploy on fridays."]


def test_sentences_typed_without_a_full_stop_are_cut() -> None:
    found = EXTRACTOR.extract(
        "Bug: the API returns 500 on empty carts My style everywhere is const over let"
    )
    assert [(d.statement, d.kind) for d in found] == [
        ("My style everywhere is const over let", "preference")
    ]
    # a capital after a word that leads into it is no sentence start
    assert len(EXTRACTOR.sentences("we use Postgres and The Guardian style guide for docs")) == 1


def test_packaged_rules_compile_on_first_use() -> None:
    import re

    from memvet.store.lazy_pattern import LazyPattern

    rules = load_rules()
    fresh = [r for r in rules.kinds if "_compiled" not in r.pattern.__dict__]
    assert fresh and all(isinstance(r.pattern, LazyPattern) for r in rules.kinds)
    rule = fresh[0]
    text = "We use pnpm here, never npm."
    assert bool(rule.pattern.search(text)) == bool(re.compile(rule.pattern.source).search(text))
    assert "_compiled" in rule.pattern.__dict__
