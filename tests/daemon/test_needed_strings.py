"""A rule that declares the strings every match holds (`contains`) is run only when one of them
is in the sentence, folded as the engine folds case (prefilter.py `needed`, extract.py `_hits`):
the rules that fire on a sentence must be exactly those whose regex matches it."""

from __future__ import annotations

from memvet.daemon.extraction import extract
from memvet.daemon.extraction.casefold import folded
from memvet.daemon.extraction.prefilter import prefilter_for
from memvet.daemon.pipeline import load_rules

from .conftest import corpus_sentences

RULES = load_rules()
SECTIONS = (
    *RULES.reject,
    *RULES.durable,
    *RULES.kinds,
    *RULES.correction,
    *RULES.scope,
    *RULES.polarity,
)


def _sentences() -> set[str]:
    sentences = corpus_sentences(RULES)
    some = sorted(sentences)[:300]
    # Letters the engine matches to ASCII ones when it ignores case: "ſ" is "s", "K" (Kelvin)
    # is "k", "İ" and "ı" are "i"; and upper case throughout.
    return (
        sentences
        | {s.upper() for s in some}
        | {s.replace("s", "\u017f").replace("k", "\u212a") for s in some}
        | {s.replace("i", "\u0130") for s in some}
        | {s.replace("i", "\u0131") for s in some}
    )


def test_rules_with_needed_strings_are_declared_ones() -> None:
    needed = prefilter_for(RULES).needed
    assert needed  # the packaged rules declare strings: the gate is in use
    bits = prefilter_for(RULES).bits
    declaring = {bits[id(r)]: r for r in SECTIONS if r.contains and not r.words}
    assert set(needed) <= set(declaring)
    assert all(needed[bit] == declaring[bit].contains for bit in needed)


def test_a_matching_rule_always_has_a_needed_string_in_the_sentence() -> None:
    prefilter = prefilter_for(RULES)
    gated = [
        (r, prefilter.needed[prefilter.bits[id(r)]])
        for r in SECTIONS
        if prefilter.bits[id(r)] in prefilter.needed
    ]
    assert gated
    for sentence in _sentences():
        low = folded(sentence)
        for rule, strings in gated:
            if rule.pattern.search(sentence):
                assert any(s in low for s in strings), (rule.name, sentence)


def test_rule_hits_are_every_rule_whose_pattern_matches() -> None:
    extractor = extract.Extractor(RULES)
    for sentence in _sentences():
        extractor.sentences(sentence)  # a new text: nothing remembered from the last one
        found = [rule.name for rule, _ in extractor.rule_hits(sentence)]
        expected = [r.name for r in SECTIONS if r.search(sentence, sentence.lower())]
        assert sorted(found) == sorted(expected), sentence


def test_a_rule_the_prefilter_lets_through_is_not_run_without_its_string() -> None:
    """ "Fix the bug" has the word run of durable.scope-words' "in the " but none of its strings:
    the word prefilter lets the rule through, the needed strings stop it before its regex."""
    prefilter = prefilter_for(RULES)
    rule = next(r for r in RULES.durable if r.name == "durable.scope-words")
    bit = prefilter.bits[id(rule)]
    sentence = "Fix the bug before lunch."
    assert prefilter.candidates(sentence, sentence.lower()) & bit
    assert bit in prefilter.needed
    assert not any(s in folded(sentence) for s in prefilter.needed[bit])
    extractor = extract.Extractor(RULES)
    extractor.sentences(sentence)
    durable = extractor._durable
    assert extract._hits(durable, bit, sentence) == []
    said = "Keep every test in the repo fast."
    assert [r.name for r, _ in extract._hits(durable, bit, said)] == ["durable.scope-words"]
