"""Relevance rules from the failure analysis of the user-side dev split (issue 13): a what/which
question asking for what nothing in scope speaks of is not answered by its other words; an
attribute is spoken of by a value of its type beside something else the question names; the
prompt hook has its own calibrated floor."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from memvet.store import context_pack as cp
from memvet.store import prompt_match as pm
from memvet.store.relevance import FLOOR, Relevance, focus_terms

APP = "/home/dana/src/cli-tool"
NOW = "2026-07-01 00:00:00.000000"


def memory(mid: str, statement: str, subject: str = ""):
    return SimpleNamespace(
        id=mid, statement=statement, subject=subject, scope=SimpleNamespace(workspace=APP)
    )


SCOPE = [
    memory("msrv", "cli-tool's minimum supported Rust version is 1.74.", "rust version"),
    memory("clippy", "Before pushing cli-tool, run `cargo clippy -- -D warnings`."),
    memory("fmt", "cli-tool formats with rustfmt at max_width 100 (rustfmt.toml)."),
    memory("tf_state", "infra keeps Terraform state in the S3 bucket acme-tfstate."),
    memory("tf_pin", "infra pins Terraform 1.9.2."),
    memory(
        "warehouse",
        "data-pipelines' warehouse is Snowflake (moved off Redshift in March 2026).",
        "warehouse",
    ),
]


@pytest.mark.parametrize(
    "question, wanted",
    [
        (
            "what's the snowflake warehouse size for the nightly run?",
            {"snowflak", "warehous", "size"},
        ),
        ("which rust edition are we on?", {"rust", "edition"}),
        ("what is the cache host and port?", {"cach", "host"}),
        ("which navigation library for new screens?", {"navigation"}),  # "library" is a class word
        (
            "which elixir/otp version do I install?",
            {"elixir", "otp", "version"},
        ),  # parts, not whole
        ("what did we use to install packages back in february?", set()),  # "what" is an object
        # The clause's verb is not asked for: a word in -s before a determiner ends the phrase.
        ("which static generator renders these pages?", {"static", "generator"}),
        ("how do I deploy this app?", set()),
    ],
)
def test_the_focus_is_the_noun_phrase_a_what_question_asks_for(question, wanted):
    assert focus_terms(question, frozenset()) == wanted


@pytest.mark.parametrize(
    "question",
    ["which rust edition are we on?", "what's the snowflake warehouse size for the nightly run?"],
)
def test_what_nothing_in_scope_speaks_of_is_not_answered_by_the_other_words(question):
    # One shared word ("rust"; "snowflake warehouse", even as the subject) is not an answer.
    scores = Relevance(question, SCOPE).scores()
    assert max(scores.values()) < FLOOR, scores


def test_the_same_memory_answers_when_the_question_asks_what_it_says():
    scores = Relevance("what's the minimum rust version?", SCOPE).scores()
    assert max(scores, key=scores.get) == "msrv" and scores["msrv"] >= FLOOR


def test_a_value_of_the_asked_type_speaks_of_the_attribute():
    scores = Relevance("which terraform version should I use?", SCOPE).scores()
    assert scores["tf_pin"] > scores["tf_state"] and scores["tf_pin"] >= FLOOR


def test_a_value_alone_answers_nothing():
    # "go" is a stop word: the question names nothing but "version"; any number (Terraform's
    # 1.9.2, rustfmt's 100) is no Go version.
    scores = Relevance("which go version?", SCOPE[1:]).scores()
    assert max(scores.values()) < FLOOR, scores


def test_a_phrase_of_the_vocabulary_is_one_focus():
    scores = Relevance("what line width does rustfmt use?", SCOPE).scores()
    assert max(scores, key=scores.get) == "fmt" and scores["fmt"] >= FLOOR


def _items(statements: list[str]) -> list[cp.PackItem]:
    out = []
    for i, statement in enumerate(statements):
        it = cp.PackItem(
            f"m{i:03d}",
            "fact",
            "active",
            "explicit_user",
            1,
            NOW,
            NOW,
            None,
            None,
            len(statement.encode()),
            0,
        )
        it.statement = statement
        out.append(it)
    return out


def test_the_prompt_hook_says_nothing_for_a_question_no_memory_answers():
    index = pm.TermIndex(_items([m.statement for m in SCOPE]))
    assert list(pm.relevant(index, "which rust edition are we on?", set(), NOW, APP)) == []
    found = [
        it.id for it in pm.relevant(index, "what's the minimum rust version?", set(), NOW, APP)
    ]
    assert found[:1] == ["m000"]
