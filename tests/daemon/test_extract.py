"""Extraction rules (assets/rules.toml + daemon/extraction/extract.py): kinds, scope, polarity, corrections,
and the statements that must never become candidates."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.sentence_split import normalise
from memvet.daemon.pipeline import load_rules

EXTRACTOR = Extractor(load_rules())


def one(text: str):
    found = EXTRACTOR.extract(text)
    assert len(found) == 1, [f.statement for f in found]
    return found[0]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Always use pnpm for installs in this repo.", "preference"),
        ("I prefer early returns over nested ifs.", "preference"),
        ("Keep commit messages under 72 characters.", "preference"),
        ("Never commit directly to main.", "constraint"),
        ("You must not call the payments API from tests.", "constraint"),
        ("We decided to use SQLite for the local cache.", "decision"),
        ("Let's go with Tailwind for styling.", "decision"),
        # Kinds as the corpus labels them (tests/corpus/extraction/README.md): a tool chosen for a job
        # is a preference, how things are is a fact, a choice that stands is a decision.
        ("We use Celery with Redis as the broker.", "preference"),
        ("The API is hosted on AWS ECS.", "fact"),
        ("Bundling stays on Vite.", "decision"),
        ("We went with orjson for serialisation.", "decision"),
        ("Secrets never go in config/settings.toml.", "constraint"),
        ("Every React component needs a story.", "constraint"),
        ("Deploys always go through `just ship`.", "procedure"),
        ("Whenever the lockfile conflicts, delete it and rerun `make test`.", "procedure"),
        ("I'm on a ThinkPad running Fedora.", "fact"),
        ("I write British English.", "preference"),
        ("The config lives in `config/app.toml`.", "fact"),
        ("Our CI is GitHub Actions.", "fact"),
        ("To run the tests, use `make test` from the repo root.", "procedure"),
        ("Before pushing, run `ruff check .` and `pytest -q`.", "procedure"),
        ("We deploy with `fly deploy` from the main branch.", "procedure"),
    ],
)
def test_kinds(text: str, kind: str) -> None:
    draft = one(text)
    assert draft.kind == kind and draft.confidence >= 0.55 and draft.reasons
    assert draft.reasons[0].startswith(kind)  # the winning rule comes first


@pytest.mark.parametrize(
    "text",
    [
        "Can you make the tests always use pnpm?",
        "why do we never use docker here",
        "rename foo to bar in utils.py",
        "fix the failing test",
        "please add a README",
        "For now, skip the flaky integration tests.",
        "Just for this PR, disable the linter.",
        "If we were to switch to Postgres, what breaks?",
        "What if we never used an ORM?",
        "thanks, that works!",
        "ok cool",
        "I don't think we should always use pnpm.",
        "You said we never use tabs.",
        "The build never finishes on CI.",
        "Never mind, leave it as is.",
        "Python 3.12.",
    ],
)
def test_not_candidates(text: str) -> None:
    assert EXTRACTOR.extract(text) == []


def test_pasted_logs_traces_and_code_are_ignored() -> None:
    text = (
        "it crashes like this:\n"
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in <module>\n'
        "ValueError: always use pnpm\n"
        "2024-05-02 10:11:12 ERROR never retry\n"
        "$ npm install --always\n"
        "```python\n# we always use tabs\nprint('never')\n```\n"
        "    indented_code_always_ignored = True\n"
    )
    assert EXTRACTOR.extract(text) == []


def test_multi_sentence_prompt_is_split_and_kept_faithful() -> None:
    text = (
        "Also, never leave commented-out code in files. If we're removing something, delete it. "
        "And always add type hints to Python functions. Thanks!"
    )
    statements = [d.statement for d in EXTRACTOR.extract(text)]
    assert statements == [
        "Never leave commented-out code in files.",
        "Always add type hints to Python functions.",
    ]


def test_code_spans_urls_and_paths_are_never_split() -> None:
    draft = one(
        "Always run `python -m pytest tests/ -q. -x` and read https://example.com/docs/v1.2/setup.html first."
    )
    assert (
        "`python -m pytest tests/ -q. -x`" in draft.statement
        and "https://example.com/docs/v1.2/setup.html" in draft.statement
    )


def test_user_global_scope() -> None:
    assert one("In all my projects, always use type hints.").user_global
    assert one("When I work on JS/TS projects I always use bun, not npm.").user_global
    assert not one("Always use type hints in this repo.").user_global


def test_denial_polarity() -> None:
    draft = one("This project does not use Docker.")
    assert draft.kind == "fact" and draft.polarity == "deny"
    assert one("We always use Docker for local dev.").polarity == "assert"


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("Actually we switched from Flask to FastAPI.", "Flask"),
        ("We no longer use Jenkins.", "Jenkins"),
        ("No, use httpx instead of requests.", "requests"),
        ("No, use ruff instead.", ""),
        ("We're moving away from SQLAlchemy for the async support.", "SQLAlchemy"),
    ],
)
def test_corrections_carry_what_they_replace(text: str, hint: str) -> None:
    draft = one(text)
    assert draft.supersedes_hint == hint
    assert any(r.startswith("correction.") for r in draft.reasons)


def test_plain_statements_have_no_supersedes_hint() -> None:
    assert one("Always use pnpm.").supersedes_hint is None


def test_redacted_statements_lose_confidence() -> None:
    plain = one("We deploy with the staging token from the vault.")
    marked = one("We deploy with the staging token [REDACTED:github-token] from the vault.")
    assert marked.confidence == pytest.approx(plain.confidence - EXTRACTOR.policy.redaction_penalty)
    assert EXTRACTOR.policy.redaction_penalty > 0


def test_normalise_is_light() -> None:
    assert normalise("  - also,   please  keep   PRs small  ") == "Keep PRs small"
    assert (
        normalise("Now, for all your classes, add docstrings.")
        == "For all your classes, add docstrings."
    )
    assert normalise("Actually we use uv") == "Actually we use uv"  # corrections keep their opener


def test_duplicate_statements_in_one_prompt_are_merged() -> None:
    assert len(EXTRACTOR.extract("Always use pnpm. always use pnpm.")) == 1
