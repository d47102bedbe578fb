"""Redaction measured on third-party labels (../shared/benchdata/secrets, rows labelled by Nosey
Parker, Kingfisher, gitleaks and detect-secrets). The thresholds guard against regressions; the
full figures are in docs/benchmarks/secrets.json (tests/bench/bench_secrets.py)."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from memvet.daemon.redact import redact

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_secrets.py"


_CACHE: dict[str, dict] = {}


@pytest.fixture
def scored(shared_dir: Path) -> dict:
    if "totals" not in _CACHE:
        _CACHE["totals"] = _score(shared_dir)
    return _CACHE["totals"]


def _score(shared: Path) -> dict:
    data = shared / "benchdata" / "secrets" / "secrets_labelled.jsonl.gz"
    if not data.is_file():
        pytest.skip("labelled secrets not available")
    sys.path.insert(0, str(BENCH.parent))
    spec = importlib.util.spec_from_file_location("bench_secrets_for_tests", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    oracles = bench.load_oracles()
    totals = {"secret": 0, "caught": 0, "negative": 0, "touched": 0, "families": {}}
    with gzip.open(data, "rt") as fh:
        for line in fh:
            row = json.loads(line)
            result = redact(row["text"])
            if row["text_label"] == "secret":
                caught, _ = bench.score_secret_row(row, result.text, result.changed, oracles)
                totals["secret"] += 1
                totals["caught"] += caught
                family = totals["families"].setdefault(row["family"], [0, 0])
                family[0] += 1
                family[1] += caught
            else:
                totals["negative"] += 1
                totals["touched"] += result.changed
    return totals


def test_recall_on_secret_rows(scored: dict) -> None:
    assert scored["secret"] > 2000
    assert scored["caught"] / scored["secret"] >= 0.86


def test_false_positive_rate_on_not_secret_rows(scored: dict) -> None:
    assert scored["touched"] / scored["negative"] <= 0.33


@pytest.mark.parametrize("family", ["github", "gitlab", "slack", "stripe", "jwt", "azure", "connection_string"])
def test_recall_per_key_family(scored: dict, family: str) -> None:
    total, caught = scored["families"][family]
    assert caught / total >= 0.88, (family, caught, total)
