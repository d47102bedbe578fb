"""Redaction's speed paths give what the plain paths give: every detector's gate asked in one
pass (gates.py) against `gate_open` one detector at a time, and the woken-rule memo
(rule_engine.RuleSet.woken) against finding the rules again."""

from __future__ import annotations

import importlib
import random

from memvet.store.redaction.context import CONTEXT_DETECTORS
from memvet.store.redaction.gates import GateIndex
from memvet.store.redaction.patterns import SHAPE_DETECTORS, gate_open
from memvet.store.redaction.rule_engine import ruleset

redact_module = importlib.import_module("memvet.store.redaction.redact")  # the package's
# `redact` attribute is the function of that name
DETECTORS = (*SHAPE_DETECTORS, *CONTEXT_DETECTORS)
PROSE = [
    "fix the failing test in tests/test_parser.py",
    "We deploy with ./scripts/deploy.sh, never by hand.",
    "export GITHUB_TOKEN=ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
    "postgres://admin:hunter2@db.internal:5432/app and Authorization: Bearer abc.def.ghi",
    "password = [REDACTED:secret-assignment] then $2b$12$abcdefghijklmnopqrstuv",
    "",
    "continue",
]


def _texts() -> list[str]:
    """Ordinary prose, and texts built from the detectors' own needles (one, several, with a
    needle cut in half, upper-cased), so every gate is seen both open and shut."""
    rng = random.Random(7)
    needles = sorted({n for d in DETECTORS for n in d.needles})
    texts = list(PROSE)
    for needle in needles:
        texts += [f"a {needle} b", needle[:-1], needle.upper(), f"x{needle}{needle}y"]
    for _ in range(300):
        picked = rng.sample(needles, rng.randint(1, 4))
        texts.append(" ".join([*picked, rng.choice(PROSE)]))
    return texts


def _one_by_one(lowered: str) -> int:
    return sum(1 << i for i, d in enumerate(DETECTORS) if gate_open(d, lowered))


def test_one_pass_opens_exactly_the_gates_gate_open_opens():
    index = GateIndex(DETECTORS)
    opened = 0
    for text in _texts():
        lowered = text.lower()
        mask = index.open(lowered)
        assert mask == _one_by_one(lowered), text
        opened |= mask
    assert opened == (1 << len(DETECTORS)) - 1  # the texts did open every gate


def test_without_pyahocorasick_each_gate_is_asked(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ahocorasick(name, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        if name == "ahocorasick":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ahocorasick)
    index = GateIndex(DETECTORS)
    for text in _texts()[:200]:
        assert index.open(text.lower()) == _one_by_one(text.lower())
    assert index._automaton is None


def test_redaction_is_the_same_with_the_gates_asked_one_by_one(monkeypatch):
    texts = _texts()
    fast = [redact_module.redact(t) for t in texts]
    slow_index = GateIndex(DETECTORS)
    slow_index._built = True  # no automaton: GateIndex falls back to gate_open per detector
    monkeypatch.setattr(redact_module, "_GATES", slow_index)
    assert [redact_module.redact(t) for t in texts] == fast
    assert any(r.changed for r in fast) and not all(r.changed for r in fast)


def test_remembered_woken_rules_are_the_rules_found_afresh():
    rules = ruleset()
    for text in _texts():
        lowered = text.lower()
        first = rules.woken(lowered)
        again = rules.woken(lowered)  # from the memo
        rules._woken.clear()
        assert again is first
        assert rules.woken(lowered) == first
        only = frozenset({"gitleaks"})
        assert rules.woken(lowered, origins=only) == [r for r in first if r.origin == "gitleaks"]
