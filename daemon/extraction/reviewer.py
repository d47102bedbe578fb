"""Learning from the reviewer: the operator's approvals, edits and rejections adapt the learned
scorer to this user.

Each decision is a label on what was queued: approved (as queued, or edited) is 1, rejected
(or approved and later marked a false write) is 0. The packaged model stays as it is; the user's
model is a sparse set of offsets on the keep logit, one per hashed feature, learned online
(logistic loss, a step per decision, shrunk toward zero so a few decisions move it a little and
many move it more). Only feature buckets and weights are kept (store/learning.py: encrypted,
in the user's MEMVET_HOME); `memvet rules reset-learning` forgets them; `[policy]
learn_from_reviewer = false` turns learning and its use off.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable
from typing import Any

from memvet.daemon.extraction.features import Context, hashed, sentence_features
from memvet.daemon.extraction.scorer import Scorer, default_scorer
from memvet.daemon.extraction.third_look import REASON as THIRD_LOOK

log = logging.getLogger("memvet.daemon")

STEP = 3.0  # logit change of the decided statement per decision: one rejection never flips a confident verdict
SHRINK = 0.002  # pull of every touched offset back toward zero, per step
EDITED_WEIGHT = 0.5  # an edited approval says "worth keeping", less surely than a plain one
# Only what a statement says is learned (its words, word pairs, character n-grams): the rules
# that fired, its position and shape are shared by every statement, and one rejection must not
# move the scores of unrelated rules.
LEARNED_PREFIXES = ("w:", "b:", "c:", "f:", "f2:")
REFRESH_SECONDS = 60.0  # how often the daemon looks for new decisions


class ReviewerModel:
    """Offsets on the keep logit, by feature bucket."""

    def __init__(self, weights: dict[int, float] | None = None, decisions: int = 0) -> None:
        self.weights: dict[int, float] = dict(weights or {})
        self.decisions = decisions

    def offset(self, buckets: dict[int, float]) -> float:
        weights = self.weights
        return sum(weights.get(i, 0.0) * v for i, v in buckets.items())

    def learn(
        self, base: Scorer, statement: str, reasons: Iterable[str], kept: bool, weight: float = 1.0
    ) -> None:
        """One decision on a queued statement (its rule reasons are features, as at scoring)."""
        features = sentence_features(statement, _context(reasons), chars=base.chars)
        logit = base._sums(features)[0] + self.offset(hashed(features))
        buckets = hashed(f for f in features if f.startswith(LEARNED_PREFIXES))
        probability = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))
        gradient = (1.0 if kept else 0.0) - probability
        # Normalised by the squared norm: one decision moves the logit of the statement decided
        # by at most STEP, and of another statement by its share of the same features.
        scale = STEP * weight / max(1.0, sum(v * v for v in buckets.values()))
        weights = self.weights
        for index, value in buckets.items():
            current = weights.get(index, 0.0)
            weights[index] = current * (1.0 - SHRINK) + scale * gradient * value
        self.decisions += 1


def _context(reasons: Iterable[str]) -> Context:
    reasons = tuple(reasons)
    rules = tuple(
        r
        for r in reasons
        if "." in r and r != THIRD_LOOK and not r.startswith(("score:", "feature:", "scope."))
    )
    return Context(rules=rules, adopted="adopted" in reasons, third_look=THIRD_LOOK in reasons)


class AdaptedScorer(Scorer):
    """The packaged scorer with this user's offsets added to its keep logit."""

    def __init__(self, base: Scorer, model: ReviewerModel) -> None:  # noqa: D107 - shares base's arrays
        self.__dict__.update(base.__dict__)
        self.model = model

    def _sums(self, features: list[str]) -> list[float]:
        sums = super()._sums(features)
        sums[0] += self.model.offset(hashed(features))
        return sums


class ReviewerLearning:
    """The daemon's view of what the reviewer taught: refreshed from the store's decisions at
    most every REFRESH_SECONDS, saved back (encrypted) when it learned something."""

    def __init__(self, store: Any, base: Scorer | None = None) -> None:
        self.store = store
        self.base = base or default_scorer()
        self._model: ReviewerModel | None = None
        self._checked = -math.inf

    def scorer(self) -> Scorer:
        if time.monotonic() - self._checked >= REFRESH_SECONDS:
            self._checked = time.monotonic()
            try:
                self.refresh()
            except Exception as exc:  # learning must never stop ingestion
                log.warning("reviewer learning not refreshed: %s", type(exc).__name__)
        model = self._model
        return self.base if model is None or not model.weights else AdaptedScorer(self.base, model)

    def refresh(self) -> int:
        """Learn every decision since the last one learned; how many were new. The stored
        offsets are read each time, so a reset made meanwhile (`memvet rules reset-learning`)
        is seen."""
        from memvet.store.learning import Learning, decisions_since, load_learning, save_learning

        stored = load_learning(self.store)
        model, cursor = ReviewerModel(stored.weights, stored.decisions), stored.cursor
        learned = 0
        while True:
            batch = decisions_since(self.store, cursor)
            for decision in batch:
                model.learn(
                    self.base,
                    decision.statement,
                    decision.reasons,
                    decision.kept,
                    EDITED_WEIGHT if decision.edited else 1.0,
                )
                cursor = (decision.decided_at.isoformat(), decision.candidate_id)
            learned += len(batch)
            if len(batch) < 1000:
                break
        if learned:
            save_learning(self.store, Learning(model.weights, model.decisions, cursor))
            log.info("learned %d reviewer decisions (%d in all)", learned, model.decisions)
        self._model = model
        return learned
