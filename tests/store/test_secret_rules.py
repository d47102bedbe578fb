"""The pinned gitleaks rules (assets/secret_rules/): the derived JSON is what the refresh script
makes of the pinned copy, the version names that copy, the Go → Python translation finds what
RE2 itself finds, the keyword engines agree, and the rules are read lazily."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.store.redaction.rule_engine import ruleset
from memvet.store.redaction_version import GITLEAKS_SHA256

ROOT = Path(__file__).resolve().parents[2]
REFRESH = ROOT / "tests" / "tools" / "refresh_secret_rules.py"


def _refresh():  # noqa: ANN202 - the module
    spec = importlib.util.spec_from_file_location("refresh_secret_rules", REFRESH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_json_is_derived_from_the_pinned_copy_and_named_by_the_version() -> None:
    refresh = _refresh()
    derived = json.loads(refresh.DERIVED.read_text())
    assert (
        refresh.render(refresh.derive(refresh.PINNED.read_text(), derived["commit"]))
        == refresh.DERIVED.read_text()
    )
    assert derived["sha256"] == GITLEAKS_SHA256 and derived["licence"] == "MIT"
    assert (
        (ROOT / "assets" / "secret_rules" / "LICENSE-gitleaks.txt")
        .read_text()
        .startswith("MIT License")
    )
    assert len(derived["rules"]) >= 200 and all(d["id"] and d["reason"] for d in derived["dropped"])


@pytest.mark.parametrize(
    ("go", "python"),
    [
        (r"\b(p8e-(?i)[a-z0-9]{32})", r"\b(p8e-(?i:[a-z0-9]{32}))"),
        (r"(a(?i)b|c)", r"(a(?i:b)|(?i:c))"),  # Go's flag holds after | inside its group
        (r"x\z", r"x\Z"),
        (r"[[:alnum:]]+$", r"[A-Za-z0-9]+\Z"),
        (r"[[a]", r"[\[a]"),
    ],
)
def test_go_syntax_is_translated(go: str, python: str) -> None:
    assert _refresh().translate(go) == python


def test_translations_find_what_re2_finds() -> None:
    re2 = pytest.importorskip("re2")
    import re
    import tomllib

    refresh = _refresh()
    originals = {
        r["id"]: r["regex"]
        for r in tomllib.loads(refresh.PINNED.read_text())["rules"]
        if "regex" in r
    }
    samples = [
        "AKIAQ3EGT7KL2M5RWZ6Y",
        "token = 'q7x9m2lk4n8p3r5t6v1w0z2y'",
        "LTAIa1b2c3d4e5f6g7h8i9j0",
        "p8e-ABCDEFabcdef0123456789abcdef0123\n",
        'curl -u "dana:Pq8wLz2Rk5" x',
        "xoxo-1-2-3-4f9a2b\n",
    ]

    def secret(rule, match) -> tuple[int, int]:  # noqa: ANN001 - as gitleaks picks it
        if rule.group:
            return match.span(rule.group)
        for index in range(1, len(match.groups()) + 1):
            if match.group(index):
                return match.span(index)
        return match.span()

    checked = 0
    for rule in ruleset().rules:
        ours, theirs = re.compile(rule.source, re.ASCII), re2.compile(originals[rule.id])
        for text in samples:
            mine = [secret(rule, m) for m in ours.finditer(text)]
            gold = [secret(rule, m) for m in theirs.finditer(text)]
            assert mine == gold, (rule.id, text)  # the cut lead changes the match, never the secret
            checked += bool(gold)
    assert checked >= 5


def test_keyword_engines_agree() -> None:
    loaded = ruleset()
    if loaded.automaton is None:
        pytest.skip("pyahocorasick not installed: only the pure-Python engine runs")
    texts = [
        "export SLACK=xoxb-1 and AKIA key",
        "nothing here",
        "the Stripe sk_live_ key, glpat- and a jwt eyJ",
    ]
    for text in texts:
        lowered = text.lower()
        assert loaded.keywords_in(lowered) == {k for k in loaded.keywords if k in lowered}


def test_nothing_is_loaded_or_compiled_at_import() -> None:
    code = (
        "import sys, memvet.store.redaction as r, memvet.store.redaction.rule_engine as e; "
        "print(bool(e._LOADED), 'ahocorasick' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "False"]
