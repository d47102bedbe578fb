"""The recall decision is a typed record (store/recall_decision.py) whose JSON is the `recall`
document of interfaces.md, exactly as recall built it when it was a dict: the same keys in the
same order with the same values, from `Recall.decide()` and from `memvet recall --json`."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from memvet.store import Edits, open_store
from memvet.store.console import emit
from memvet.store.recall import recall
from memvet.store.recall_decision import (
    Contradiction,
    KnowledgeState,
    ReasonCode,
    RecallDecision,
    Relation,
    Role,
    Severity,
)
from memvet.store.records import iso

from .conftest import draft

APP = "/home/dana/src/app"
# interfaces.md's keys first, in its order; then what recall has always added after them.
DECISION_KEYS = [
    "state",
    "reason_code",
    "missing_conditions",
    "memories",
    "contradictions",
    "as_of",
    "historical",
    "query_terms",
    "excluded",
]
MEMORY_KEYS = [
    "id",
    "statement",
    "kind",
    "score",
    "polarity",
    "source_type",
    "status",
    "usage_boundary",
    "valid_from",
    "valid_to",
]
STATES = {
    "VERIFIED",
    "VERIFIED_HISTORICAL",
    "VERIFIED_NEGATIVE",
    "VERIFIED_WITH_NEGATIVE_BOUNDARY",
    "UNKNOWN",
}
REASONS = {
    "unresolved_conflict",
    "retired_or_expired",
    "candidate_or_unverified",
    "insufficient_evidence",
}


def old_shape(decision: RecallDecision, store) -> dict:
    """The document as recall.py's `_result`, `_unknown` and `_item` built it as dicts, each
    memory's fields read back from the store rather than from the decision."""

    def item(entry) -> dict:
        m = store.get_memory(entry.id)
        return {
            "id": m.id,
            "statement": m.statement,
            "kind": m.kind,
            "score": entry.score,
            "polarity": m.polarity,
            "source_type": m.source_type,
            "status": m.status,
            "usage_boundary": m.usage_boundary,
            "valid_from": iso(m.valid_from),
            "valid_to": iso(m.valid_to),
        }

    def against(c: Contradiction) -> dict:
        out = {**item(c), "relation": str(c.relation), "severity": str(c.severity)}
        if c.contradiction is not None:  # a rival found by the negative pass
            out["contradiction"] = c.contradiction
        if c.contradicts is not None:  # that rival, or the contested answer
            out["contradicts"] = c.contradicts
        return out

    return {
        "state": str(decision.state),
        "reason_code": None if decision.reason_code is None else str(decision.reason_code),
        "missing_conditions": list(decision.missing_conditions),
        "memories": [{**item(m), "role": str(m.role)} for m in decision.memories],
        "contradictions": [against(c) for c in decision.contradictions],
        "as_of": iso(decision.as_of),
        "historical": decision.historical,
        "query_terms": sorted(decision.query_terms),
        "excluded": [
            {"id": e.id, "status": e.status, "reason": str(e.reason)} for e in decision.excluded
        ],
    }


def approve(store, statement: str, **kwargs):
    edits = kwargs.pop("edits", Edits())
    return store.approve(
        store.admit(draft(statement, **kwargs)).candidate_id, actor="dana", edits=edits
    )


@pytest.fixture
def mixed(store):
    """Answers with a boundary, rival values, a disputed slot, a retired match, a candidate."""
    approve(
        store, "iOS builds go through fastlane: bundle exec fastlane ios beta", kind="procedure"
    )
    approve(
        store, "Never call xcodebuild directly for iOS builds", kind="constraint", polarity="deny"
    )
    approve(store, "The staging postgres listens on port 5433", kind="fact")
    approve(store, "The staging postgres listens on port 5432", kind="fact")
    store.dispute(approve(store, "Jobs run on the celery broker", kind="fact").id, actor="dana")
    approve(store, "Jobs run on the rq broker", kind="fact")
    store.retire(approve(store, "Use flake8 for linting").id, actor="dana")
    store.admit(draft("Lint with pylint in CI", kind="procedure"))
    approve(store, "We use uv for Python packaging", edits=Edits(usage_boundary="only on the VPN"))
    return store


