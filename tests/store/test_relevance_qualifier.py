"""Relevance and recall rules from the third pass over the user-side dev split (issue 13, the
questions of tests/eval/user/dev_questions.py): most confident false answers shared one attribute
word ("port", "account", "rotate") with a memory of another thing. A question's qualifier — whose
port, who does what, what a task is done to — must be something the scope speaks of; a subject
match cannot lift a memory silent on the question's focus over the floor; a forgotten memory that
matches better than every answer means the answer is gone; Go the language is a term."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from memvet.store.recall import recall
from memvet.store.relevance import (
    FLOOR,
    FOCUS_MISS,
    Relevance,
    expanded,
    focus_terms,
    qualifier_terms,
)

from .conftest import draft

APP = "/home/dana/src/shop-api"


def memory(mid: str, statement: str, subject: str = ""):
    return SimpleNamespace(
        id=mid, statement=statement, subject=subject, scope=SimpleNamespace(workspace=APP)
    )


SCOPE = [
    memory("pg", "shop-api's staging PostgreSQL listens on port 5433, not the default 5432."),
    memory("node", "shop-api runs on Node 20, pinned in .nvmrc."),
    memory("accounts", "infra's AWS accounts: prod 4411-2290-1187, staging 4411-2290-5521."),
    memory("cap", "payments-legacy deploys with Capistrano: `cap production deploy`."),
    memory("tf", "terraform apply runs only through Atlantis from a PR comment."),
]


@pytest.mark.parametrize(
    "question, wanted",
    [
        ("what port does the web server listen on?", {"web", "server"}),  # its verb is no part
        ("which schema does the prod target use?", {"prod", "target"}),
        ("what's the CI timeout for terraform plan?", {"terraform", "plan"}),
        ("which version of typescript do we target?", {"typescript"}),
        ("who owns the staging account?", {"own"}),
        ("how do I run database migrations?", {"databas", "migration"}),
        ("how do I deploy this app?", set()),  # the project itself is no thing to be told of
        ("how do I cross-reference another article?", {"articl"}),
        ("how should errors be handled?", set()),
        # Work still to be done names what does not exist yet: no qualifier.
        ("how should I style the new checkout banner?", set()),
        ("how do I add a new python dependency?", set()),
        ("who do I check with before changing the vpc peering?", set()),  # "who" is an object
        ("what port does the staging postgres listen on?", {"stag", "postgr"}),
        # After a copula, before a particle: whose it is ("is REDIS on"); a predicate is not.
        ("which port is redis on?", {"redis"}),
        ("what version is node pinned to?", {"node"}),
        ("which branch is protected?", set()),
    ],
)
def test_the_qualifier_is_whose_attribute_or_what_task_the_question_asks_about(question, wanted):
    assert qualifier_terms(question, frozenset()) == wanted


@pytest.mark.parametrize(
    "question",
    [
        "what port does the web server listen on?",  # the staging postgres port is no web server's
        "who owns the staging account?",  # the account ids say nothing of an owner
        "how do I run database migrations?",  # the postgres port is no migration procedure
        "what version of the aws provider do we pin?",  # the account ids are no provider version
    ],
)
def test_a_memory_sharing_only_the_attribute_word_is_no_answer(question):
    scores = Relevance(question, SCOPE).scores()
    assert max(scores.values()) < FLOOR, scores


@pytest.mark.parametrize(
    "question, answer",
    [
        ("what port does the staging postgres listen on?", "pg"),
        ("what's the staging aws account number?", "accounts"),
        ("how do I deploy this app?", "cap"),
        ("how do I apply terraform changes?", "tf"),
    ],
)
def test_the_same_memories_answer_when_the_qualifier_is_theirs(question, answer):
    scores = Relevance(question, SCOPE).scores()
    assert max(scores, key=scores.get) == answer and scores[answer] >= FLOOR, scores


def test_a_subject_match_cannot_lift_a_memory_silent_on_the_focus():
    # Every word and the whole subject match, but nothing in scope states an airflow version:
    # the score is at most FOCUS_MISS, never the share and the bonus each cut and then summed.
    scope = [memory("mwaa", "Airflow runs on MWAA (environment data-prod).", "airflow mwaa")]
    relevance = Relevance("what's the airflow version on mwaa?", scope)
    assert relevance.question.unknown_focus
    assert relevance.scores()["mwaa"] <= FOCUS_MISS + 1e-9


def test_a_question_about_whose_port_is_not_answered_by_another_things_port():
    # The hook sees no forgotten memory: the qualifier alone must keep the postgres port out.
    scores = Relevance("which port is redis on?", SCOPE).scores()
    assert max(scores.values()) < FLOOR, scores


def test_a_class_word_after_a_named_runtime_is_no_focus_of_its_own():
    scores = Relevance("what's the nodejs runtime version?", SCOPE).scores()
    assert max(scores, key=scores.get) == "node" and scores["node"] >= FLOOR, scores


def test_go_the_language_is_a_term_and_go_the_verb_is_not():
    assert "golang" in expanded("payments is built with Go 1.22 (toolchain line in go.mod).")
    assert "golang" in expanded("which go version is payments on?")
    assert "golang" not in expanded("how do changes go live?")
    assert "golang" not in expanded("mobile-app builds go through EAS")
    assert focus_terms("which go linter do we run?", frozenset()) == {"golang", "linter"}
    scope = [
        memory("go", "payments is built with Go 1.22 (toolchain line in go.mod)."),
        memory("hook", "The payments webhook secret rotates every 90 days."),
    ]
    scores = Relevance("which go version is payments on?", scope).scores()
    assert max(scores, key=scores.get) == "go" and scores["go"] >= FLOOR, scores
    assert max(Relevance("which go linter do we run?", scope).scores().values()) < FLOOR


@pytest.mark.parametrize(
    "question, statement",
    [
        ("can I tidy up the old controllers?", "payments-legacy is frozen: no refactors."),
        ("can I manually patch the autogenerated models?", "Never edit files under src/generated."),
        ("where are a user's preferences stored on disk?", "cli reads its config from TOML."),
        ("which static site generator do we use?", "docs-site is built with MkDocs Material."),
    ],
)
def test_general_vocabulary_matches_a_paraphrase(question, statement):
    scores = Relevance(question, [memory("m", statement)]).scores()
    assert scores["m"] >= FLOOR, scores


def test_a_git_push_is_no_push_notification_and_testers_get_betas():
    assert "≈push-notification" in expanded("mobile-app sends push notifications through FCM")
    assert "≈push-notification" not in expanded("what should I run before pushing?")
    scope = [
        memory("beta", "To release on iOS, run `fastlane ios beta`; it uploads to TestFlight."),
        memory("ios", "The minimum iOS version is 15."),
    ]
    scores = Relevance("how do our testers get new builds?", scope).scores()
    assert max(scores, key=scores.get) == "beta" and scores["beta"] >= FLOOR, scores


def _approve(store, statement: str, kind: str = "fact") -> str:
    return store.approve(
        store.admit(draft(statement, workspace=APP, kind=kind)).candidate_id, actor="dana"
    ).id


def test_a_forgotten_memory_that_matches_best_means_the_answer_is_gone(store):
    redis = _approve(store, "shop-api's Redis cache is at cache.internal:6380.")
    pg = _approve(store, "shop-api's staging PostgreSQL listens on port 5433.")
    assert recall(store, "which port is redis on?", workspace=APP).memories[0].id == redis
    store.forget(redis, actor="dana")
    gone = recall(store, "which port is redis on?", workspace=APP)
    assert gone.state == "UNKNOWN" and gone.reason_code == "retired_or_expired", gone
    assert redis in {e.id for e in gone.excluded}
    # The question the remaining memory does answer is still answered.
    kept = recall(store, "what port does the staging postgres listen on?", workspace=APP)
    assert kept.state != "UNKNOWN" and kept.memories[0].id == pg
