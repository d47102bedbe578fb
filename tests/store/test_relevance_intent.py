"""Relevance mechanisms from the dev split's failure analysis (issue 13, second pass): an answer to
a what/which question must speak of what it asks for; the words of a "how long" phrase are the
question's form; the question's own word ranks over its concept; environments exclude each other;
a compound vocabulary entry is named by its whole, not by each part."""

from __future__ import annotations

from types import SimpleNamespace

from memvet.store import CandidateDraft, Scope
from memvet.store.recall import recall
from memvet.store.relevance import FLOOR, Relevance, expanded, focus_terms

APP = "/home/dana/src/shop-api"


def memory(mid: str, statement: str, subject: str = ""):
    return SimpleNamespace(
        id=mid, statement=statement, subject=subject, scope=SimpleNamespace(workspace=APP)
    )


def test_an_answer_to_a_what_question_speaks_of_what_it_asks_for():
    # Something in scope speaks of the cache, so the focus is known; the postgres port shares
    # "port" only and is no answer.
    scope = [
        memory("redis", "The Redis cache is at cache.internal:6380."),
        memory("pg", "The staging PostgreSQL listens on port 5433."),
        memory("tests", "Run the tests serially."),
    ]
    scores = Relevance("what is the cache host and port?", scope).scores()
    assert scores["pg"] < FLOOR <= scores["redis"], scores


def test_the_words_of_a_how_phrase_are_not_its_subject():
    scope = [
        memory("bullets", "Answer in short bullet points, not long prose."),
        memory("fmt", "cli formats with rustfmt at max_width 100 (rustfmt.toml)."),
    ]
    assert max(Relevance("how long do we keep raw events?", scope).scores().values()) < FLOOR
    # ... unless the vocabulary names the phrase ("long line" is a line width).
    scores = Relevance("how long may a source line be?", scope).scores()
    assert max(scores, key=scores.get) == "fmt" and scores["fmt"] >= FLOOR


def test_the_question_s_own_word_ranks_over_its_concept():
    scope = [
        memory("tests", "Run the tests serially with `pnpm test --runInBand`."),
        memory("pm", "The repo uses pnpm (moved off yarn in March); run `pnpm install`."),
    ]
    scores = Relevance("do we use yarn?", scope).scores()
    assert scores["pm"] > scores["tests"] >= FLOOR, scores  # pnpm is a package manager too


def test_a_text_of_another_environment_is_no_answer():
    scope = [
        memory("dev", "dana's dbt dev target is the DEV_DANA schema."),
        memory("both", "The AWS accounts: prod 4411, staging 5521."),
    ]
    assert Relevance("which schema does the prod target use?", scope).scores()["dev"] < FLOOR
    assert Relevance("which schema does the dev target use?", scope).scores()["dev"] >= FLOOR
    assert Relevance("which aws account is prod?", scope).scores()["both"] >= FLOOR


def test_a_compound_vocabulary_entry_is_named_by_its_whole():
    assert "≈staging" in expanded("deploy to pre-prod first")
    assert "≈staging" not in expanded("the prod target")  # "pre-prod" is no "prod" word
    assert "≈navigation" not in expanded("a react app")  # nor "react-navigation" a "react" one


def test_recall_over_the_index_sees_another_environment(store):
    # The term index fetches only the question's terms; the other environments must be fetched
    # too, or the dev target's schema answers a question about prod.
    draft = CandidateDraft(
        statement="dana's dbt dev target is the DEV_DANA schema.",
        kind="fact",
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=APP),
        host="claude-code",
    )
    store.approve(store.admit(draft).candidate_id, actor="dana")
    assert recall(store, "which schema does the prod target use?", workspace=APP).state == (
        "UNKNOWN"
    )
    assert recall(store, "which schema does the dev target use?", workspace=APP).state != (
        "UNKNOWN"
    )


def test_what_to_use_for_a_purpose_asks_for_the_purpose():
    assert focus_terms("what should I use for state management in a new screen?", frozenset()) == {
        "stat",
        "management",
    }
    scope = [
        memory("router", "New screens use expo-router for navigation.", "new screens"),
        memory("zustand", "The app keeps app state in Zustand; no new Redux slices."),
    ]
    scores = Relevance("what should I use for state management in a new screen?", scope).scores()
    assert max(scores, key=scores.get) == "zustand", scores
