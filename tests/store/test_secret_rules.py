"""The pinned rule sets (assets/secret_rules/: gitleaks; Nosey Parker + Kingfisher): each derived
JSON is what its refresh script makes of the pinned copy, the version names both copies, the
Go / Rust → Python translations find what RE2 itself finds, the derived keywords hold for every
match, the keyword engines agree, and the rules are read lazily."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.store.redaction.rule_engine import ruleset
from memvet.store.redaction_version import GITLEAKS_SHA256, NP_KF_SHA256, RULESET_VERSION

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tests" / "tools"
REFRESH = TOOLS / "refresh_secret_rules.py"


def _refresh(name: str = "refresh_secret_rules"):  # noqa: ANN202 - the module
    sys.path.insert(0, str(TOOLS))  # refresh_np_kf_rules imports its siblings
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
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
    for rule in (r for r in ruleset().rules if r.origin == "gitleaks"):
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


def test_the_np_kf_json_is_derived_from_the_pinned_copy_and_named_by_the_version() -> None:
    refresh = _refresh("refresh_np_kf_rules")
    derived = json.loads(refresh.DERIVED.read_text())
    assert refresh.render(refresh.derive(refresh.PINNED.read_text())) == refresh.DERIVED.read_text()
    assert derived["sha256"] == NP_KF_SHA256 and NP_KF_SHA256[:12] in RULESET_VERSION
    assert derived["licence"] == "Apache-2.0"
    folder = ROOT / "assets" / "secret_rules"
    for name in ("LICENSE-noseyparker.txt", "LICENSE-kingfisher.txt"):
        assert "Apache License" in (folder / name).read_text()
    assert "Nosey Parker" in (folder / "NOTICE-noseyparker.txt").read_text()
    assert len(derived["rules"]) + len(derived["dropped"]) == len(
        refresh.PINNED.read_text().splitlines()
    )


@pytest.mark.parametrize(
    ("rust", "python"),
    [
        ("(?x)\n\\b ( aio_ [a-z ]{28} ) # the key\n\\b", r"\b(aio_[a-z]{28})\b"),  # class too
        ("(?x)(?i)\nkey \\  = (x)", r"(?i)key\ =(x)"),  # escaped space kept, flags merged
        ("(?xi) a (?# comment ) b", "(?i)ab"),
        ("(?<tok>x)$", r"(?P<tok>x)\Z"),
        ("(?m)^x$", "(?m)^x$"),
        ("(?x) k (?:.|[\\n\\r]){0,8}? (v)", r"k[\s\S]{0,8}?(v)"),
    ],
)
def test_rust_syntax_is_translated(rust: str, python: str) -> None:
    assert _refresh("refresh_np_kf_rules").rust_to_python(rust) == python


SAMPLES = [
    "aio_Q7x9m2Lk4N8p3R5t6V1w0Z2yAb3C is the adafruit key",
    "export CCIPAT_q7x9mLkabcdeZ2y123abCD4e5f6g_" + "a1b2c3d4e5" * 4,
    "cicero secret key: q7x9m2lk4n8p3r5t6v1w0z2yab3cd4ef5gh6ij7k",
    "postgres://dana:Pq8wLz2Rk5x@db.internal:5432/app",
    "User Id=app;Password=Pq8wLz2Rk5x;",
    "ghp_q7x9m2Lk4N8p3R5t6V1w0Z2yAb3Cd4Ef5Gh6 and xoxb-1234567890-abcdefghij",
]


def test_np_kf_translations_find_what_re2_finds_and_match_their_keywords() -> None:
    """RE2 reads Rust syntax but not verbose mode: it gets the pattern with the verbose whitespace
    taken out (the one step of the translation it cannot check). Every match of every rule holds
    one of the rule's keywords, or the prefilter would skip it."""
    re2 = pytest.importorskip("re2")
    import re

    refresh = _refresh("refresh_np_kf_rules")
    originals = {}
    for line in refresh.PINNED.read_text().splitlines():
        rule = json.loads(line)
        pattern = rule["pattern"]
        if "x" in "".join(refresh._FLAGS.findall(pattern)):
            pattern = refresh._FLAGS.sub(
                lambda m: f"(?{m.group(1).replace('x', '')})".replace("(?)", ""),
                refresh.strip_verbose(pattern),
            )
        originals[rule["id"]] = pattern
    checked = compared = 0
    for rule in (r for r in ruleset().rules if r.origin == "np_kf"):
        ours = re.compile(rule.source, re.ASCII)
        try:
            theirs = re2.compile(originals[rule.id])
        except re2.error:
            continue  # RE2 lacks something Rust has (a lookaround): the sample check still runs
        compared += 1
        for text in SAMPLES:
            mine = [m.span() for m in ours.finditer(text)]
            assert mine == [m.span() for m in theirs.finditer(text)], (rule.id, text)
            for start, end in mine:
                assert any(k in text[start:end].lower() for k in rule.keywords), rule.id
            checked += bool(mine)
    assert compared >= 850 and checked >= 6  # RE2 rejects repeats over 1,000 (`{20,1024}`)


def test_np_kf_rules_for_public_identifiers_are_left_out() -> None:
    loaded = ruleset()
    assert {"kingfisher.okta.2", "np.google.1", "kingfisher.snowflake.2"} <= set(loaded.excluded)
    assert "kingfisher.discord.1" not in loaded.excluded  # a webhook URL carries its secret
