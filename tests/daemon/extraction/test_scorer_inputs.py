"""What the learned scorer is given: the rules' prefilter shared with it, features that carry a
statement's meaning and scope across phrasings, adoptions it types but never drops, and the
third-party training data it may (and may not) read."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest
from memvet.daemon.extraction.extract import Extracted, Extractor
from memvet.daemon.extraction.features import Context, meaning_features, sentence_features
from memvet.daemon.extraction.learned import LearnedExtractor
from memvet.daemon.extraction.rules import load_rules
from memvet.daemon.extraction.scorer import Scorer

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "extraction"


class CountingPrefilter:
    def __init__(self, inner) -> None:
        self.inner, self.calls = inner, 0
        self.bits = inner.bits

    def candidates(self, text: str, lowered: str) -> int:
        self.calls += 1
        return self.inner.candidates(text, lowered)


def _weights(**changes) -> Scorer:
    folder = resources.files("memvet.assets").joinpath("extraction")
    header = json.loads(folder.joinpath("scorer.json").read_text(encoding="utf-8"))
    return Scorer({**header, **changes}, folder.joinpath("scorer.bin").read_bytes())


def test_rules_and_scorer_share_one_prefilter_pass_per_sentence() -> None:
    extractor = Extractor(load_rules())
    counting = CountingPrefilter(extractor._prefilter)
    extractor._prefilter = counting
    text = (
        "Never push to main. The staging database lives on db2. Thanks for the help earlier today."
    )
    learned = LearnedExtractor(extractor)
    learned.decide(text, extractor.extract(text))
    sized = [s for s in extractor.sentences(text) if extractor.sized(s)]
    assert counting.calls == len(sized)  # not once for the rules and again for the scorer


def test_rule_hits_are_every_section_reject_rules_included() -> None:
    extractor = Extractor(load_rules())
    names = [rule.name for rule, _ in extractor.rule_hits("Never push to main.")]
    assert "constraint.never" in names
    asked = [rule.section for rule, _ in extractor.rule_hits("Can you never push to main today?")]
    assert "reject" in asked  # a veto for the rules, a feature for the scorer
    assert extractor.rule_hits("") == []


def test_an_adoption_is_typed_by_the_scorer_but_never_dropped_by_its_line() -> None:
    extractor = Extractor(load_rules())
    strict = LearnedExtractor(extractor, _weights(threshold_proposed=0.9999, threshold=0.9999))
    proposal = Extracted(
        statement="Run the linter before every commit.",
        kind="procedure",
        confidence=0.6,
        reasons=("adopted",),
    )
    kept = strict.decide(
        "yes, from now on do that", [proposal], previous_assistant="I could run the linter first."
    )
    assert [k.statement for k in kept] == [proposal.statement]
    assert kept[0].confidence <= proposal.confidence  # its own, lower cap stays
    dropped = strict.decide(
        "Never push to main.", [replace(proposal, statement="Never push to main.", reasons=())]
    )
    assert dropped == []  # the rule candidates of the user's own words do face the line


@pytest.mark.parametrize(
    ("sentence", "cue"),
    [
        ("We went with Postgres for the job queue.", "k:decision"),
        ("we moved to uv last month", "k:decision"),
        ("To cut a release here: run make dist and tag it.", "k:procedure"),
        ("Migrations must be reversible.", "k:constraint"),
        ("I prefer small commits.", "k:preference"),
        ("The API lives in services/api.", "k:fact"),
    ],
)
def test_meaning_cues_cover_phrasing_families(sentence: str, cue: str) -> None:
    assert cue in meaning_features(sentence)
    assert cue in sentence_features(sentence, Context())


def test_scope_cues_tell_the_user_and_all_repos_from_this_codebase() -> None:
    assert "g:about-user" in meaning_features("I'm on a Mac with the fish shell.")
    assert "g:about-user" in meaning_features("My editor is neovim.")
    assert "g:all-repos" in meaning_features("In all my repos, format with ruff.")
    here = meaning_features("Use ruff everywhere in this codebase.")
    assert "g:this-codebase" in here and "g:all-repos" not in here
    assert "g:about-user" not in meaning_features("The user table has an email column.")


def test_memorycode_test_dialogues_are_never_read_for_training(shared_dir: Path) -> None:
    sys.path.insert(0, str(CORPUS))
    from labelled_corpus import third_party_split
    from third_party import memorycode_messages

    with pytest.raises(ValueError, match="evaluation only"):
        memorycode_messages("test")
    train, dev = memorycode_messages("train"), memorycode_messages("dev")
    assert train and dev
    sources = {
        split: {m["group"].split(":", 1)[1] for m in ms}
        for split, ms in (("train", train), ("dev", dev))
    }
    assert not sources["train"] & sources["dev"]
    assert all(
        third_party_split("memorycode", s) == split
        for split, found in sources.items()
        for s in found
    )
    assert any(m["labels"] for m in train) and all(
        lab["kind"] is None for m in train for lab in m["labels"]
    )


def test_the_keep_only_score_is_the_full_verdicts_score() -> None:
    scorer = _weights()
    for sentence, rules in (
        ("Never push to main.", ("constraint.never",)),
        ("thanks, that works", ()),
    ):
        context = Context(message=sentence, rules=rules)
        assert scorer.keep_score(sentence, context) == pytest.approx(
            scorer.judge(sentence, context).score, abs=1e-9
        )
