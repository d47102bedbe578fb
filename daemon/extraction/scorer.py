"""The learned scorer: is this candidate a lasting statement a reviewer would approve, of which
kind, for which scope — and why.

INTERFACE (for the other extraction parts: adoption, clause merging, scope cues, the reviewer's
learning). Build a `Context` (features.py) and ask:

    scorer = default_scorer()                      # loaded once, lazily (no work at import)
    score, reasons = scorer.score(statement, context)
    verdict = scorer.judge(statement, context)     # score, kind, kind_p, global_p, reasons

* `statement` is the candidate text as it would be queued (a sentence, a merged rule, or the
  assistant's proposal for an adopted rule).
* `Context(message=, index=, count=, previous_assistant=, rules=, adopted=, host=)`: fill what
  you know; the defaults mean "not known". `rules` are the names of every rule that fired on the
  sentence (`Extractor.rule_hits`), reject rules included: they are features, not vetoes.
  `adopted=True` says the statement was built from the previous assistant turn.
* `score` is a probability in [0, 1]; the keep lines (from the weights file, tuned on the dev
  split) are `threshold_proposed` for a candidate the rules (or adoption) proposed and
  `threshold` for any other sentence; `strong_rule` is the rule confidence from which a rule
  candidate is kept whatever the score (fill `Context.strength` with the rules' confidence). `reasons` are `score:0.912` and the top features by contribution
  (`feature:+1.31:w:never`), what `memvet extract --json` shows.

The weights (assets/extraction/scorer.json + .bin) are a linear model over hashed features,
trained by tests/corpus/extraction/train.py; the runtime is pure Python (a sparse dot product
over the features of one candidate), no numpy, no download.
"""

from __future__ import annotations

import json
import math
import os
from array import array
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from memvet.daemon.extraction.features import (
    BUCKETS,
    Context,
    bucket,
    hashed,
    sentence_features,
)
from memvet.store.vocabulary import Kind

KINDS = (Kind.DECISION, Kind.PROCEDURE, Kind.CONSTRAINT, Kind.PREFERENCE, Kind.FACT)  # output order
__all__ = ["KINDS", "Context", "Scorer", "Verdict", "default_scorer"]


@dataclass(frozen=True)
class Verdict:
    score: float  # probability that a reviewer would approve it
    kind: str
    kind_p: float
    global_p: float  # probability that it is user-global rather than about this workspace
    reasons: tuple[str, ...]


