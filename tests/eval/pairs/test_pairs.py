"""The conflict-detection pairs (tests/eval/pairs/pairs.py): the frozen test split and the set's
own shape. The detection figures are measured by tests/bench/bench_conflicts.py."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pairs  # noqa: E402
from dev_pairs import DEV_PAIRS  # noqa: E402


def test_the_test_split_is_frozen():
    frozen = json.loads(pairs.SPLIT_FILE.read_text())
    drawn = sorted(p for p, part in pairs.draw_split().items() if part == "test")
    assert frozen["key"] == pairs.SPLIT_KEY and frozen["test"] == drawn
    assert pairs.fingerprint(frozen["test"]) == frozen["sha256"], (
        "a test pair changed; the test split is frozen (add new pairs at the end instead)"
    )


def test_the_fingerprint_sees_a_relabelled_pair(monkeypatch):
    frozen = json.loads(pairs.SPLIT_FILE.read_text())
    index = int(frozen["test"][0][1:])
    changed = list(pairs.PAIRS)
    cat, label, a, b = changed[index]
    changed[index] = (cat, "compatible" if label == "rival" else "rival", a, b)
    monkeypatch.setattr(pairs, "PAIRS", tuple(changed))
    assert pairs.fingerprint(frozen["test"]) != frozen["sha256"]


def test_no_dev_pair_repeats_a_test_pair():
    # a test pair copied into dev would be tuned on; only the count is shown, never the pair
    def key(pair):
        return frozenset(side[0].strip().lower() for side in pair[2:])

    split = pairs.draw_split()
    test = {key(p) for i, p in enumerate(pairs.PAIRS) if split[pairs.pair_id(i)] == "test"}
    repeated = sum(key(p) in test for p in DEV_PAIRS)
    assert repeated == 0, f"{repeated} dev pairs repeat a test pair"


def test_both_labels_and_every_rival_category_are_present():
    labels = Counter(label for _, label, _, _ in pairs.PAIRS)
    assert labels["rival"] >= 35 and labels["compatible"] >= 35
    rival_kinds = {cat for cat, label, _, _ in pairs.PAIRS if label == "rival"}
    assert {"negation", "number", "version", "tool", "path"} <= rival_kinds
    for _, _, *sides in pairs.PAIRS + DEV_PAIRS:
        for statement, kind, polarity in sides:
            assert (
                statement
                and kind in ("fact", "procedure", "constraint", "decision", "preference")
                and polarity in ("assert", "deny")
            )


def test_the_dev_only_pairs_are_labelled_and_never_drawn_into_test():
    labels = Counter(label for _, label, _, _ in DEV_PAIRS)
    assert set(labels) == {"rival", "compatible"} and labels["compatible"] >= 80
    assert len(pairs.draw_split()) == len(pairs.PAIRS)  # the frozen draw covers PAIRS only
