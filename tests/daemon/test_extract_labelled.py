"""Our own labelled set (tests/daemon/data, hand-written): 32 realistic user turns replayed in
both host formats, run through the whole pipeline. Minimum precision and recall are asserted;
the third-party measurement is tests/bench/bench_extraction.py."""

from __future__ import annotations

import json

import pytest

from .conftest import DATA, run_pipeline

LABELS = json.loads((DATA / "labelled_turns.json").read_text())["turns"]
FILES = {
    "claude-code": ("labelled_claude.jsonl", "claude_line"),
    "codex": ("labelled_codex.jsonl", "codex_line"),
}


def _match(draft, label) -> bool:
    return label["contains"].lower() in draft.statement.lower()


def _score(host: str) -> dict:
    name, line_key = FILES[host]
    drafts, pipeline = run_pipeline(host, DATA / name)
    by_line: dict[int, list] = {}
    for draft in drafts:
        by_line.setdefault(draft.evidence.line, []).append(draft)
    tp = fp = fn = kind_ok = 0
    problems = []
    lines_with_labels = {t[line_key] for t in LABELS}
    for turn in LABELS:
        found = by_line.get(turn[line_key], [])
        for label in turn["expected"]:
            hits = [d for d in found if _match(d, label)]
            if not hits:
                fn += 1
                problems.append(("missed", turn["id"], label["contains"]))
                continue
            tp += 1
            draft = hits[0]
            kind_ok += draft.kind in label["kind"].split("|")
            if "polarity" in label:
                assert draft.polarity == label["polarity"], (turn["id"], draft)
            if "supersedes" in label:
                assert (
                    draft.supersedes_hint is not None
                    and label["supersedes"].lower() in draft.supersedes_hint.lower()
                )
            if label.get("global"):
                assert draft.scope.workspace is None, (turn["id"], draft.scope)
        extra = [d for d in found if not any(_match(d, lab) for lab in turn["expected"])]
        fp += len(extra)
        problems += [("unexpected", turn["id"], d.statement) for d in extra]
    stray = [d for d in drafts if d.evidence.line not in lines_with_labels]
    fp += len(stray)
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "kind_ok": kind_ok,
        "problems": problems,
        "drafts": drafts,
        "stats": pipeline.stats,
    }


@pytest.mark.parametrize("host", list(FILES))
def test_labelled_turns_precision_and_recall(host: str) -> None:
    score = _score(host)
    precision = score["tp"] / max(1, score["tp"] + score["fp"])
    recall = score["tp"] / max(1, score["tp"] + score["fn"])
    assert precision >= 0.9, score["problems"]
    assert recall >= 0.8, score["problems"]
    assert score["kind_ok"] >= 0.8 * score["tp"]


@pytest.mark.parametrize("host", list(FILES))
def test_labelled_transcripts_hold_no_leaks(host: str) -> None:
    score = _score(host)
    assert score["stats"].errors == 0 and score["stats"].skipped_lines == 0
    for draft in score["drafts"]:
        assert (
            draft.source_type == "explicit_user"
        )  # assistant text ("always use pnpm") never counts
        assert "hunter2" not in draft.statement and "hunter2" not in draft.evidence.excerpt
        assert (
            "From now on I will" not in draft.statement
            and "nothing to commit" not in draft.statement
        )


def test_both_formats_agree() -> None:
    claude = sorted(d.statement for d in _score("claude-code")["drafts"])
    codex = sorted(d.statement for d in _score("codex")["drafts"])
    assert claude == codex
