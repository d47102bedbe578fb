"""The user-side evaluation's figures for bench_eval.py: both modes (end to end: the daemon's
ingest and a reviewer acting by provenance; oracle: the gold statements typed in), each split
(dev: what the relevance floor was calibrated on; test: frozen, never tuned on), and both views
(recall, the hook context text). Also the relevance comparison, measured on the dev split: the
synonym-expanded lexical relevance in use against a small embedding model shipped inside a PyPI
package (wordllama, weights in the wheel, run offline) and a blend of both, and the floor sweep
the calibration chose from."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import build  # noqa: E402
import runner  # noqa: E402
from score import Scorer  # noqa: E402

FLOORS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def home_of() -> dict[str, str | None]:
    return {
        m["id"]: None if m["global"] else m["workspace"].rsplit("/", 1)[1]
        for m in build.build_case()["memories"]
    }


def run_mode(workdir: Path, mode: str) -> tuple[dict[str, Any], dict[str, str]]:
    start = time.perf_counter()
    out = runner.run(workdir / mode, mode)
    questions, split = dict(build.question_ids()), build.draw_split()
    scorer = Scorer(questions, out["statuses"], home_of())
    figures: dict[str, Any] = {
        "seconds": round(time.perf_counter() - start, 1),
        "story_notes": len(out["notes"]),
    }
    for part in ("dev", "test"):
        answers = [a for a in out["answers"] if split[a["id"]] == part]
        for view in ("recall", "hook"):
            block = scorer.summarise(answers, view)
            if part == "test":  # held out: how many, never which (no one may study them)
                block["failing"] = len(block["failing"])
            else:
                block["failing"] = dict(list(block["failing"].items())[:40])
            figures[f"{part}_{view}"] = block
        # In-run baseline: a recall (and a hook) that never answers.
        silent = [{**a, "served": [], "hook_prompt": [], "hook_start": []} for a in answers]
        base = scorer.summarise(silent, "recall")
        figures[f"{part}_baseline_always_unknown"] = {
            k: base[k]
            for k in (
                "current_state_accuracy",
                "abstention_precision",
                "abstention_recall",
                "paraphrased_accuracy",
                "asof_accuracy",
            )
        }
    return figures, out["statuses"]


def _scope_of(question: Any, statuses: dict[str, str]) -> list[Any]:
    """The memories a question's scope holds at the end of the story (gold statements)."""
    from memvet.store.slots import derive_subject

    out = []
    for m in build.build_case()["memories"]:
        if statuses.get(m["id"]) != "active":
            continue
        if m["workspace"] is None or m["workspace"].endswith("/" + question.repo):
            out.append(
                SimpleNamespace(
                    id=m["id"],
                    statement=m["statement"],
                    subject=derive_subject(m["statement"], m["kind"]),
                    scope=SimpleNamespace(workspace=m["workspace"]),
                )
            )
    return out


def _load_wordllama() -> Any:
    """wordllama's packaged weights and tokenizer, never a download (the package looks for the
    tokenizer under a folder name it does not ship, so point its cache at the package)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import wordllama

    return wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )


def _grade(rows: list[tuple[Any, dict[str, float]]], floor: float) -> dict[str, float | None]:
    right = asked = tp = abstained = positives = para = para_n = 0
    for q, scores in rows:
        best = max(scores, key=scores.get) if scores else None
        answers = best is not None and scores[best] >= floor
        abstained += not answers
        if q.abstain:
            positives += 1
            tp += not answers
            continue
        asked += 1
        ok = answers and best in q.expect
        right += ok
        if "paraphrase" in q.tags:
            para_n += 1
            para += ok
    r = lambda a, b: round(a / b, 4) if b else None  # noqa: E731
    return {
        "current_state_accuracy": r(right, asked),
        "abstention_precision": r(tp, abstained),
        "abstention_recall": r(tp, positives),
        "paraphrased_accuracy": r(para, para_n),
    }


def relevance_comparison(statuses: dict[str, str]) -> dict[str, Any]:
    """Top-memory accuracy and abstention on the dev split's non-as-of questions, per method
    and floor, the scope being the gold active memories (ranking alone, no decision rules)."""
    from memvet.store.relevance import FLOOR, Relevance

    split = build.draw_split()
    dev = [q for qid, q in build.question_ids() if split[qid] == "dev" and "asof" not in q.tags]
    scopes = [(q, _scope_of(q, statuses)) for q in dev]
    lexical = [(q, Relevance(q.text, scope).scores()) for q, scope in scopes]
    methods: dict[str, Any] = {"lexical_synonyms": lexical}
    result: dict[str, Any] = {"questions": len(dev), "floor_in_use": FLOOR}
    try:
        start = time.perf_counter()
        model = _load_wordllama()
        result["wordllama_load_s"] = round(time.perf_counter() - start, 2)
        embed = [
            (q, {m.id: float(model.similarity(q.text, m.statement)) for m in scope})
            for q, scope in scopes
        ]
        methods["wordllama"] = embed
        methods["blend_lexical70_wordllama30"] = [
            (q, {k: 0.7 * lex[k] + 0.3 * emb[k] for k in lex})
            for (q, lex), (_, emb) in zip(lexical, embed, strict=True)
        ]
    except Exception as exc:  # noqa: BLE001 - the comparison is optional, its absence is said
        result["wordllama"] = f"not measured: {type(exc).__name__}"
    result["methods"] = {
        name: {f"floor_{round(f * 100):02d}": _grade(rows, f) for f in FLOORS}
        for name, rows in methods.items()
    }
    return result


def measure(workdir: Path) -> dict[str, Any]:
    e2e, _ = run_mode(workdir, "e2e")
    oracle, statuses = run_mode(workdir, "oracle")
    split = build.draw_split()
    return {
        "questions": len(split),
        "dev_questions": sum(p == "dev" for p in split.values()),
        "test_questions": sum(p == "test" for p in split.values()),
        "repositories": len(build.REPOS),
        "split_sha256": build.frozen_split()["sha256"],
        "end_to_end": e2e,
        "oracle": oracle,
        "relevance_comparison": relevance_comparison(statuses),
    }
