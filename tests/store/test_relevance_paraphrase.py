"""Paraphrased questions (issue 13): a question in the user's words, not the memory's, meets the
memory through synonyms.py's vocabulary classes (releasing, test runners, dependencies, shared
state, ...), and an attribute word inside a named phrase still asks for its value."""

from __future__ import annotations

from types import SimpleNamespace

from memvet.store.relevance import FLOOR, Relevance, expanded, units

APP = "/home/dana/src/ledger"


def memory(mid: str, statement: str, subject: str = ""):
    return SimpleNamespace(
        id=mid, statement=statement, subject=subject, scope=SimpleNamespace(workspace=APP)
    )


def best(question: str, scope: list) -> tuple[str, float]:
    scores = Relevance(question, scope).scores()
    top = max(scores, key=lambda mid: scores[mid])
    return top, scores[top]


def test_an_attribute_word_inside_a_phrase_stays_a_unit_of_its_own():
    found = units("how do I roll a new version out?", frozenset())
    assert frozenset({"≈deploy"}) in found
    assert any("version" in unit for unit in found)  # still asks for a version


def test_getting_a_new_version_out_meets_the_release_procedure():
    scope = [
        memory("release", "Releases go through `cap production deploy` from the bastion host."),
        memory("minimum", "The minimum supported Android version is 10."),
        memory("push", "Never push directly to main; always open a pull request."),
    ]
    assert best("how do I push a fresh build to the servers?", scope)[0] == "release"
    top, score = best("how do users get a new version?", scope)
    assert top == "release" and score >= FLOOR


def test_a_memory_naming_only_the_deploy_tool_answers_how_to_deploy():
    scope = [
        memory("argo", "The ledger-prod app is managed by argocd; merge to main and wait."),
        memory("lint", "Run the linter before opening a pull request."),
    ]
    assert "≈deploy" in expanded(scope[0].statement)
    top, score = best("how do we deploy ledger?", scope)
    assert top == "argo" and score >= FLOOR


def test_the_test_runner_answers_a_question_about_the_suite():
    scope = [
        memory("pytest", "Use `pytest -x -q` for quick feedback; the slow marker is opt-in."),
        memory("fmt", "Format with black at line length 100."),
    ]
    top, score = best("how do I run the suite?", scope)
    assert top == "pytest" and score >= FLOOR


def test_installing_packages_meets_the_dependency_rule():
    scope = [
        memory("sync", "Run `uv sync` after pulling; the lockfile is committed."),
        memory("branch", "Feature branches are named feat/<ticket>."),
    ]
    top, score = best("how do I install packages here?", scope)
    assert top == "sync" and score >= FLOOR


def test_shared_data_is_app_state():
    scope = [
        memory("store", "New views keep app state in Pinia stores, never in component refs."),
        memory("routes", "Routes are declared in src/router.ts."),
    ]
    top, score = best("where should shared data go?", scope)
    assert top == "store" and score >= FLOOR
