"""Learning from the reviewer, with a simulated reviewer on the frozen test split.

    python tests/bench/bench_learning.py [--split dev]

The split's messages are dealt (fixed seed) into ten folds; each fold is held out once while
the reviewer goes through the other nine in order, as the queue would show them: each queued draft (the
real pipeline, with the scorer adapted to the decisions made so far) is approved when it holds a
labelled rule (the corpus's own matching) and rejected otherwise, and every decision teaches the
model (daemon/extraction/reviewer.py) exactly as the daemon learns it. Precision and recall of
the held-out fold are measured after 0, 50 and 200 decisions, pooled over the folds, in one run. The learning
rate and shrinkage were chosen on the dev split (`--split dev`); the test figures are reported.

Writes docs/benchmarks/learning.json and the `reviewer_learning` key of extraction.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_extraction import claude_lines, codex_lines  # noqa: E402
from benchlib import OUT_DIR, write_result  # noqa: E402
from extraction_corpus import _holds, load, wilson  # noqa: E402

CHECKPOINTS = (0, 50, 200)
SEED = 12
FOLDS = 10
BUILD = {"claude-code": claude_lines, "codex": codex_lines}


def _drafts(message: dict, rules, scorer) -> list:  # noqa: ANN001
    from memvet.daemon.pipeline import FilePipeline

    turns = [("assistant", message["previous_assistant"])] if message["previous_assistant"] else []
    turns.append(("user", message["text"]))
    pipeline = FilePipeline(
        message["host"], f"/bench/{message['id']}.jsonl", rules=rules, user="bench", scorer=scorer
    )
    drafts = []
    for n, line in enumerate(
        BUILD[message["host"]](message["id"], f"/bench/{message['workspace']}", turns), 1
    ):
        drafts.extend(pipeline.feed(line, n))
    return drafts


def _tally(messages: list[dict], rules, scorer) -> list[int]:  # noqa: ANN001
    """[drafts, drafts holding a label, labels, labels found] over `messages`."""
    drafts = kept = found = labels = 0
    for message in messages:
        matched: set[int] = set()
        for draft in _drafts(message, rules, scorer):
            drafts += 1
            hit = next(
                (i for i, lab in enumerate(message["labels"]) if _holds(draft.statement, lab)), None
            )
            kept += hit is not None
            if hit is not None:
                matched.add(hit)
        labels += len(message["labels"])
        found += len(matched)
    return [drafts, kept, labels, found]


def _figures(counts: list[int]) -> dict:
    drafts, kept, labels, found = counts
    return {
        "drafts": drafts,
        "precision": round(kept / max(1, drafts), 4),
        "precision_95ci": wilson(kept, drafts),
        "recall": round(found / max(1, labels), 4),
        "recall_95ci": wilson(found, labels),
    }


def _fold(
    stream: list[dict], held_out: list[dict], rules, base
) -> tuple[dict[int, list[int]], int]:  # noqa: ANN001
    """Review `stream` in order; tally `held_out` at each checkpoint (the last one with what
    was made, if the stream ran out first)."""
    from memvet.daemon.extraction.reviewer import AdaptedScorer, ReviewerModel

    model, decisions = ReviewerModel(), 0
    tallies: dict[int, list[int]] = {}
    todo = list(CHECKPOINTS)
    for message in stream:
        while todo and decisions >= todo[0]:
            tallies[todo.pop(0)] = _tally(
                held_out, rules, AdaptedScorer(base, model) if model.weights else None
            )
        if not todo:
            break
        scorer = AdaptedScorer(base, model) if model.weights else None
        for draft in _drafts(message, rules, scorer):
            model.learn(
                base,
                draft.statement,
                draft.reasons,
                any(_holds(draft.statement, lab) for lab in message["labels"]),
            )
            decisions += 1
    for left in todo:
        tallies[left] = _tally(
            held_out, rules, AdaptedScorer(base, model) if model.weights else None
        )
    return tallies, decisions


def bench_reviewer_learning(split: str = "test") -> dict:
    """Ten folds of the split: each fold is held out once while the other nine are reviewed;
    the held-out tallies are pooled, so every message is measured once per checkpoint."""
    from memvet.daemon.extraction.reviewer import SHRINK, STEP
    from memvet.daemon.extraction.scorer import default_scorer
    from memvet.daemon.pipeline import load_rules

    rules, base = load_rules(), default_scorer()
    messages = load(split)
    random.Random(SEED).shuffle(messages)
    folds = [messages[i::FOLDS] for i in range(FOLDS)]
    pooled = {c: [0, 0, 0, 0] for c in CHECKPOINTS}
    made = []
    for k, held_out in enumerate(folds):
        stream = [m for i, fold in enumerate(folds) if i != k for m in fold]
        tallies, decisions = _fold(stream, held_out, rules, base)
        made.append(decisions)
        for checkpoint, counts in tallies.items():
            pooled[checkpoint] = [a + b for a, b in zip(pooled[checkpoint], counts, strict=True)]
    after = {str(c): _figures(pooled[c]) for c in CHECKPOINTS}
    first, last = after["0"], after[str(CHECKPOINTS[-1])]
    return {
        "split": split,
        "messages": len(messages),
        "folds": FOLDS,
        "step": STEP,
        "shrink": SHRINK,
        "decisions_per_fold_min": min(made),
        "decisions_per_fold_max": max(made),
        "precision_after_decisions": {k: v["precision"] for k, v in after.items()},
        "held_out_after_decisions": after,
        "precision_ratio_200_vs_0": round(last["precision"] / max(1e-9, first["precision"]), 3),
        "recall_ratio_200_vs_0": round(last["recall"] / max(1e-9, first["recall"]), 3),
    }


def _merge_into_extraction(figures: dict) -> None:
    """Keep the key in extraction.json beside bench_extraction's figures (which carries it over)."""
    path = OUT_DIR / "extraction.json"
    if not path.is_file():
        return
    doc = json.loads(path.read_text())
    doc.setdefault("figures", {})["reviewer_learning"] = figures
    path.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="test", choices=("dev", "test"))
    args = parser.parse_args()
    start = time.perf_counter()
    figures = bench_reviewer_learning(args.split)
    figures["seconds"] = round(time.perf_counter() - start, 1)
    if args.split == "dev":  # tuning runs are printed, never written
        print(json.dumps(figures, indent=2))
        return 0
    write_result(
        "learning",
        figures,
        notes="Simulated reviewer on the frozen test split of tests/corpus/extraction, ten folds: nine "
        "are reviewed in order (approve = the draft holds a labelled rule), the tenth is held out "
        "and measured after 0, 50 and 200 decisions; held-out counts pooled over the folds. Step and shrinkage were "
        "chosen on the dev split. The reviewer is the corpus's labels, one 'user' for the "
        "whole split: a real user's decisions are noisier and narrower.",
    )
    _merge_into_extraction(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
