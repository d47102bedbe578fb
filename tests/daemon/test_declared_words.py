"""The prefilter trusts what rules declare (`words`, `contains`); these tests prove
each declaration from the pattern itself with the analysis in tests/tools/regex_literals.py
(the standard library's regex parser: a private API, kept out of the runtime)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
regex_literals = pytest.importorskip(
    "regex_literals", reason="needs the standard library's re._parser"
)
declare_rule_words = pytest.importorskip("declare_rule_words")

from memvet.daemon.extraction import sentence_split  # noqa: E402
from memvet.daemon.extraction.prefilter import Prefilter  # noqa: E402
from memvet.daemon.extraction.rules import Rule, load_rules  # noqa: E402


@pytest.fixture(scope="module")
def packaged(tmp_path_factory):
    empty = tmp_path_factory.mktemp("no-overlay") / "rules.toml"
    empty.write_text("", encoding="utf-8")  # an overlay with nothing in it: the packaged rules
    return load_rules(str(empty))


def _extraction(rules) -> tuple[Rule, ...]:
    return (
        *rules.reject,
        *rules.durable,
        *rules.kinds,
        *rules.correction,
        *rules.scope,
        *rules.polarity,
    )


def test_declared_words_are_implied_by_each_pattern(packaged):
    unsound = []
    for rule in _extraction(packaged):
        if not rule.words:
            continue
        required, _ = regex_literals.requirement(rule.pattern)
        if required is None or not required <= set(rule.words):
            unsound.append((rule.name, sorted(required or ()), rule.words))
    assert unsound == []


def test_declared_strings_are_implied_by_each_pattern(packaged):
    """Every match contains one of the pattern's required strings; each of those holds a declared one."""
    declaring = [r for r in (*_extraction(packaged), *packaged.filters.strip) if r.contains]
    assert declaring
    for rule in declaring:
        _, pieces = regex_literals.requirement(rule.pattern)
        assert pieces is not None, rule.name
        assert all(any(c in piece for c in rule.contains) for piece in pieces), rule.name


def test_every_packaged_rule_declares_what_its_pattern_requires():
    """Else the rule is tried on every sentence: `python tests/tools/declare_rule_words.py`."""
    lacking = [
        name
        for path in (
            declare_rule_words.ASSETS / "rules.toml",
            declare_rule_words.ASSETS / "filters.toml",
        )
        for name in declare_rule_words.missing(path)
    ]
    assert lacking == []


def test_the_sentence_opener_shortcuts_match_their_patterns():
    assert sentence_split._PLEASE_STARTS == regex_literals.starts(sentence_split._PLEASE)
    assert regex_literals.starts(
        sentence_split._OPENER
    ) is None and sentence_split._OPENER_STARTS == ("",)


def test_an_unsound_declaration_would_skip_a_match():
    """What the proof guards against: a declared word the match lacks hides the rule."""
    rule = Rule("t", "kind", re.compile(r"\bprefer\b"), words=("favour",))
    prefilter = Prefilter((rule,))
    sentence = "I prefer tabs"
    assert rule.pattern.search(sentence)
    assert prefilter.candidates(sentence, sentence.lower()) == 0
    honest = Rule("t", "kind", re.compile(r"\bprefer\b"), words=("prefer",))
    assert Prefilter((honest,)).candidates(sentence, sentence.lower()) == 1
    assert regex_literals.requirement(rule.pattern)[0] == {"prefer"}
