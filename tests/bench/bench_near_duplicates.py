"""Near-duplicate merging (store/near_duplicates.py) on the pairs the corpus labels as the same
rule or not (tests/corpus/extraction/same_rule.jsonl), per split, against two baselines measured
in the same run: exact content-key equality (what admission merged before) and a plain Jaccard
of content words at the same threshold. The threshold was chosen on dev (and train) pairs; the
test pairs are reported.

    python tests/bench/bench_near_duplicates.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[0] / "corpus" / "extraction"))
from benchlib import write_result  # noqa: E402
from extraction_corpus import wilson  # noqa: E402
from same_rule import load_pairs  # noqa: E402


def _pr(pairs: list[dict], same) -> dict:  # noqa: ANN001
    tp = fp = fn = hard_fp = 0
    for pair in pairs:
        said = same(pair["a"]["text"], pair["b"]["text"])
        if pair["same"]:
            tp += said
            fn += not said
        else:
            fp += said
            hard_fp += said and pair["hard"]
    return {
        "pairs": len(pairs),
        "same_pairs": tp + fn,
        "precision": round(tp / max(1, tp + fp), 4),
        "precision_95ci": wilson(tp, tp + fp),
        "recall": round(tp / max(1, tp + fn), 4),
        "recall_95ci": wilson(tp, tp + fn),
        "false_merges": fp,
        "false_merges_of_rivals": hard_fp,
    }


def main() -> int:
    from memvet.store.crypto import normalise_statement
    from memvet.store.same_rule import SAME_RULE, same_rule
    from memvet.store.subjects import content_words

    def exact(a: str, b: str) -> bool:
        return normalise_statement(a) == normalise_statement(b)

    def jaccard(a: str, b: str) -> bool:
        wa, wb = content_words(a), content_words(b)
        return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= SAME_RULE

    start = time.perf_counter()
    figures: dict = {"threshold": SAME_RULE}
    for split in ("train", "dev", "test"):
        pairs = load_pairs(split)
        figures[split] = {
            "ours": _pr(pairs, same_rule),
            "baseline_exact_key": _pr(pairs, exact),
            "baseline_plain_jaccard": _pr(pairs, jaccard),
        }
    test = figures["test"]
    figures["test_recall_vs_exact_key"] = round(
        test["ours"]["recall"] / max(1e-9, test["baseline_exact_key"]["recall"]), 2
    )
    figures["seconds"] = round(time.perf_counter() - start, 2)
    write_result(
        "near_duplicates",
        figures,
        notes="Pairs from tests/corpus/extraction/same_rule.jsonl (built by same_rule.py from the "
        "corpus labels): same = one gold rule typed twice or typed and restated; not same = "
        "another value of one template (rivals) or another rule of the same workspace. "
        "Threshold chosen on train/dev pairs; test pairs reported. The pairs come from "
        "template families, so wording varies less than between real sessions.",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
