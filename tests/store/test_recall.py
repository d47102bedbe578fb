"""The recall decision over a real store: answers, the negative-evidence pass, and abstention
(never said, retired, superseded, expired, another workspace, only a pending candidate)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from memvet.store import CandidateDraft, Edits, Scope
from memvet.store.recall import MATCH_THRESHOLD, recall

APP = "/home/dana/src/app"
OTHER = "/home/dana/src/other"


def propose(
    store,
    statement: str,
    *,
    kind: str = "fact",
    workspace: str | None = APP,
    source: str = "explicit_user",
    polarity: str = "assert",
    importance: int = 1,
    hint: str | None = None,
) -> str:
    draft = CandidateDraft(
        statement=statement,
        kind=kind,
        source_type=source,
        scope=Scope(user="dana", workspace=workspace),
        host="claude-code",
        polarity=polarity,
        importance=importance,
        supersedes_hint=hint,
    )
    return store.admit(draft).candidate_id


def remember(store, statement: str, *, boundary: str | None = None, **kw):
    return store.approve(
        propose(store, statement, **kw), actor="dana", edits=Edits(usage_boundary=boundary)
    )


def ask(store, query: str, workspace: str | None = APP, **kw) -> dict:
    """The decision's JSON document (interfaces.md), what these tests pin."""
    return recall(store, query, workspace=workspace, **kw).to_json()


def ids(items: list[dict]) -> set[str]:
    return {item["id"] for item in items}


# --- answers ------------------------------------------------------------------------------------
def test_verified_answer_has_the_contract_keys(store):
    m = remember(store, "We use uv for Python packaging")
    remember(store, "The CI runs on GitHub Actions")
    out = ask(store, "Which tool do we use for python packaging?")
    assert {"state", "reason_code", "missing_conditions", "memories", "contradictions"} <= set(out)
    assert (out["state"], out["reason_code"], out["missing_conditions"]) == ("VERIFIED", None, [])
    assert out["memories"][0]["id"] == m.id
    assert set(out["memories"][0]) >= {"id", "statement", "kind", "score"}
    assert out["memories"][0]["score"] >= MATCH_THRESHOLD
    json.dumps(out)  # one JSON document


def test_a_recorded_denial_answers_negative(store):
    m = remember(store, "This project does not use Docker", polarity="deny")
    out = ask(store, "Do we use docker here?")
    assert out["state"] == "VERIFIED_NEGATIVE" and ids(out["memories"]) == {m.id}


def test_a_narrower_prohibition_is_a_boundary_not_a_conflict(store):
    m = remember(store, "Indent with tabs", kind="preference")
    rule = remember(store, "Never use tabs in YAML files", kind="constraint")
    out = ask(store, "tabs or spaces for indent?")
    assert out["state"] == "VERIFIED_WITH_NEGATIVE_BOUNDARY"
    roles = {item["id"]: item["role"] for item in out["memories"]}
    assert roles == {m.id: "answer", rule.id: "boundary"}
    assert out["contradictions"][0]["severity"] == "soft"


def test_a_usage_boundary_on_the_answer_is_reported(store):
    remember(
        store,
        "Run the integration tests with make itest",
        kind="procedure",
        boundary="only on the VPN",
    )
    out = ask(store, "how do I run the integration tests")
    assert out["state"] == "VERIFIED_WITH_NEGATIVE_BOUNDARY"
    assert out["memories"][0]["usage_boundary"] == "only on the VPN"


def test_as_of_an_earlier_time_answers_historically(store, clock):
    m = remember(store, "Releases are cut from the develop branch", kind="procedure")
    then = clock.now
    clock.advance(days=30)
    store.retire(m.id, actor="dana")
    clock.advance(days=1)
    out = ask(store, "which branch are releases cut from", as_of=then + timedelta(hours=1))
    assert out["state"] == "VERIFIED_HISTORICAL" and ids(out["memories"]) == {m.id}
    now = ask(store, "which branch are releases cut from")
    assert (now["state"], now["reason_code"]) == ("UNKNOWN", "retired_or_expired")


def test_ranking_prefers_operator_then_explicit_then_inferred(store):
    inferred = remember(
        store, "Prefers ruff over flake8", kind="preference", source="model_inference"
    )
    explicit = remember(store, "Run ruff with --fix", kind="procedure")
    operator = remember(
        store, "Always run ruff before committing", kind="constraint", source="operator"
    )
    out = ask(store, "ruff")
    assert out["state"] == "VERIFIED"
    assert [m["id"] for m in out["memories"]] == [operator.id, explicit.id, inferred.id]


