"""Conflict detection on labelled pairs of memories: docs/benchmarks/conflicts.json.

Coordination note (issue 13): the detector is 13A's slot logic in store/slots.py and store/claims.py —
two memories conflict when they fill one slot (equal normalised subjects, derived from statement and kind as
admission derives them) and `rivalry` finds a negation or a different value. Pairs are in
tests/eval/pairs/pairs.py (dev and a frozen test split, reported apart) and dev_pairs.py (dev only). Figures: recall on
rival pairs, false-conflict rate on compatible pairs, per category; the in-run baseline is
"every pair whose subjects match is a conflict" (what a detector without value comparison does).
Targets: recall >= 0.95, false conflicts <= 0.05.

    python tests/bench/bench_conflicts.py
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "eval" / "pairs"))
from benchlib import write_result  # noqa: E402

TARGETS = {"rival_recall": (">=", 0.95), "false_conflict_rate": ("<=", 0.05)}


def detect(a: tuple[str, str, str], b: tuple[str, str, str]) -> tuple[bool, bool]:
    """(same slot, conflict) for two memories of one scope, as admission would see them."""
    from memvet.store.claims import claim_of, rivalry
    from memvet.store.slots import derive_subject, normalise_subject

    subjects = [derive_subject(statement, kind) for statement, kind, _ in (a, b)]
    same = normalise_subject(subjects[0]) == normalise_subject(subjects[1])
    if not same:
        return False, False
    claims = [
        claim_of(s, polarity, subject)
        for (s, _, polarity), subject in zip((a, b), subjects, strict=True)
    ]
    return True, rivalry(claims[0], claims[1], a[1], b[1]) is not None


def ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def score(chosen: list[tuple[str, tuple]]) -> dict:
    found = defaultdict(lambda: [0, 0])  # category -> [flagged, pairs]
    totals = {"rival": [0, 0, 0], "compatible": [0, 0, 0]}  # [flagged, same-slot, pairs]
    missed, false = [], []
    for pid, (category, label, a, b) in chosen:
        same, conflict = detect(a, b)
        found[category][0] += conflict
        found[category][1] += 1
        totals[label][0] += conflict
        totals[label][1] += same
        totals[label][2] += 1
        if label == "rival" and not conflict:
            missed.append(f"{pid}: {a[0]} | {b[0]}")
        if label == "compatible" and conflict:
            false.append(f"{pid}: {a[0]} | {b[0]}")
    rival, compatible = totals["rival"], totals["compatible"]
    figures = {
        "pairs": len(chosen),
        "rival_pairs": rival[2],
        "compatible_pairs": compatible[2],
        "rival_recall": ratio(rival[0], rival[2]),
        "false_conflict_rate": ratio(compatible[0], compatible[2]),
        "baseline_same_subject_recall": ratio(rival[1], rival[2]),
        "baseline_same_subject_false_rate": ratio(compatible[1], compatible[2]),
        "flagged_share_per_category": {c: ratio(f, n) for c, (f, n) in sorted(found.items())},
        "missed_rivals": missed,
        "false_conflicts": false,
    }
    figures["targets_met"] = {
        "rival_recall": (figures["rival_recall"] or 0) >= TARGETS["rival_recall"][1],
        "false_conflict_rate": (figures["false_conflict_rate"] or 0)
        <= TARGETS["false_conflict_rate"][1],
    }
    return figures


def held_out(figures: dict) -> dict:
    """Figures that include test pairs list no pair texts or ids: reading them would be tuning
    on the frozen split. Only the counts stay."""
    for key in ("missed_rivals", "false_conflicts"):
        figures[key] = len(figures[key])
    return figures


def main() -> None:
    import pairs
    from dev_pairs import DEV_PAIRS

    split = pairs.draw_split()
    by_part = {
        part: [
            (pairs.pair_id(i), p)
            for i, p in enumerate(pairs.PAIRS)
            if split[pairs.pair_id(i)] == part
        ]
        for part in ("dev", "test")
    }
    # Pairs added after the split was frozen are dev only (tests/eval/pairs/dev_pairs.py).
    by_part["dev"] += [(f"d{i:03d}", p) for i, p in enumerate(DEV_PAIRS)]
    figures = {
        "dev": score(by_part["dev"]),
        "test": held_out(score(by_part["test"])),
        "all": held_out(score(by_part["dev"] + by_part["test"])),
    }
    write_result(
        "conflicts",
        figures,
        budgets={f"target_{k}": f"{op} {t}" for k, (op, t) in TARGETS.items()},
        notes=(
            "Pairs: tests/eval/pairs/pairs.py (dev split and frozen test split, "
            "reported apart; 'all' is both) and dev_pairs.py (dev only). Detector: "
            "store/slots.py (derive_subject, normalise_subject), store/claims.py (claim_of, "
            "rivalry) with "
            "store/slot_vocabulary.py. Baseline: "
            "every same-subject pair flagged."
        ),
    )
    for part in ("dev", "test"):
        f = figures[part]
        print(
            f"{part}: recall {f['rival_recall']} false {f['false_conflict_rate']} "
            f"(baseline {f['baseline_same_subject_recall']} / "
            f"{f['baseline_same_subject_false_rate']})"
        )


if __name__ == "__main__":
    main()