class Scorer:
    def __init__(self, header: dict, blob: bytes) -> None:
        if header.get("buckets") != BUCKETS or header.get("outputs") != ["keep", *KINDS, "global"]:
            raise ValueError("extraction weights do not match this version's features")
        n, width = header["features"], len(header["outputs"])
        self._indices = array("I")
        self._indices.frombytes(blob[: 4 * n])
        self._weights = array("f")
        self._weights.frombytes(blob[4 * n : 4 * n + 4 * n * width])
        if len(self._indices) != n or len(self._weights) != n * width:
            raise ValueError("extraction weights file is truncated")
        self._width = width
        self._bias = header["intercepts"]
        self.threshold: float = header["threshold"]  # a sentence only the scorer read
        self.threshold_proposed: float = header.get(
            "threshold_proposed", self.threshold
        )  # a rule candidate
        # a sentence no rule judged (third_look.py); above 1: weights that never learnt it skip it.
        # Shipped off ("third_look": false): it halved the pipeline's CPU against json.loads and
        # took few sentences of new voices; MEMVET_EXTRACTION_THIRD_LOOK=1 switches it on.
        self.trained_threshold_third: float = header.get("threshold_third", 2.0)
        self.threshold_third: float = (
            self.trained_threshold_third if _third_look_on(header) else 2.0
        )
        self.chars: bool = header.get("chars", True)
        # A rule candidate at or above this rule confidence is kept whatever the model says (the
        # rule-strength prior), and `rule_kinds`: proposed candidates keep the rules' kind and scope.
        self.strong_rule: float = header.get("strong_rule", 2.0)
        self.rule_kinds: bool = header.get("rule_kinds", False)
        self.header = header
        self._rows: dict[int, int] | None = None  # bucket -> row, built on the first score
        self._last: tuple[str, Context, list[str]] | None = None  # keep_score's features, for judge

    def _features(self, statement: str, context: Context) -> list[str]:
        """The features of a candidate; `judge` right after `keep_score` reuses them."""
        last = self._last
        if last is not None and last[0] == statement and last[1] == context:
            return last[2]
        features = sentence_features(statement, context, chars=self.chars)
        self._last = (statement, context, features)
        return features

    def _sums(self, features: list[str]) -> list[float]:
        sums = list(self._bias)
        weights, width = self._weights, self._width
        for index, value in hashed(features).items():
            at = self._row(index)
            if at is not None:
                for k in range(width):
                    sums[k] += weights[at + k] * value
        return sums

    def keep_score(self, statement: str, context: Context) -> float:
        """The keep probability alone: one weight per feature, not all outputs (most sentences
        stop here; `judge` types only what is kept)."""
        features = self._features(statement, context)
        if (
            type(self)._sums is not Scorer._sums
        ):  # an adapted scorer adds the reviewer's offsets there
            return _sigmoid(self._sums(features)[0])
        total = self._bias[0]
        weights = self._weights
        for index, value in hashed(features).items():
            at = self._row(index)
            if at is not None:
                total += weights[at] * value
        return _sigmoid(total)

    def _row(self, index: int) -> int | None:
        """Where a feature's weights start (a table of a few thousand rows, built when the first
        candidate is scored, not at load: `memvet extract` on a file with no candidate pays nothing)."""
        rows = self._rows
        if rows is None:
            width = self._width
            rows = self._rows = {bucket: at * width for at, bucket in enumerate(self._indices)}
        return rows.get(index)

    def score(self, statement: str, context: Context) -> tuple[float, tuple[str, ...]]:
        verdict = self.judge(statement, context)
        return verdict.score, verdict.reasons

    def judge(self, statement: str, context: Context, *, explain: int = 3) -> Verdict:
        features = self._features(statement, context)
        sums = self._sums(features)
        score = _sigmoid(sums[0])
        kind_logits = sums[1 : 1 + len(KINDS)]
        top = max(kind_logits)
        exps = [math.exp(v - top) for v in kind_logits]
        best = max(range(len(KINDS)), key=kind_logits.__getitem__)
        reasons = (f"score:{score:.3f}", *self._top_features(features, explain))
        return Verdict(
            score=score,
            kind=KINDS[best],
            kind_p=exps[best] / sum(exps),
            global_p=_sigmoid(sums[-1]),
            reasons=reasons,
        )

    def _top_features(self, features: list[str], count: int) -> list[str]:
        """The features that pushed the keep score most, either way (for the reviewer)."""
        if count <= 0:
            return []
        pushes: dict[str, float] = {}
        for name, times in Counter(features).items():
            at = self._row(bucket(name))
            if at is not None:
                pushes[name] = self._weights[at] * times
        ranked = sorted(pushes.items(), key=lambda item: -abs(item[1]))[:count]
        return [f"feature:{weight:+.2f}:{name}" for name, weight in ranked]


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _third_look_on(header: dict) -> bool:
    """The weights' own choice, unless the environment says otherwise (an experiment switch)."""
    wanted = os.environ.get("MEMVET_EXTRACTION_THIRD_LOOK", "").strip().lower()
    if wanted in ("1", "on", "true", "yes"):
        return True
    if wanted in ("0", "off", "false", "no"):
        return False
    return bool(header.get("third_look", True))


@lru_cache(maxsize=1)
def default_scorer() -> Scorer:
    """The packaged weights, read once per process."""
    folder = resources.files("memvet.assets").joinpath("extraction")
    header = json.loads(folder.joinpath("scorer.json").read_text(encoding="utf-8"))
    return Scorer(header, folder.joinpath("scorer.bin").read_bytes())