def test_rival_answers_of_any_source_are_a_conflict_not_a_pick(store):
    remember(store, "Deploys go through Heroku", source="model_inference")
    operator = remember(store, "Deploys go through the release pipeline", source="operator")
    out = ask(store, "how do deploys go")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "unresolved_conflict")
    assert out["contradictions"][0]["id"] == operator.id  # the contested answer comes first


def test_importance_orders_equal_matches_of_one_source(store):
    low = remember(store, "Lint with ruff", kind="procedure", importance=1)
    high = remember(store, "Lint before every commit with ruff", kind="procedure", importance=5)
    out = ask(store, "ruff")
    assert [m["id"] for m in out["memories"]][:2] == [high.id, low.id]


# --- the negative-evidence pass -------------------------------------------------------------------
def test_opposite_polarity_on_one_subject_is_an_unresolved_conflict(store):
    yes = remember(store, "We use Docker for local development")
    no = remember(store, "This project does not use Docker", polarity="deny")
    out = ask(store, "do we use docker?")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "unresolved_conflict")
    assert out["memories"] == [] and out["missing_conditions"][0] == "resolved_conflict"
    decide = out["missing_conditions"][1]  # what the operator has to settle, naming both
    assert decide.startswith("decide which is current:") and yes.id in decide and no.id in decide
    assert ids(out["contradictions"]) == {yes.id, no.id}


def test_rival_values_for_the_same_question_are_a_conflict(store):
    remember(store, "Packages are managed with uv")
    remember(store, "Packages are managed with poetry")
    out = ask(store, "what are packages managed with")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "unresolved_conflict")


def test_a_disputed_memory_is_never_an_answer_and_counts_as_conflict(store):
    m = remember(store, "The staging database is Postgres 15")
    store.dispute(m.id, actor="dana")
    out = ask(store, "what is the staging database")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "unresolved_conflict")
    assert m.id not in ids(out["memories"])
    other = remember(store, "The staging database is Postgres 16")
    out = ask(store, "what is the staging database")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "unresolved_conflict")
    assert {m.id, other.id} <= ids(out["contradictions"])


def test_unrelated_memories_do_not_contradict(store):
    remember(store, "We use uv for Python packaging")
    remember(store, "Never push directly to main", kind="constraint")
    out = ask(store, "python packaging tool")
    assert out["state"] == "VERIFIED" and out["contradictions"] == []


def test_a_workspace_rule_overrides_a_global_preference(store):
    remember(
        store, "Write Python tests with pytest and plain asserts", kind="preference", workspace=None
    )
    local = remember(store, "legacy: tests are unittest only; don't add pytest", kind="constraint")
    out = ask(store, "which test framework should the new test use?")
    assert out["state"] == "VERIFIED" and ids(out["memories"]) == {local.id}


def test_a_rule_against_how_bounds_the_answer_of_how(store):
    how = remember(
        store, "iOS builds go through fastlane: bundle exec fastlane ios beta", kind="procedure"
    )
    rule = remember(
        store, "Never call xcodebuild directly for iOS builds", kind="constraint", polarity="deny"
    )
    out = ask(store, "how do I produce an iOS build?")
    assert out["state"] == "VERIFIED_WITH_NEGATIVE_BOUNDARY"
    assert [(m["id"], m["role"]) for m in out["memories"]] == [
        (how.id, "answer"),
        (rule.id, "boundary"),
    ]


def test_a_yes_no_question_is_answered_by_the_prohibition(store):
    rule = remember(
        store,
        "Never run terraform apply locally; only Atlantis applies",
        kind="constraint",
        polarity="deny",
    )
    remember(store, "Running terraform plan locally is fine", kind="procedure")
    out = ask(store, "can I just run terraform apply for the bucket change?")
    assert out["state"] == "VERIFIED_NEGATIVE" and ids(out["memories"]) == {rule.id}


def test_how_is_unknown_when_only_the_rule_outlived_the_procedure(store):
    old = remember(store, "Rebuild the search index with manage.py rebuild_index", kind="procedure")
    remember(
        store,
        "Never rebuild the search index during business hours",
        kind="constraint",
        polarity="deny",
    )
    store.forget(old.id, actor="dana")
    out = ask(store, "how do I rebuild the search index?")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "retired_or_expired")


def test_the_lexicon_knows_tool_families(store):
    m = remember(store, "This repo uses pnpm")
    assert ids(ask(store, "which package manager do I add a dependency with?")["memories"]) == {
        m.id
    }


def test_a_disputed_memory_that_agrees_does_not_block_the_answer(store):
    disputed = remember(store, "The email sender retries at most 3 times", kind="constraint")
    store.dispute(disputed.id, actor="dana")
    m = remember(store, "The email sender retries 3 times then sends to the DLQ")
    out = ask(store, "how many retries does the email sender do?")
    assert out["state"] == "VERIFIED" and ids(out["memories"]) == {m.id}


