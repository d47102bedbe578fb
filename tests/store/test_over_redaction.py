"""Issue 14: redaction leaves durable statements alone — at most 1 % of the labelled statements
of the extraction corpus (tests/corpus/extraction, every split) are changed, none emptied; and
statements *about* secrets (where they live, how they rotate) keep their words."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from memvet.store.redaction import redact

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "corpus" / "extraction"))
import labelled_corpus  # noqa: E402

MARKER = re.compile(r"\[REDACTED:[a-z0-9\-]+\]")


def test_labelled_statements_are_left_alone() -> None:
    statements = [label["statement"] for m in labelled_corpus.load() for label in m["labels"]]
    assert len(statements) > 500
    changed = [s for s in statements if redact(s).text != s]
    assert len(changed) <= len(statements) // 100, changed[:5]
    assert not [s for s in statements if not MARKER.sub("", redact(s).text).strip(" .,;:")]


ABOUT_SECRETS = [
    "API keys live in 1Password; never paste them into the chat.",
    "Rotate the staging deploy token every 90 days.",
    "The token endpoint is /oauth/token on the auth service.",
    "Use `gh auth login` instead of a personal access token in CI.",
    "We keep the Stripe secret key in Doppler under STRIPE_SECRET_KEY.",
    "Never commit .env files; the password for local postgres comes from docker-compose.",
    "AWS credentials come from SSO (aws sso login), never from access keys on disk.",
]


def test_statements_about_secrets_keep_their_words() -> None:
    for statement in ABOUT_SECRETS:
        assert redact(statement).text == statement, statement
