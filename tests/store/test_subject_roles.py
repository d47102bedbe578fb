"""A subject names what a statement constrains (issue 13): a package manager running a script
is about the script's role (`cargo clippy` is linting, `yarn test` is the tests), not about the
package manager; installing with it still is."""

from __future__ import annotations

import pytest
from memvet.store.slots import derive_subject, normalise_subject


@pytest.mark.parametrize(
    "statement, subject",
    [
        ("Run `cargo clippy -- -D warnings` before every push", "linter"),
        ("Run cargo clippy before every commit", "linter"),
        ("Run `cargo fmt` before committing", "formatter"),
        ("Use `npm run lint` before opening a PR", "linter"),
    ],
)
def test_a_script_run_by_a_package_manager_takes_the_script_s_role(statement, subject):
    assert derive_subject(statement, "procedure") == subject


@pytest.mark.parametrize(
    "statement",
    [
        "Run the api's tests serially with `yarn test --runInBand`",
        "Build the site with `pnpm build` before a release",
    ],
)
def test_a_script_with_no_known_role_is_not_about_the_package_manager(statement):
    assert derive_subject(statement, "procedure") != "package manager"


@pytest.mark.parametrize(
    "statement",
    [
        "The api uses yarn; run `yarn install` after pulling",
        "We use pnpm in this repo, don't run npm install",
        "Add dependencies with `uv add`, never pip",
    ],
)
def test_installing_with_a_package_manager_is_still_about_the_package_manager(statement):
    assert derive_subject(statement, "fact") == "package manager"


def test_two_runners_of_one_script_still_share_a_slot():
    a = derive_subject("Run the api's tests serially with `yarn test --runInBand`", "procedure")
    b = derive_subject("Run the api's tests serially with `pnpm test --runInBand`", "procedure")
    assert normalise_subject(a) == normalise_subject(b)


def test_a_tool_role_is_per_language():
    python = derive_subject("Format Python code with black", "preference")
    typescript = derive_subject("Format TypeScript code with prettier", "preference")
    assert normalise_subject(python) != normalise_subject(typescript)
    assert normalise_subject(python) == normalise_subject(
        derive_subject("Format Python code with ruff", "preference")
    )  # still one slot
