"""Phrasing classes the proposal rules read (issue 12): procedures, decisions and terse rules with
no trigger word, each beside hard negatives of the same shape (one-off, time-limited, question,
hypothetical, reported, broken). The sentences were written for this test, not taken from any
corpus split; they check the rule generator (assets/rules.toml), not the learned scorer.
"""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.rules import load_rules
from memvet.store.vocabulary import Kind

PROPOSED = {
    # procedures: a heading and its steps, "to X ... then Y", "X is done with Y", conditionals
    "deploy flow: bump the chart, tag the release, push the tag": Kind.PROCEDURE,
    "Rotating the api keys: revoke the old key, mint a new one, update the vault entry": (
        Kind.PROCEDURE
    ),
    "to cut a beta you bump the build number first, then run fastlane beta": Kind.PROCEDURE,
    "Rollbacks are done with `helm rollback api` from the ops box.": Kind.PROCEDURE,
    "we regenerate the client with `just gen-client` after every schema edit": Kind.PROCEDURE,
    "if you add a feature flag, you register it in flags.yaml": Kind.PROCEDURE,
    "run `make contracts` before changing any public endpoint": Kind.PROCEDURE,
    "nightly images go out through the release workflow": Kind.PROCEDURE,
    "any change to the event schema bumps SCHEMA_VERSION": Kind.PROCEDURE,
    "The way we release the sdk is tagging main and letting CI publish": Kind.PROCEDURE,
    # decisions: moved from/to, "X it is", "replaced X as", bare "settled on", "decision: X"
    "we moved the search index off Elasticsearch onto OpenSearch": Kind.DECISION,
    "Temporal it is for workflows, we dropped the cron scripts.": Kind.DECISION,
    "Caddy replaced nginx as the reverse proxy last year.": Kind.DECISION,
    "settled on sqlite for the desktop app": Kind.DECISION,
    "Decision from the retro: trunk-based development for the mobile repo.": Kind.DECISION,
    "We've committed to Kotlin Multiplatform for the shared code.": Kind.DECISION,
    "Decided: protobuf on the wire, json only at the edge.": Kind.DECISION,
    # terse rules with no trigger word
    "panics only in main": Kind.CONSTRAINT,
    "fixtures pinned in every integration test": Kind.CONSTRAINT,
    "warnings to stderr, results to stdout": Kind.PREFERENCE,
    "pls keep using vitest for unit tests, not jest": Kind.PREFERENCE,
    "terse commit titles please, bullets over prose in the body": Kind.PREFERENCE,
    "I'd much rather you used pathlib than os.path here": Kind.PREFERENCE,
    "`ruff check` clean or it doesnt merge": Kind.CONSTRAINT,
    "Logging is structlog, print is banned.": Kind.CONSTRAINT,
    "the preview db gets reset every monday morning": Kind.FACT,
    "I'd prefer it if every migration had a short comment on top": Kind.PREFERENCE,
    # a correcting "no" before the rule
    "nope - No fixtures with real customer data, ever.": Kind.CONSTRAINT,
    "no, The linter stays on ruff": Kind.DECISION,
    # first-person facts about the person
    "I'm the only backend dev on this team": Kind.FACT,
    "Portuguese is my first language": Kind.FACT,
    "my work laptop is a thinkpad on fedora": Kind.FACT,
}

NOT_PROPOSED = [
    "if you can, run the linter before lunch",
    "can you run `make contracts` before changing the endpoint?",
    "to fix this, first read the log and then patch the parser",
    "I'm liking the new chart, add a legend",
    "Marta prefers long flags only, but she doesn't maintain this anymore.",
    "Use that in all my repositories.",
    "ci is red on the node version check, look at it",
    "fine as it is",
    "the preview db got reset last night",
    "lunch is off the table today",
    "game over, try again",
    "I went over the plan, looks fine",
    "if we were to move the queue off rabbit onto sqs, the adapters would change",
    "Dana said we moved analytics off Firebase onto PostHog",
    "diff:\n@@ -1,2 +1,2 @@\n- never commit secrets\n+ always commit secrets",
]


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(load_rules())


@pytest.mark.parametrize("text", sorted(PROPOSED))
def test_a_phrasing_class_is_proposed_with_its_kind(extractor: Extractor, text: str) -> None:
    found = extractor.extract(text)
    assert [e.kind for e in found] == [PROPOSED[text]], (text, found)


@pytest.mark.parametrize("text", NOT_PROPOSED)
def test_a_hard_negative_of_the_same_shape_is_not(extractor: Extractor, text: str) -> None:
    assert extractor.extract(text) == [], text


def test_a_first_person_fact_is_user_global(extractor: Extractor) -> None:
    for text in ("Portuguese is my first language", "I'm the only backend dev on this team"):
        assert [e.user_global for e in extractor.extract(text)] == [True], text


def test_dash_bullets_are_one_candidate_each(extractor: Extractor) -> None:
    text = "Conventions for this repo:\n- helm charts over raw manifests\n- yaml keys in snake_case"
    assert [e.statement for e in extractor.extract(text)] == [
        "Helm charts over raw manifests",
        "Yaml keys in snake_case",
    ]
