"""The user-side evaluation (tests/eval/user): its frozen test split, the set's own consistency,
and the scoring rules. The figures themselves are measured by tests/bench/bench_eval.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import build  # noqa: E402
from memvet.store.text_terms import terms  # noqa: E402
from score import Scorer  # noqa: E402

QUESTIONS = dict(build.question_ids())
CASE = build.build_case()
GOLD = {m["id"]: m for m in CASE["memories"]}


def gold_statuses() -> dict[str, str]:
    """Each memory's status after the story, from the story alone (no memvet)."""
    status = {}
    for action in CASE["operator_actions"]:
        gid, verb = action["memory"], action["action"]
        if verb == "approve":
            status[gid] = "active"
            for old in GOLD[gid]["supersedes_all"]:
                status[old] = "superseded"
        else:
            status[gid] = {
                "reject": "rejected",
                "dispute": "disputed",
                "false_write": "retired",
                "forget": "retired",
                "restore": "active",
            }[verb]
    return {gid: status.get(gid, "pending") for gid in GOLD}


def home_of() -> dict[str, str | None]:
    return {
        gid: None if m["global"] else m["workspace"].rsplit("/", 1)[1] for gid, m in GOLD.items()
    }


def test_the_test_split_is_frozen():
    frozen = build.frozen_split()
    drawn = sorted(q for q, part in build.draw_split().items() if part == "test")
    assert frozen["key"] == build.SPLIT_KEY
    assert frozen["test"] == drawn, "the split was redrawn: the test split is frozen"
    assert build.fingerprint(frozen["test"]) == frozen["sha256"], (
        "a test question or the story it is asked about changed; the test split is frozen "
        "(add new questions to the dev split instead)"
    )


def test_questions_added_after_the_freeze_are_dev_only():
    added = [qid for qid in QUESTIONS if build.added_to_dev(qid)]
    assert len(added) >= 50
    split = build.draw_split()
    assert all(split[qid] == "dev" for qid in added)
    assert not set(added) & set(build.frozen_split()["test"])


def test_no_dev_question_repeats_a_test_question():
    # the same words in the same repository would be tuned on; only the count is shown
    questions, split = dict(build.question_ids()), build.draw_split()
    test = {(q.repo, q.text.strip().lower()) for i, q in questions.items() if split[i] == "test"}
    dev = [(q.repo, q.text.strip().lower()) for i, q in questions.items() if split[i] == "dev"]
    repeated = sum(d in test for d in dev)
    assert repeated == 0, f"{repeated} dev questions repeat a test question"


def test_the_fingerprint_sees_a_changed_question(monkeypatch):
    frozen = build.frozen_split()
    qid = frozen["test"][0]
    original = QUESTIONS[qid]
    changed = [
        (
            i,
            q
            if i != qid
            else type(q)(q.repo, q.text + " now", q.expect, q.forbid, q.tags, q.as_of),
        )
        for i, q in build.question_ids()
    ]
    monkeypatch.setattr(build, "question_ids", lambda: changed)
    assert build.fingerprint(frozen["test"]) != frozen["sha256"]
    assert original.text not in {q.text for _, q in changed}


def test_the_set_is_large_and_spans_hosts_and_repositories():
    drawn = {q: part for q, part in build.draw_split().items() if not build.added_to_dev(q)}
    assert len(QUESTIONS) >= 150
    assert 0.35 <= sum(p == "test" for p in drawn.values()) / len(drawn) <= 0.65
    assert len({q.repo for q in QUESTIONS.values()}) >= 7
    assert {s["host"] for s in CASE["sessions"]} == {"claude-code", "codex"}
    assert {build.host_of(qid) for qid in QUESTIONS} == {"claude-code", "codex"}
    tags = [t for q in QUESTIONS.values() for t in q.tags.split()]
    for tag, least in (
        ("paraphrase", 25),
        ("asof", 12),
        ("abstain", 40),
        ("leak", 8),
        ("stale", 12),
    ):
        assert tags.count(tag) >= least, tag


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_each_question_is_consistent_with_the_story(qid):
    q, status, home = QUESTIONS[qid], gold_statuses(), home_of()
    for gid in (*q.expect, *q.forbid):
        assert gid in GOLD, f"{qid}: unknown memory {gid}"
    assert not set(q.expect) & set(q.forbid)
    for gid in q.expect:
        assert home[gid] in (None, q.repo), f"{qid}: {gid} is another repository's"
        if "asof" not in q.tags:
            assert status[gid] == "active", f"{qid}: expects {gid}, which is {status[gid]}"
    if "asof" in q.tags:
        assert q.as_of and q.as_of < build.ASK_AT
    if "paraphrase" in q.tags:
        for gid in q.expect:
            shared = {
                t for t in terms(q.text) & terms(GOLD[gid]["statement"]) if not t.startswith("~")
            }
            assert not shared, f"{qid}: a paraphrase shares {shared} with {gid}"
    if "leak" in q.tags:
        assert q.abstain and q.forbid
        assert all(home[g] not in (None, q.repo) for g in q.forbid)
    if "stale" in q.tags:
        assert any(status[g] != "active" for g in q.forbid), qid
    if {"retired", "conflict"} & set(q.tags.split()):
        assert q.abstain and all(status[g] in ("retired", "disputed") for g in q.forbid)


def _answer(
    qid: str, served: list[str], prompt: list[str] | None = None, start: list[str] | None = None
) -> dict:
    def line(g: str) -> dict:
        return {"id": g, "disputed": False}

    return {
        "id": qid,
        "state": "VERIFIED" if served else "UNKNOWN",
        "served": served,
        "hook_prompt": [line(g) for g in (prompt or [])],
        "hook_start": [line(g) for g in (start or [])],
    }


def _qid(text: str) -> str:
    return next(qid for qid, q in QUESTIONS.items() if q.text == text)


def test_scoring_counts_stale_use_leaks_and_abstention():
    scorer = Scorer(QUESTIONS, gold_statuses(), home_of())
    pm = _qid("which package manager should I use to install dependencies?")
    leak = _qid("what port does staging postgres use?")
    good = scorer.summarise([_answer(pm, ["shop_pnpm"]), _answer(leak, [])], "recall")
    assert good["current_state_accuracy"] == 1.0 and good["critical_stale_use"] == 0
    assert good["abstention_precision"] == 1.0 and good["abstention_recall"] == 1.0
    bad = scorer.summarise(
        [_answer(pm, ["shop_pnpm", "shop_yarn"]), _answer(leak, ["shop_pg"])], "recall"
    )
    assert bad["critical_stale_use"] == 1 and bad["cross_workspace_leaks"] == 1
    assert bad["current_state_accuracy"] == 0.0 and bad["abstention_recall"] == 0.0
    assert bad["share_answered_with_stale_alongside"] == 0.5
    assert bad["targets_met"]["critical_stale_use"] is False


def test_scoring_reads_the_hook_view_and_skips_asof_there():
    scorer = Scorer(QUESTIONS, gold_statuses(), home_of())
    pm = _qid("which package manager should I use to install dependencies?")
    asof = _qid("what did we use to install packages back in february?")
    hook = scorer.summarise(
        [_answer(pm, [], prompt=["shop_pnpm"], start=["shop_yarn"]), _answer(asof, ["shop_yarn"])],
        "hook",
    )
    assert hook["questions"] == 1 and hook["current_state_accuracy"] == 1.0
    assert hook["critical_stale_use"] == 1  # the stale line in the session-start text counts
    recall = scorer.summarise([_answer(asof, ["shop_yarn"])], "recall")
    assert recall["asof_accuracy"] == 1.0 and recall["critical_stale_use"] == 0
