"""Issue 13C: the hook's prompt path ranks with recall's relevance (one rule), recall abstains when
a question asks for an attribute no memory states, and slot values compare within one subject."""

from __future__ import annotations

import pytest
from memvet.store import CandidateDraft, Edits, Scope
from memvet.store import context_pack as cp
from memvet.store import prompt_match as pm
from memvet.store.claims import claim_of, rivalry
from memvet.store.recall import recall
from memvet.store.relevance import FLOOR, Relevance
from memvet.store.slots import derive_subject, normalise_subject

APP = "/home/dana/src/app"
NOW = "2026-07-01 00:00:00.000000"
RULE = "terraform apply runs only through Atlantis, never from a local machine"


def remember(store, statement: str, kind: str = "fact"):
    draft = CandidateDraft(
        statement=statement,
        kind=kind,
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=APP),
        host="claude-code",
        polarity="assert",
        importance=1,
    )
    return store.approve(store.admit(draft).candidate_id, actor="dana", edits=Edits())


def item(i: int, statement: str) -> cp.PackItem:
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
    return it


# --- the hook's prompt relevance is recall's ---------------------------------------------------
def test_the_prompt_hook_answers_a_paraphrase_as_recall_does():
    statements = [RULE, "Lambdas are packaged with kustomize overlays", "Use pnpm, not npm"]
    items = [item(i, s) for i, s in enumerate(statements)]
    got = [
        i.statement
        for i in pm.relevant(pm.TermIndex(items), "can I deploy from my laptop?", set(), NOW)
    ]
    assert got[:1] == [RULE]  # shares no word with the prompt: synonyms (relevance.py) match it


def test_the_prompt_hook_and_recall_score_alike():
    statements = [
        RULE,
        "Lambdas are packaged with kustomize overlays",
        "Use pnpm, not npm",
        "Errors are returned as RFC 7807 problem details",
    ]
    items = [item(i, s) for i, s in enumerate(statements)]
    index = pm.TermIndex(items)

    class Scoped:  # what Relevance reads of a memory
        def __init__(self, it: cp.PackItem) -> None:
            self.id, self.statement, self.subject = it.id, it.statement, ""
            self.scope = type("S", (), {"workspace": None})()

    for prompt in (
        "can I deploy from my laptop?",
        "how should we report failures?",
        "which package manager?",
        "what is the weather like?",
    ):
        recall_scores = Relevance(prompt, [Scoped(it) for it in items]).scores()
        hook = {it.id for it in pm.relevant(index, prompt, set(), NOW)}
        assert hook == {k for k, v in recall_scores.items() if v >= FLOOR}, prompt


def test_the_hook_path_stays_free_of_sqlalchemy():
    import subprocess
    import sys

    code = (
        "import sys; import memvet.store.fast_read, memvet.store.relevance, "
        "memvet.store.prompt_match as pm; pm.TermIndex([]); "
        "print(any(m.startswith(('sqlalchemy', 'sqlmodel')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- an attribute no memory states -------------------------------------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "what is the cache host?",
        "what's the cache host?",
        "what port does the local redis listen on?",
    ],
)
def test_a_question_for_an_attribute_no_memory_states_is_unknown(store, question):
    remember(store, "The cache is Redis, run locally with docker compose")
    out = recall(store, question, workspace=APP)
    assert (out.state, out.reason_code) == ("UNKNOWN", "insufficient_evidence")
    assert out.memories == ()


@pytest.mark.parametrize(
    "statement, question",
    [
        ("The app runs on Node 20, pinned in .nvmrc", "what node version does the app need?"),
        ("The prod AWS account is 4411-2290-1187", "what's the prod aws account id?"),
        ("The database is MySQL 5.7 on legacy-db-01", "which host runs the mysql database?"),
        ("Staging is at https://staging.tidepool.dev (basic auth)", "what's the staging url?"),
        (
            "In dev, email goes to Mailpit at localhost:8025",
            "where can I see the password reset email?",
        ),
    ],
)
def test_a_memory_holding_a_value_of_the_asked_type_still_answers(store, statement, question):
    m = remember(store, statement)
    out = recall(store, question, workspace=APP)
    assert out.state == "VERIFIED" and out.memories[0].id == m.id


# --- values compared within one subject ----------------------------------------------------------
def _clash(a: str, b: str, kind: str = "fact") -> tuple[bool, str | None]:
    sa_, sb = derive_subject(a, kind), derive_subject(b, kind)
    same = normalise_subject(sa_) == normalise_subject(sb)
    return same, rivalry(claim_of(a, "assert", sa_), claim_of(b, "assert", sb), kind, kind)


def test_two_procedures_that_differ_only_in_their_commands_are_two_tasks():
    same, relation = _clash(
        "To release the app on iOS, run `fastlane ios beta`",
        "To release the app on Android, run `fastlane android internal`",
        "procedure",
    )
    assert same and relation is None


def test_a_negation_word_is_no_part_of_a_subject():
    assert _clash(
        "Commit messages follow Conventional Commits",
        "Commit messages don't follow Conventional Commits",
    ) == (True, "negation")
    assert _clash("The app uses Redux for state", "The app no longer uses Redux for state") == (
        True,
        "negation",
    )


def test_node_versions_are_rival_values_not_names():
    assert _clash("The runtime is Node 18", "The runtime is Node 20") == (True, "different_value")
