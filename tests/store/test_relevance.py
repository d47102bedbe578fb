"""Relevance (store/relevance.py): a calibrated floor, synonyms for paraphrases, the workspace's
own name as noise, subjects over word overlap; and recall abstaining below the floor."""

from __future__ import annotations

from types import SimpleNamespace

from memvet.store import CandidateDraft, Scope
from memvet.store.recall import recall
from memvet.store.relevance import FLOOR, Relevance, expanded, units

APP = "/home/dana/src/shop-api"


def memory(mid: str, statement: str, subject: str = "", workspace: str | None = APP):
    return SimpleNamespace(
        id=mid, statement=statement, subject=subject, scope=SimpleNamespace(workspace=workspace)
    )


SCOPE = [
    memory(
        "apply",
        "terraform apply runs only through Atlantis from a PR comment, never from a local machine.",
    ),
    memory("pg", "shop-api's staging PostgreSQL listens on port 5433, not the default 5432."),
    memory("errors", "shop-api's error responses follow RFC 7807 (application/problem+json)."),
    memory("fmt", "cli formats with rustfmt at max_width 100 (rustfmt.toml)."),
]


def test_one_shared_generic_word_is_not_an_answer():
    scores = Relevance("what is the cache host and port?", SCOPE).scores()
    assert max(scores.values()) < FLOOR  # "port" alone does not answer a question about a cache


def test_a_paraphrase_meets_the_rule_through_synonyms():
    scores = Relevance("can I deploy from my laptop?", SCOPE).scores()
    assert max(scores, key=scores.get) == "apply" and scores["apply"] >= FLOOR
    assert not {"deploy", "laptop"} & {t for t in expanded(SCOPE[0].statement)}


def test_the_workspace_name_says_nothing_inside_its_scope():
    plain = Relevance("which logging library does shop-api use?", SCOPE).scores()
    assert plain["errors"] < FLOOR and plain["pg"] < FLOOR  # "shop", "api" are every memory's


def test_a_named_subject_counts_over_word_overlap():
    text = "tools/bootstrap.sh sets a new checkout up."
    with_subject = [*SCOPE, memory("pm", text, "package manager")]
    without = [*SCOPE, memory("pm", text)]
    question = "which package manager sets a checkout up?"
    assert (
        Relevance(question, with_subject).scores()["pm"]
        > Relevance(question, without).scores()["pm"]
    )


def test_a_phrase_is_one_unit_in_place_of_its_words():
    found = units("what does every page need in its front matter?", frozenset())
    assert frozenset({"≈metadata"}) in found
    assert not any("front" in unit for unit in found)


def test_nothing_in_the_question_scores_zero():
    assert Relevance("?", SCOPE).scores() == {m.id: 0.0 for m in SCOPE}


def _remember(store, statement: str, kind: str = "fact") -> str:
    draft = CandidateDraft(
        statement=statement,
        kind=kind,
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=APP),
        host="claude-code",
    )
    return store.approve(store.admit(draft).candidate_id, actor="dana").id


def test_recall_abstains_on_a_question_that_shares_one_generic_word(store):
    _remember(store, "shop-api's staging PostgreSQL listens on port 5433, not the default 5432.")
    _remember(store, "Run shop-api's tests serially with `pnpm test --runInBand`.", "procedure")
    out = recall(store, "what is the cache host and port?", workspace=APP)
    assert (out.state, out.reason_code) == ("UNKNOWN", "insufficient_evidence")
    assert out.memories == ()


def test_recall_answers_a_paraphrase(store):
    rule = _remember(
        store,
        "terraform apply runs only through Atlantis from a PR comment, never from a local machine.",
        "constraint",
    )
    _remember(store, "shop-api's staging PostgreSQL listens on port 5433.")
    out = recall(store, "can I deploy from my laptop?", workspace=APP)
    assert out.state != "UNKNOWN" and out.memories[0].id == rule