# --- abstention ---------------------------------------------------------------------------------
def test_never_said_is_insufficient_evidence(store):
    remember(store, "We use uv for Python packaging")
    out = ask(store, "which message queue do we use in production?")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "insufficient_evidence")
    assert out["missing_conditions"] == ["verified_active_record"] and out["memories"] == []


def test_an_empty_question_is_insufficient_evidence(store):
    remember(store, "We use uv for Python packaging")
    assert ask(store, "what is it?")["reason_code"] == "insufficient_evidence"


@pytest.mark.parametrize("action", ["retire", "forget", "false_write"])
def test_retired_memories_are_never_served(store, action):
    m = remember(store, "Feature flags live in LaunchDarkly")
    getattr(store, action)(m.id, actor="dana")
    out = ask(store, "where do feature flags live")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "retired_or_expired")
    assert out["memories"] == [] and out["excluded"][0]["id"] == m.id
    assert "statement" not in out["excluded"][0]  # retired text is not handed out again


def test_a_superseded_memory_is_never_served_as_current(store):
    old = remember(store, "Tests run with nose", kind="procedure")
    new = remember(store, "Tests run with pytest", kind="procedure", hint="Tests run with nose")
    assert store.get_memory(old.id).status == "superseded"
    out = ask(store, "what do tests run with")
    assert out["state"] == "VERIFIED" and ids(out["memories"]) == {new.id}
    assert old.id not in ids(out["contradictions"])
    gone = ask(store, "nose")
    assert (gone["state"], gone["reason_code"]) == ("UNKNOWN", "retired_or_expired")


def test_a_memory_past_its_validity_is_expired_before_any_sweep(store, clock):
    cid = propose(store, "The demo server is at demo.internal")
    m = store.approve(cid, actor="dana", edits=Edits(valid_to=clock.now + timedelta(days=1)))
    assert ask(store, "where is the demo server")["state"] == "VERIFIED"
    clock.advance(days=2)
    out = ask(store, "where is the demo server")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "retired_or_expired")
    assert store.get_memory(m.id).status == "active"  # not swept yet, still not served


def test_another_workspaces_memory_is_invisible(store):
    remember(store, "The API listens on port 8080", workspace=OTHER)
    propose(store, "The API gateway is Kong", workspace=OTHER)
    out = ask(store, "which port does the API listen on", workspace=APP)
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "insufficient_evidence")
    assert out["excluded"] == []  # not even a hint that it exists elsewhere
    assert ask(store, "which port does the API listen on", workspace=OTHER)["state"] == "VERIFIED"


def test_global_memories_answer_in_every_workspace(store):
    m = remember(store, "Commit messages follow Conventional Commits", workspace=None)
    for where in (APP, OTHER, None):
        assert ids(ask(store, "commit messages format", workspace=where)["memories"]) == {m.id}


def test_words_only_in_a_pending_candidate_are_unverified(store):
    propose(store, "The staging database is Postgres 16")
    remember(store, "We use uv for Python packaging")
    out = ask(store, "what is the staging database")
    assert (out["state"], out["reason_code"]) == ("UNKNOWN", "candidate_or_unverified")
    assert out["missing_conditions"] == ["operator_approval"]


def test_reason_codes_follow_the_fixed_priority(store):
    retired = remember(store, "Logs ship to Loki")
    store.retire(retired.id, actor="dana")
    propose(store, "Logs ship to Datadog now")
    out = ask(store, "where do logs ship")
    assert out["reason_code"] == "retired_or_expired"
    assert out["missing_conditions"] == ["verified_active_record", "operator_approval"]
    disputed = remember(store, "Logs ship to Elastic")
    store.dispute(disputed.id, actor="dana")
    out = ask(store, "where do logs ship")
    assert out["reason_code"] == "unresolved_conflict"
    assert out["missing_conditions"][0] == "resolved_conflict"


@pytest.mark.slow
def test_the_recall_command_prints_one_json_document(tmp_path, monkeypatch, capsys):
    from memvet.store import open_store
    from memvet.store.console import run_cli

    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")  # the subprocess reads the key file
    own = open_store()  # the real user, as the command sees it
    draft = CandidateDraft(
        statement="Never force-push to main",
        kind="constraint",
        source_type="operator",
        scope=Scope(user=own.user, workspace=str(tmp_path)),
    )
    own.approve(own.admit(draft).candidate_id, actor="test")
    own.close()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memvet.install.launcher",
            "recall",
            "force-push to main?",
            "--cwd",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["state"] == "VERIFIED"
    assert run_cli(["recall", "kubernetes", "--cwd", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("UNKNOWN (insufficient_evidence)")
