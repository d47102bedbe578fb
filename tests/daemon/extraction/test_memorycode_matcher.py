"""How tests/bench/bench_extraction.py credits a draft with a MemoryCode topic. The strict matcher
(60 % of the topic's content words) missed correct drafts whose wording of the topic's frame
differs ("for task management" for "as the project management tool"); `topic_matches` also
credits a draft that holds what tells the topic apart from its sibling variants in topics.json,
and still refuses a sibling's draft."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_extraction.py"


_CACHE: dict[str, object] = {}


@pytest.fixture
def bench(shared_dir: Path):
    if "bench" in _CACHE:
        return _CACHE["bench"]
    if not (shared_dir / "benchdata" / "memorycode" / "topics.json").is_file():
        pytest.skip("MemoryCode topics not available")
    sys.path.insert(0, str(BENCH.parent))
    spec = importlib.util.spec_from_file_location("bench_extraction_for_tests", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _CACHE["bench"] = module
    return module


JIRA = "use Jira as the project management tool"
DRAFT = "Going forward, I'd like you to use Jira instead of Trello for task management."


def test_the_strict_matcher_missed_a_correct_draft(bench) -> None:
    assert not bench.matches(DRAFT, JIRA)


def test_a_draft_that_names_the_variant_is_credited(bench) -> None:
    pivots = bench.memorycode_pivots()
    assert pivots[JIRA] == {"jira"}
    assert bench.topic_matches(DRAFT, JIRA, pivots)
    assert bench.topic_matches(
        "We primarily use Skype for business communications.", "use Skype for video calls", pivots
    )


def test_a_sibling_variant_or_a_missing_quoted_token_is_not_credited(bench) -> None:
    pivots = bench.memorycode_pivots()
    assert not bench.topic_matches(DRAFT, "use Asana as the project management tool", pivots)
    # variants that differ only by always/never have no pivot: the strict rule decides
    assert not pivots["never use a virtual environment"]
    assert not bench.topic_matches(
        "For function names, we always start them with a specific prefix.",
        "always start function names with 'b_'",
        pivots,
    )
