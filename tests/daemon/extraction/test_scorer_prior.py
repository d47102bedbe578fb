"""The learned scorer's guard rails: a strong explicit rule is never scored out (the rule-strength
prior), a sentence no rule touched is read only by the third look, what a reject rule judged never,
and the reviewer's offsets move the keep decision itself, not only the score shown."""

from __future__ import annotations

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.features import Context, hashed, sentence_features
from memvet.daemon.extraction.learned import LearnedExtractor
from memvet.daemon.extraction.reviewer import AdaptedScorer, ReviewerModel
from memvet.daemon.extraction.rules import load_rules
from memvet.daemon.extraction.scorer import Scorer, default_scorer


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(load_rules())


def _biased(bias: float, **header) -> Scorer:
    """The packaged weights with the keep intercept pushed far one way."""
    base = default_scorer()
    blob = base._indices.tobytes() + base._weights.tobytes()
    intercepts = [bias, *base.header["intercepts"][1:]]
    return Scorer({**base.header, "intercepts": intercepts, **header}, blob)


def test_a_strong_explicit_rule_is_never_scored_below_the_line(extractor: Extractor) -> None:
    rejecting = _biased(-40.0)  # a model that would drop everything
    learned = LearnedExtractor(extractor, rejecting)
    kept = learned.extract("Never push to main.")
    assert [k.statement for k in kept] == ["Never push to main."]
    assert kept[0].polarity == "deny" and "scorer.strong-rule" in kept[0].reasons
    assert kept[0].confidence >= rejecting.threshold_proposed
    # a weak rule candidate gets no such pass: the model decides
    weak = "Start attribute names with 'q_'."
    assert extractor.extract(weak) and extractor.extract(weak)[0].confidence < rejecting.strong_rule
    assert learned.extract(weak) == []
    # a correction the rules found is kept too: dropping it would leave the replaced rule served
    correction = learned.extract(
        "why did you run yarn?? actually we moved off yarn last week, it's pnpm now"
    )
    assert len(correction) == 1 and correction[0].supersedes_hint is not None
    # without the prior (an old weights file), the same model drops the strong rule too
    assert (
        LearnedExtractor(extractor, _biased(-40.0, strong_rule=2.0)).extract("Never push to main.")
        == []
    )


def test_a_sentence_no_rule_touched_is_read_only_by_the_third_look(extractor: Extractor) -> None:
    keeping = _biased(
        40.0, third_look=True, threshold_third=0.5
    )  # a model that would keep anything it reads
    text = "At TECHNO, we believe in celebrating our employees' achievements."
    assert extractor.rule_hits(text) == []
    # the third look (third_look.py) reads it, against its own line; weights without one never
    [taken] = LearnedExtractor(extractor, keeping).extract(text)
    assert "scorer.third-look" in taken.reasons
    old = {k: v for k, v in keeping.header.items() if k != "threshold_third"}
    blob = keeping._indices.tobytes() + keeping._weights.tobytes()
    assert LearnedExtractor(extractor, Scorer(old, blob)).extract(text) == []
    # what a reject rule judged stays out, however keen the model
    for judged in ("Dana said the queue belongs on sqs", "what port does the queue listen on"):
        assert all(r.section == "reject" for r, _ in extractor.rule_hits(judged))
        assert LearnedExtractor(extractor, keeping).extract(judged) == []


def test_the_reviewers_offsets_move_the_keep_decision() -> None:
    base = default_scorer()
    statement, context = "Use pnpm, not npm.", Context(rules=("preference.instead",))
    model = ReviewerModel(
        {i: -5.0 for i in hashed(sentence_features(statement, context, chars=base.chars))}
    )
    adapted = AdaptedScorer(base, model)
    assert adapted.keep_score(statement, context) == pytest.approx(
        adapted.judge(statement, context).score
    )
    assert adapted.keep_score(statement, context) < base.keep_score(statement, context)
