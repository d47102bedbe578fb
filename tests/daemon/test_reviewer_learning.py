"""Learning from the reviewer: decisions in a real store adapt the scorer for this user, kept
encrypted as feature offsets only; `memvet rules reset-learning` forgets them; a switch turns
learning off."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.daemon.extraction.features import Context
from memvet.daemon.extraction.reviewer import AdaptedScorer, ReviewerLearning, ReviewerModel
from memvet.daemon.extraction.scorer import default_scorer
from memvet.install.launcher import main
from memvet.store import CandidateDraft, Evidence, Scope, open_store
from memvet.store.errors import IntegrityError
from memvet.store.learning import learning_path, load_learning

REJECTED = [
    "Deploys go out on Fridays after lunch.",
    "The build takes about ten minutes on CI.",
    "Deploys go out on Fridays before standup.",
    "The build takes about twenty minutes locally.",
]
PROBE = "Deploys go out on Fridays at noon."


def _draft(statement: str, line: int) -> CandidateDraft:
    return CandidateDraft(
        statement=statement,
        kind="fact",
        source_type="explicit_user",
        scope=Scope(user="dana", workspace="/w", agent="claude-code", session="s"),
        host="claude-code",
        confidence=0.8,
        reasons=("fact.subject-verb",),
        evidence=Evidence(
            path="/t.jsonl", line=line, message_id=None, timestamp=None, excerpt=statement
        ),
    )


@pytest.fixture
def store():
    s = open_store(user="dana")
    yield s
    s.close()


def _decide(store, statements: list[str], *, approve: bool, start: int = 1) -> None:  # noqa: ANN001
    for offset, statement in enumerate(statements):
        cid = store.admit(_draft(statement, start + offset)).candidate_id
        if approve:
            store.approve(cid, actor="operator")
        else:
            store.reject(cid, actor="operator")


def _score(scorer, statement: str = PROBE) -> float:  # noqa: ANN001
    return scorer.judge(statement, Context(rules=("fact.subject-verb",))).score


def test_rejections_lower_and_approvals_raise_the_score_of_what_they_resemble() -> None:
    base = default_scorer()
    model = ReviewerModel()
    for _ in range(5):
        for statement in REJECTED:
            model.learn(base, statement, ("fact.subject-verb",), kept=False)
    assert _score(AdaptedScorer(base, model)) < _score(base) - 0.05
    liked = ReviewerModel()
    for _ in range(5):
        for statement in REJECTED:
            liked.learn(base, statement, ("fact.subject-verb",), kept=True)
    assert _score(AdaptedScorer(base, liked)) > _score(base)


def test_the_daemon_learns_from_store_decisions_and_keeps_only_features(store) -> None:  # noqa: ANN001
    _decide(store, REJECTED, approve=False)
    _decide(store, ["Always use pnpm in this repo, never npm."], approve=True, start=10)
    learning = ReviewerLearning(store)
    assert learning.refresh() == 5
    assert learning.refresh() == 0  # nothing new: the cursor moved past them
    adapted = learning.scorer()
    assert isinstance(adapted, AdaptedScorer) and _score(adapted) < _score(default_scorer())
    raw = learning_path(store).read_bytes()
    assert oct(learning_path(store).stat().st_mode & 0o777) == "0o600"
    for word in ("Fridays", "Deploys", "pnpm", "build", "lunch"):
        assert word.encode() not in raw and word.lower().encode() not in raw
    stored = load_learning(store)
    assert (
        stored.decisions == 5 and stored.weights and all(isinstance(k, int) for k in stored.weights)
    )
    # a fresh daemon continues from the stored offsets, not from zero
    assert ReviewerLearning(store).refresh() == 0
    assert _score(ReviewerLearning(store).scorer()) == pytest.approx(_score(adapted))


def test_a_learning_file_from_another_store_is_refused(store, tmp_path: Path) -> None:  # noqa: ANN001
    _decide(store, REJECTED[:1], approve=False)
    ReviewerLearning(store).refresh()
    other = open_store(tmp_path / "other-home", user="dana")
    try:
        learning_path(other).parent.mkdir(parents=True, exist_ok=True)
        learning_path(other).write_bytes(learning_path(store).read_bytes())
        with pytest.raises(IntegrityError):
            load_learning(other)
        assert ReviewerLearning(other).scorer() is default_scorer()  # ingestion goes on, unadapted
    finally:
        other.close()


def test_reset_learning_forgets_and_does_not_relearn_the_past(store) -> None:  # noqa: ANN001
    _decide(store, REJECTED, approve=False)
    ReviewerLearning(store).refresh()
    store.close()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["rules", "reset-learning", "--json"])  # in process: the key is in this keyring
    assert code == 0
    assert json.loads(out.getvalue()) == {"reset": True, "decisions_forgotten": 4}
    reopened = open_store(user="dana")
    try:
        assert load_learning(reopened).weights == {}
        learning = ReviewerLearning(reopened)
        assert learning.refresh() == 0 and learning.scorer() is default_scorer()
        _decide(reopened, ["The build takes about an hour on CI."], approve=False, start=20)
        assert ReviewerLearning(reopened).refresh() == 1  # what comes after the reset is learned
    finally:
        reopened.close()


def test_reset_learning_without_a_store_is_a_clear_error(isolated_env: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", "rules", "reset-learning", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert done.returncode == 3
    assert "error" in json.loads(done.stdout)


def test_the_switch_turns_learning_off(store) -> None:  # noqa: ANN001
    from memvet.daemon.commands import pipeline_factory
    from memvet.store.paths import memvet_home

    _decide(store, REJECTED, approve=False)
    rules = memvet_home() / "rules.toml"
    default = pipeline_factory("dana", store)("claude-code", "/t.jsonl", None)
    assert isinstance(default._learned.scorer, AdaptedScorer)  # the scorer and learning are on
    rules.write_text("[policy]\nlearned_scorer = false\n", encoding="utf-8")
    assert pipeline_factory("dana", store)("claude-code", "/t.jsonl", None)._learned is None
    rules.write_text("[policy]\nlearned_scorer = true\n", encoding="utf-8")
    on = pipeline_factory("dana", store)("claude-code", "/t.jsonl", None)
    assert isinstance(on._learned.scorer, AdaptedScorer)
    rules.write_text(
        "[policy]\nlearned_scorer = true\nlearn_from_reviewer = false\n", encoding="utf-8"
    )
    off = pipeline_factory("dana", store)("claude-code", "/t.jsonl", None)
    assert not isinstance(off._learned.scorer, AdaptedScorer)
