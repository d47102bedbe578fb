"""The extractor's speed paths give what the plain ones give.

- Reject rules asked only once a kind or correction rule matched (`Extractor.reject_first`
  False, the default) give the same candidates, and the same vetoes to merge_clauses, as asking
  them first for every sentence: the corpus messages through both, and messages built so that
  a vetoed sentence (a framing one, or a clause glued to nothing) sits next to a candidate.
- run_on's first look, written to start at its space, finds a run-on start exactly where the
  straightforward pattern does.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from memvet.daemon.extraction import run_on
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.pipeline import load_rules

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "extraction" / "messages.jsonl"
BUILT = [
    "According to the README, deploys go through ./ship. Never push to main.",
    "If we ever move to gRPC, we'd rewrite the adapters. Always use uv here.",
    "Can you check the logs? We always use pnpm in this repo, not npm.",
    "Why does CI fail? Never commit secrets. Until the release, skip the e2e suite.",
    "Fix the failing test in tests/test_parser.py. Use ruff for linting, not flake8.",
    "continue",
]


def _messages() -> list[str]:
    with CORPUS.open(encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh]
    return BUILT + texts[:600]


def _extract_all(monkeypatch: pytest.MonkeyPatch, reject_first: bool) -> list[list]:
    monkeypatch.setattr(Extractor, "reject_first", reject_first)
    extractor = Extractor(load_rules())
    found = []
    for text in _messages():
        found.append(extractor.extract(text))
        found.append(
            [extractor.classify(s) for s in extractor.sentences(text)]
        )  # the public one-sentence verdict too
    return found


def test_asking_rejects_last_changes_no_candidate(monkeypatch: pytest.MonkeyPatch):
    first = _extract_all(monkeypatch, reject_first=True)
    last = _extract_all(monkeypatch, reject_first=False)
    assert last == first
    assert sum(map(len, first[::2])) > 100  # the messages do yield candidates


def test_a_vetoed_sentence_is_still_known_to_merge_clauses(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(Extractor, "reject_first", False)
    extractor = Extractor(load_rules())
    text = BUILT[0]
    found = extractor.extract(text)
    assert [f.statement for f in found] == ["Never push to main."]
    framing = extractor.sentences(text)[0]
    vetoed = extractor._rejected_by(framing)
    assert vetoed is not None and vetoed.name.startswith("reject.")


def test_the_run_on_first_look_finds_what_the_plain_pattern_finds():
    plain = re.compile(r"[a-z0-9`'\")\]] +(?:[MTNADPWOUSKJBTHI]|##)")
    rng = random.Random(3)
    alphabet = "abz09`'\")] MTNIX#.-\n\tA"
    texts = ["", " My", "a My", "x  The", "A  The", ") ##", "a\tMy", "b  ", *_messages()[:200]]
    texts += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(20000)
    ]
    found = 0
    for text in texts:
        expected = plain.search(text) is not None
        assert (run_on._RUN_ON_STARTS.search(text) is not None) == expected, repr(text)
        found += expected
    assert 0 < found < len(texts)


def test_remembered_feature_buckets_are_the_crc32_buckets():
    from zlib import crc32

    from memvet.daemon.extraction import features

    names = [f"w:{word}" for text in _messages()[:300] for word in text.split()]
    names += ["", "c:^ab", "b:<s>_never", "w:é", *names[:50]]  # repeats come from the memo
    expected: dict[int, float] = {}
    for name in names:
        index = crc32(name.encode()) & (features.BUCKETS - 1)
        expected[index] = expected.get(index, 0.0) + 1.0
    assert features.hashed(names) == expected
    assert list(features.hashed(names)) == list(expected)  # same order: the same float sums
    assert features.hashed(names) == expected  # and again, every name from the memo
