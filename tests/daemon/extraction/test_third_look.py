"""The third look (daemon/extraction/third_look.py): a user sentence no rule judged is read by the
learned scorer alone, against its own keep line, after a cheap shape gate; questions, reported
speech, hypotheticals and pasted output stay out whatever the model says.

The sentences here were written for this test, not from any corpus split, and only kept where no
rule fires on them (a rule-side check). What reaches the third look is tested with a model that
keeps anything; what the shipped weights take is the benchmark's business, not a unit test's.
"""

from __future__ import annotations

import json

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.learned import LearnedExtractor
from memvet.daemon.extraction.rules import load_rules
from memvet.daemon.extraction.scorer import Scorer, default_scorer
from memvet.daemon.extraction.third_look import (
    REASON,
    has_statement_shape,
    untouched_by_rules,
)

CATEGORIES = {
    "terse rule, no trigger word": [
        "feature branches squash on merge",
        "snapshots get reviewed like code",
        "public functions carry a docstring",
    ],
    "first-person fact about the user": [
        "I'm a vim user",
        "I work mostly at night",
        "my eyes tire quickly on dark themes",
    ],
    "hosting / deploy fact": [
        "the app store build is signed in bitrise",
        "mail goes out through postmark",
        "the static assets sit behind bunny cdn",
    ],
    "rule with a code-like token": [
        "`cargo deny` as a ci gate",
        "`bun` as the runtime for scripts",
        "`npm ci` in pipelines",
    ],
    "preference": [
        "I enjoy reading small focused diffs",
        "numbered steps when you explain a setup",
        "I'm happier with fewer abstractions",
    ],
}
# Structural strengths: the shape gate and the reject rules, not the model, keep these out.
STRUCTURAL = [
    "the worker runs on railway?",
    "what port does the queue listen on",
    "Sam said the worker runs on railway",
    "if the worker ran on railway the bill would drop",
    "Dana thinks the queue belongs on sqs",
    "it runs on railway now",
]
# The same shapes as the categories, but one-off, time-limited, broken or about this turn.
HARD_NEGATIVES = [
    "the worker on railway is down again",
    "the docs build on github pages failed last night",
    "in your answer only show the changed lines",
    "the redis on upstash is slow today",
    "the postmark key expired",
    "the mail template has a typo",
]


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(load_rules())


@pytest.fixture(scope="module")
def learned(extractor: Extractor) -> LearnedExtractor:
    """A model that keeps anything it reads: what stays out, stays out whatever the model says."""
    return LearnedExtractor(extractor, keep_all())


def third_look_takes(learned: LearnedExtractor, text: str) -> list[str]:
    return [e.statement for e in learned.extract(text) if REASON in e.reasons]


def keep_all() -> Scorer:
    """The packaged weights with the keep intercept pushed so far up that the model keeps anything
    it reads: what reaches the third look, independent of where its line lies."""
    base = default_scorer()
    blob = base._indices.tobytes() + base._weights.tobytes()
    header = {
        **base.header,
        "intercepts": [40.0, *base.header["intercepts"][1:]],
        "third_look": True,
        "threshold_third": 0.5,
    }
    return Scorer(header, blob)


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_what_no_rule_fired_on_reaches_the_third_look(extractor: Extractor, category: str) -> None:
    learned = LearnedExtractor(extractor, keep_all())
    for sentence in CATEGORIES[category]:  # really a third-look sentence: no rule judged it
        assert untouched_by_rules(extractor.rule_hits(sentence)), sentence
        assert not extractor.worth_scoring(sentence), sentence
        assert third_look_takes(learned, sentence), sentence


def test_what_the_third_look_keeps_is_explained(extractor: Extractor) -> None:
    scorer = keep_all()
    kept = [
        e
        for s in CATEGORIES["hosting / deploy fact"]
        for e in LearnedExtractor(extractor, scorer).extract(s)
    ]
    assert len(kept) == 3
    for item in kept:
        assert REASON in item.reasons and "scorer.recall" not in item.reasons
        assert any(r.startswith("score:") for r in item.reasons)
        assert any(r.startswith("feature:") for r in item.reasons)
        assert item.confidence >= scorer.threshold_third


@pytest.mark.parametrize("text", STRUCTURAL)
def test_questions_reported_speech_and_hypotheticals_stay_out(
    learned: LearnedExtractor, text: str
) -> None:
    assert third_look_takes(learned, text) == []


def test_pasted_output_stays_out(learned: LearnedExtractor) -> None:
    log = (
        "look at this:\n"
        "2026-01-02T10:00:01Z ERROR worker.jobs connection to queue refused\n"
        "Traceback (most recent call last):\n"
        '  File "worker/jobs.py", line 12, in run\n'
        "ConnectionRefusedError: [Errno 111] Connection refused"
    )
    assert third_look_takes(learned, log) == []


def test_the_shape_gate() -> None:
    assert has_statement_shape("migrations are forward-only here")
    assert not has_statement_shape("is the worker on railway")  # a question without its mark
    assert not has_statement_shape("railway, please?")
    assert not has_statement_shape("if the worker ran on railway the bill would drop")
    assert not has_statement_shape("Dana thinks the queue belongs on sqs")
    assert not has_statement_shape("ok thanks")  # too short to be a statement
    assert not has_statement_shape("they run on the old boxes")  # leans on what came before
    assert not has_statement_shape(" ".join(["word"] * 40))  # a paragraph, not a statement


def test_weights_without_a_third_line_never_take_the_third_look(extractor: Extractor) -> None:
    scorer = default_scorer()
    header = {k: v for k, v in scorer.header.items() if k != "threshold_third"}
    old = Scorer(header, _blob(scorer))
    assert old.threshold_third > 1
    learned = LearnedExtractor(extractor, old)
    for sentences in CATEGORIES.values():
        for sentence in sentences:
            assert not any(REASON in e.reasons for e in learned.extract(sentence))


def test_the_third_look_ships_off_and_the_switch_turns_it_on(monkeypatch) -> None:
    shipped = default_scorer()
    assert shipped.header["third_look"] is False and shipped.threshold_third > 1
    trained = {**shipped.header, "threshold_third": 0.48}
    assert Scorer(trained, _blob(shipped)).threshold_third > 1  # the weights say off
    monkeypatch.setenv("MEMVET_EXTRACTION_THIRD_LOOK", "1")
    assert Scorer(trained, _blob(shipped)).threshold_third == 0.48
    monkeypatch.setenv("MEMVET_EXTRACTION_THIRD_LOOK", "off")
    assert Scorer({**trained, "third_look": True}, _blob(shipped)).threshold_third > 1


def _blob(scorer: Scorer) -> bytes:
    from importlib import resources

    folder = resources.files("memvet.assets").joinpath("extraction")
    header = json.loads(folder.joinpath("scorer.json").read_text(encoding="utf-8"))
    assert header["features"] == scorer.header["features"]
    return folder.joinpath("scorer.bin").read_bytes()
