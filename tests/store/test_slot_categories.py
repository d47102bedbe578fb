"""Rival or compatible by category (issue 13): pairs of one subject that real users write, where
values alone mislead — two environments, a rule and its exception, a permission against a
prohibition, a tool named by a decision, spelled counts, and a generic word beside its tool."""

from __future__ import annotations

import pytest
from memvet.store.claims import claim_of, rivalry
from memvet.store.slots import derive_subject, normalise_subject


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


# One thing said in other words, and the families whose members are rival values (h39): the
# sentences differ from the benchmark's pairs, so these check the rule, not the pairs.
@pytest.mark.parametrize(
    "a, b",
    [
        (("The admin UI listens on port 3000", "fact", "assert"), ("The admin UI serves on :3001", "fact", "assert")),
        (("Our servers are on Azure", "fact", "assert"), ("We deploy the whole stack to Google Cloud", "fact", "assert")),
        (("We track bugs in Jira", "fact", "assert"), ("Bugs are tracked in YouTrack", "fact", "assert")),
        (("We are on Rails 7.0", "fact", "assert"), ("We upgraded Rails to 7.1", "decision", "assert")),
        (("Sort imports with isort", "procedure", "assert"), ("ruff replaced isort for import sorting", "decision", "assert")),
        (("It is fine to merge on Sundays", "constraint", "assert"), ("Don't merge on Sundays", "constraint", "deny")),
        (("We are on MongoDB 6", "fact", "assert"), ("The database is PostgreSQL 15", "fact", "assert")),
        (("Keep 14 days of logs", "constraint", "assert"), ("Logs are kept for 90 days", "constraint", "assert")),
        (("The marketing site is deployed to Vercel", "fact", "assert"), ("We host the marketing site on Cloudflare Pages", "fact", "assert")),
        (("The default branch is trunk", "fact", "assert"), ("The main branch is called main", "fact", "assert")),
        (("Sessions expire after 15 minutes", "fact", "assert"), ("The session timeout is 2 hours", "fact", "assert")),
        (("Prod runs in ap-south-1", "fact", "assert"), ("Production is deployed to eu-central-1", "fact", "assert")),
    ],
)  # fmt: skip
def test_paraphrased_rivals_share_a_slot_and_clash(a, b):
    assert verdict(a, b) in ("different_value", "negation")


@pytest.mark.parametrize(
    "a, b",
    [
        (("The admin UI serves on :3000", "fact", "assert"), ("The admin UI port is 3000", "fact", "assert")),
        (("We run everything on Amazon Web Services", "fact", "assert"), ("Our cloud provider is AWS", "fact", "assert")),
        (("The package manager for the mobile app is yarn", "fact", "assert"), ("The package manager for the server is uv", "fact", "assert")),
        (("The tests use an in-memory SQLite database", "fact", "assert"), ("The app uses MySQL", "fact", "assert")),
        (("Podman replaced Docker on our laptops", "decision", "assert"), ("Docker still runs in production", "fact", "assert")),
        (("Keep 7 days of logs", "constraint", "assert"), ("Keep 30 days of metrics", "constraint", "assert")),
    ],
)  # fmt: skip
def test_one_value_reworded_or_two_parts_are_not_conflicts(a, b):
    assert verdict(a, b) in (None, "other slot")


def test_a_family_member_that_qualifies_another_noun_does_not_name_the_slot():
    # "every AWS resource must be tagged" is about tagging, not about the cloud provider.
    assert derive_subject("Every AWS resource must be tagged with an owner", "constraint") != (
        "cloud provider"
    )
    assert derive_subject("Our cloud provider is AWS", "fact") == "cloud provider"
