"""Rival or compatible by category (issue 13): pairs of one subject that real users write, where
values alone mislead — two environments, a rule and its exception, a permission against a
prohibition, a tool named by a decision, spelled counts, and a generic word beside its tool."""

from __future__ import annotations

import pytest
from memvet.store.slots import claim_of, derive_subject, normalise_subject, rivalry


def verdict(a: tuple[str, str, str], b: tuple[str, str, str]) -> str | None:
    subjects = [derive_subject(s, kind) for s, kind, _ in (a, b)]
    if normalise_subject(subjects[0]) != normalise_subject(subjects[1]):
        return "other slot"
    claims = [claim_of(s, pol, subj) for (s, _, pol), subj in zip((a, b), subjects, strict=True)]
    return rivalry(claims[0], claims[1], a[1], b[1])


@pytest.mark.parametrize(
    "a, b",
    [
        # one subject in two environments
        (
            ("In staging the API uses SQLite", "fact", "assert"),
            ("In production the API uses Postgres", "fact", "assert"),
        ),
        (
            ("We do not use Podman in CI", "fact", "deny"),
            ("We use Podman for local development", "fact", "assert"),
        ),
        # a rule and the narrower case it exempts
        (
            ("Do not add new dependencies without a review", "constraint", "deny"),
            ("Test-only dependencies can be added freely", "constraint", "assert"),
        ),
        # one tool named on both sides, a qualifier after "instead of"
        (
            ("We use Podman instead of Docker for local containers", "fact", "assert"),
            ("Local containers run on Podman", "fact", "assert"),
        ),
    ],
)
def test_compatible_categories_are_not_conflicts(a, b):
    assert verdict(a, b) is None


@pytest.mark.parametrize(
    "a, b",
    [
        # a permission against the prohibition of the same thing
        (
            ("Force-pushing release branches is allowed", "constraint", "assert"),
            ("Never force-push release branches", "constraint", "deny"),
        ),
        # a decision naming another tool than a fact of the slot
        (
            ("We use Docker for local containers", "fact", "assert"),
            ("We switched local containers to Podman", "decision", "assert"),
        ),
        (
            ("Format with black", "procedure", "assert"),
            ("Our formatter is ruff format", "fact", "assert"),
        ),
        # spelled counts are numbers
        (
            ("Releases need three sign-offs", "constraint", "assert"),
            ("Releases need two sign-offs", "constraint", "assert"),
        ),
        # the generic word beside its tool is no part of the subject
        (("We're on MySQL 5.7", "fact", "assert"), ("The database is MySQL 8.0", "fact", "assert")),
        # one thing named by one word each
        (
            ("Production deploys from the release branch", "fact", "assert"),
            ("Production deploys from the main branch", "fact", "assert"),
        ),
        # a tool family the lexicon knows
        (
            ("Terraform provisions the cloud resources", "fact", "assert"),
            ("OpenTofu provisions the cloud resources", "fact", "assert"),
        ),
    ],
)
def test_rival_categories_are_conflicts(a, b):
    assert verdict(a, b) in ("negation", "different_value")


def test_one_of_is_not_a_spelled_count():
    assert derive_subject("One of the workers handles uploads", "fact") == derive_subject(
        "One of the workers handles uploads", "fact"
    )
    assert "1" not in derive_subject("One of the workers handles uploads", "fact")
