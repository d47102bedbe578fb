"""The extraction corpus (tests/corpus/extraction): its shape, its one split, and the frozen test
split. A change to the test split fails here: it is what the quality figures are measured on."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "extraction"
sys.path.insert(0, str(CORPUS))
from labelled_corpus import (  # noqa: E402
    FROZEN,
    KINDS,
    content,
    deal,
    digest,
    load,
    match,
    split_of,
    third_party_split,
)


def test_the_frozen_test_split_has_not_changed() -> None:
    assert digest(load("test")) == FROZEN.read_text().strip(), (
        "the test split changed; quality figures are only comparable on the frozen split"
    )


def test_a_changed_message_changes_the_digest() -> None:
    messages = load("test")
    edited = [dict(messages[0], text=messages[0]["text"] + " "), *messages[1:]]
    assert digest(edited) != digest(messages)


def test_generation_is_deterministic(tmp_path: Path) -> None:
    script = (
        f"import sys; sys.path.insert(0, {str(CORPUS)!r}); import json; from generate import build; "
        "print(json.dumps(build(), sort_keys=True))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=CORPUS
    )
    assert json.loads(done.stdout) == json.loads(
        "[" + ",".join(CORPUS.joinpath("messages.jsonl").read_text().split("\n")[:-1]) + "]"
    )


def test_shape_and_size() -> None:
    messages = load()
    assert len(messages) >= 2000
    assert len({m["id"] for m in messages}) == len(messages)
    assert {m["host"] for m in messages} == {"claude-code", "codex"}
    assert (
        sum(m["id"].startswith("hw-") for m in messages) >= 150
    )  # hand-written, not only templates
    for m in messages:
        assert m["split"] in ("train", "dev", "test") and m["text"]
        for label in m["labels"]:
            assert label["kind"] in KINDS and label["scope"] in ("workspace", "global")
            assert (
                label["polarity"] in ("assert", "deny") and label["statement"] and label["evidence"]
            )
            source = m["previous_assistant"] if label["adopted"] else m["text"]
            assert content(label["evidence"]) <= content(source), (m["id"], label["evidence"])


def test_every_split_holds_every_kind_and_hard_negatives() -> None:
    for split in ("train", "dev", "test"):
        messages = load(split)
        kinds = Counter(lab["kind"] for m in messages for lab in m["labels"])
        assert set(kinds) == set(KINDS) and min(kinds.values()) >= 20, (split, kinds)
        assert sum(not m["labels"] for m in messages) >= 150
        assert any(lab["scope"] == "global" for m in messages for lab in m["labels"])


def test_families_never_cross_splits() -> None:
    by_group: dict[str, set[str]] = {}
    for m in load():
        by_group.setdefault(m["group"], set()).add(m["split"])
    assert all(len(splits) == 1 for splits in by_group.values())


def test_split_functions_are_stable() -> None:
    assert [split_of(k) for k in ("hw-0001", "hw-0002", "hw-0003")] == [
        split_of("hw-0001"),
        split_of("hw-0002"),
        split_of("hw-0003"),
    ]
    dealt = deal([f"f{i}" for i in range(10)])
    assert Counter(dealt.values()) == {"train": 6, "dev": 2, "test": 2}
    assert third_party_split("memorycode", "dialogue_1.json") in ("train", "dev", "test")


@pytest.mark.parametrize(
    ("candidate", "evidence", "expected"),
    [
        ("Use pnpm, not npm.", "pnpm not npm", True),
        (
            "Never relative ones.",
            "My style everywhere is absolute imports, never relative ones.",
            False,
        ),  # a fragment
        ("Fix the flaky test in Makefile.", "pnpm not npm", False),
    ],
)
def test_matching(candidate: str, evidence: str, expected: bool) -> None:
    assert match(candidate, evidence) is expected