QUESTIONS = {
    "how do I produce an iOS build?": ("VERIFIED_WITH_NEGATIVE_BOUNDARY", None),
    "what port does staging postgres listen on?": ("UNKNOWN", "unresolved_conflict"),
    "which broker do the jobs run on?": ("UNKNOWN", "unresolved_conflict"),
    "which linter do we use for linting?": ("UNKNOWN", "retired_or_expired"),
    "what do we use for python packaging?": ("VERIFIED_WITH_NEGATIVE_BOUNDARY", None),
    "what is the cache host?": ("UNKNOWN", "insufficient_evidence"),
}


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_json_is_the_dict_recall_built_key_for_key(mixed, question):
    decision = recall(mixed, question, workspace=APP)
    assert (decision.state, decision.reason_code) == QUESTIONS[question]
    doc = decision.to_json()
    assert json.dumps(doc, ensure_ascii=False) == json.dumps(
        old_shape(decision, mixed), ensure_ascii=False
    )
    assert list(doc) == DECISION_KEYS
    assert doc["state"] in STATES and (doc["reason_code"] is None or doc["reason_code"] in REASONS)
    for m in doc["memories"]:
        assert list(m) == [*MEMORY_KEYS, "role"]
    for c in doc["contradictions"]:
        found = ["relation", "severity", "contradiction", "contradicts"]  # by the negative pass
        shapes = {
            "answer": [["relation", "severity", "contradicts"]],  # the contested answer
            "disputed": [["relation", "severity"], found],  # of a disputed slot; or a rival
        }.get(c["relation"], [found])
        assert list(c)[: len(MEMORY_KEYS)] == MEMORY_KEYS and list(c)[len(MEMORY_KEYS) :] in shapes
    for e in doc["excluded"]:
        assert list(e) == ["id", "status", "reason"]
    # plain JSON values: the enums are the contract's strings
    assert json.loads(json.dumps(doc)) == doc


def test_the_fields_are_typed_and_the_states_are_the_contracts():
    assert {s.value for s in KnowledgeState} == STATES
    assert {r.value for r in ReasonCode} == REASONS
    assert {r.value for r in Role} == {"answer", "boundary"}
    assert {s.value for s in Severity} == {"hard", "soft"}
    assert {r.value for r in Relation} == {
        "answer",
        "disputed",
        "different_value",
        "opposite_polarity",
        "overridden",
        "prohibition",
    }


def test_the_mixed_store_covers_every_item_shape(mixed):
    """The key-for-key test above sees served answers and boundaries, a contested answer, rival
    values, disputed memories and exclusions of memories and candidates."""
    seen: set[str] = set()
    for question in QUESTIONS:
        d = recall(mixed, question, workspace=APP)
        seen |= {f"role:{m.role}" for m in d.memories}
        seen |= {f"relation:{c.relation}" for c in d.contradictions}
        seen |= {f"excluded:{e.reason}" for e in d.excluded}
    assert seen >= {
        "role:answer",
        "role:boundary",
        "relation:answer",
        "relation:different_value",
        "relation:disputed",
        "relation:prohibition",
        "excluded:retired_or_expired",
        "excluded:unresolved_conflict",
    }


def test_memvet_recall_json_prints_that_document(tmp_path, monkeypatch):
    """The command's stdout is the old dict's JSON, byte for byte, on the direct path and on the
    Store's (--recorded-as-of), with the unreadable rows after the rest."""
    from memvet.install.launcher import main

    monkeypatch.setenv("MEMVET_HOME", str(tmp_path))
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    for name in ("LOGNAME", "USER"):
        monkeypatch.setenv(name, "dana")
    monkeypatch.setattr("memvet.store.workspace.resolve_workspace", lambda path: path)
    store = open_store(tmp_path, user="dana")
    try:
        approve(
            store, "iOS builds go through fastlane: bundle exec fastlane ios beta", kind="procedure"
        )
        approve(
            store,
            "Never call xcodebuild directly for iOS builds",
            kind="constraint",
            polarity="deny",
        )
    finally:
        store.close()
    question = "how do I produce an iOS build?"

    def command(*extra: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["recall", question, "--cwd", APP, "--json", *extra]) == 0
        return out.getvalue()

    for extra in ((), ("--recorded-as-of", "2999-01-01T00:00:00Z")):
        printed = command(*extra)
        store = open_store(tmp_path, user="dana", create=False)
        try:
            decision = recall(store, question, workspace=APP)
            expected = io.StringIO()
            with contextlib.redirect_stdout(expected):
                emit(_Json(), old_shape(decision, store), lambda: None)
        finally:
            store.close()
        doc = json.loads(printed)
        assert doc["state"] == "VERIFIED_WITH_NEGATIVE_BOUNDARY" and len(doc["memories"]) == 2
        assert list(doc) == DECISION_KEYS
        # scores are the decision's; everything else (and every byte) the old document's
        assert printed == expected.getvalue()


class _Json:
    json = True
