"""The third look's keep line, checked on more than dev (train.py calls it).

Dev holds few sentences that no rule judged (a few dozen in the corpus), too few to set a line on
alone: the line is also held to the precision of the third look's own candidates out of fold on
train (folds by phrasing family, so a family is never scored by a model that saw it), pooled with
dev. The shipped line is the higher of the two: dev's best mean F1 and the pooled floor.
"""

from __future__ import annotations

from hashlib import sha256

FOLDS = 5
# Precision of the third look's own candidates, pooled out-of-fold + dev. Overall dev precision
# stays >= 0.9 through dev's own line (train.py); at 0.9 here the third look found 1 label in 6
# out of fold, at 0.8 about 1 in 2 (training.json, third_look_pooled).
MARGINAL_FLOOR = 0.8
MIN_KEPT = 10  # a line that keeps fewer pooled candidates than this says nothing
GRID = [t / 100 for t in range(30, 99, 2)]


def fold_of(group: str) -> int:
    return int(sha256(group.encode()).hexdigest(), 16) % FOLDS


def out_of_fold(train, group_of, build, fit, weights_of) -> list[tuple[float, bool]]:
    """(probability, holds a label) of every third-look sample of train, each scored by a model
    fitted on the other folds."""
    pairs: list[tuple[float, bool]] = []
    for k in range(FOLDS):
        fitted = [s for s in train if fold_of(group_of(s)) != k]
        held = [s for s in train if fold_of(group_of(s)) == k and s.third]
        if not held:
            continue
        model = fit(build(fitted), [s.label is not None for s in fitted], weights_of(fitted))
        probs = model.predict_proba(build(held))[:, 1]
        pairs += [(float(p), s.label is not None) for p, s in zip(probs, held, strict=True)]
    return pairs


def pooled_floor(pairs: list[tuple[float, bool]]) -> dict:
    """The lowest line at which the pooled third-look candidates are precise enough."""
    positives = sum(positive for _, positive in pairs)
    for w in GRID:
        kept = [positive for p, positive in pairs if p >= w]
        if len(kept) >= MIN_KEPT and sum(kept) / len(kept) >= MARGINAL_FLOOR:
            return {
                "line": w,
                "candidates": len(pairs),
                "positives": positives,
                "kept": len(kept),
                "precision": round(sum(kept) / len(kept), 4),
                "recall": round(sum(kept) / max(1, positives), 4),
            }
    return {"line": 2.0, "candidates": len(pairs), "positives": positives}
