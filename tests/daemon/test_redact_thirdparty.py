"""Redaction measured on third-party labels (../shared/benchdata/secrets, rows labelled by Nosey
Parker, Kingfisher, gitleaks and detect-secrets), scored exactly as tests/bench/bench_secrets.py
scores them. The thresholds guard against regressions a little below the measured figures (see
docs/benchmarks/secrets.json); the issue's targets (adjudicated recall >= 0.99, fp <= 0.03) are
not met and the bench says why."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from memvet.store.redaction import redact

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_secrets.py"
_CACHE: dict[str, object] = {}


@pytest.fixture
def tally(shared_dir: Path):
    if "tally" not in _CACHE:
        if not (shared_dir / "benchdata" / "secrets" / "secrets_labelled.jsonl.gz").is_file():
            pytest.skip("labelled secrets not available")
        sys.path.insert(0, str(BENCH.parent))
        spec = importlib.util.spec_from_file_location("bench_secrets_for_tests", BENCH)
        bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench)
        rows, oracles = bench.load_rows(), bench.load_oracles()
        _CACHE["tally"] = bench.score(redact, rows, oracles)["tally"]
        _CACHE["adjudicated"] = bench.score(redact, bench.adjudicated(rows), oracles)["tally"]
    return _CACHE["tally"]


@pytest.fixture
def adjudicated(tally):  # noqa: ARG001 - computed with it
    return _CACHE["adjudicated"]


def test_adjudicated_recall_and_false_positives(adjudicated) -> None:
    """Against the written policy (tests/corpus/secrets/adjudicated.tsv); the issue's targets
    (0.99, 0.03) are not met, these guard the measured 0.964 / 0.065 against regressions, and
    0.953 / 0.117 on the text split's half 1, which the tuning rounds did not look at."""
    overall = adjudicated.figures("all")
    assert overall["recall"] >= 0.955 and overall["fp_rate"] <= 0.075, overall
    unseen = adjudicated.figures("split:text:1")
    assert unseen["recall"] >= 0.93 and unseen["fp_rate"] <= 0.13, unseen


def test_recall_and_false_positives_overall(tally) -> None:
    overall = tally.figures("all")
    assert overall["secret_rows"] > 2000 and overall["not_secret_rows"] > 500
    assert overall["recall"] >= 0.86  # measured 0.870 (0.877 before the policy's placeholders)
    assert overall["fp_rate"] <= 0.235  # measured 0.211; 0.31 before the rewrite


@pytest.mark.parametrize("split", ["text", "rule_group"])
def test_held_out_half_is_as_good_as_the_tuned_half(tally, split: str) -> None:
    """Tuned on half 0 of both splits: a held-out half much worse than its tuned half means overfit."""
    tuned, held_out = tally.figures(f"split:{split}:0"), tally.figures(f"split:{split}:1")
    assert held_out["recall"] >= tuned["recall"] - 0.03
    assert held_out["fp_rate"] <= 0.27


@pytest.mark.parametrize(
    "subset", ["gitleaks_tps_fps", "gitleaks_generic_api_key", "detect_secrets_keyword_detector"]
)
def test_hard_negatives(tally, subset: str) -> None:
    figures = tally.figures(f"subset:{subset}")
    assert figures["fp_rate"] <= 0.30, figures
    assert figures["recall"] >= 0.90, figures


@pytest.mark.parametrize(
    ("family", "floor"),
    [
        ("github", 0.9),
        ("gitlab", 0.95),
        ("slack", 0.95),
        ("stripe", 0.95),
        ("jwt", 0.93),
        ("azure", 0.92),
        ("connection_string", 0.84),
        ("password_or_generic", 0.9),
    ],
)
def test_recall_per_key_family(tally, family: str, floor: float) -> None:
    figures = tally.figures(f"family:{family}")
    assert figures["recall"] >= floor, figures
