"""Pairs of rules the corpus labels as the same rule said in other words, or as different rules,
for the near-duplicate merge of admission (store/near_duplicates.py).

    python tests/corpus/extraction/same_rule.py      # writes same_rule.jsonl (deterministic)

A pair is two labelled statements of one user, as typed (the label's `evidence`), at one scope:
- `same: true`: one gold statement, typed in two different ways (often in both hosts), or
  typed once and worded as the reviewer's statement (`restated`);
- `same: false, hard: true`: one template family, another value ("deployed to a Hetzner box" /
  "deployed to AWS ECS"): the wording is nearly the same and the rule is not;
- `same: false, hard: false`: two rules of the same workspace from different families.
A pair's split is the split of its messages (families never cross splits), so a threshold tuned
on `dev` pairs is measured on `test` pairs it never saw.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

from labelled_corpus import HERE, load

PAIRS = HERE / "same_rule.jsonl"
SEED = 12
PER_GROUP = 3  # pairs of each type drawn from one family at one scope


def _labelled() -> list[dict]:
    rows = []
    for message in load():
        for label in message["labels"]:
            if not label.get("evidence"):
                continue
            rows.append(
                {
                    "text": label["evidence"],
                    "statement": label["statement"],
                    "host": message["host"],
                    "group": message["group"],
                    "split": message["split"],
                    "workspace": None if label["scope"] == "global" else message["workspace"],
                }
            )
    return rows


def build() -> list[dict]:
    by_scope: dict[tuple, list[dict]] = defaultdict(list)
    for row in _labelled():
        by_scope[(row["split"], row["workspace"])].append(row)
    pairs: list[dict] = []
    for (split, workspace), rows in sorted(
        by_scope.items(), key=lambda item: (item[0][0], item[0][1] or "")
    ):
        # one generator per split and workspace: messages added to train or dev never reshuffle
        # the test split's pairs
        rng = random.Random(f"{SEED}:{split}:{workspace}")
        families: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            families[row["group"]].append(row)
        for group in sorted(families):
            members = families[group]
            same = [
                (a, b)
                for i, a in enumerate(members)
                for b in members[i + 1 :]
                if a["statement"] == b["statement"] and a["text"].casefold() != b["text"].casefold()
            ]
            other_value = [
                (a, b)
                for i, a in enumerate(members)
                for b in members[i + 1 :]
                if a["statement"] != b["statement"] and _plain(a["text"]) != _plain(b["text"])
            ]
            strangers = [
                (a, b)
                for a in members
                for b in rows
                if b["group"] != group and _plain(a["text"]) != _plain(b["text"])
            ]
            # the rule as typed and as a reviewer would word it: the same rule in other words
            restated = [
                (a, {**a, "text": a["statement"]})
                for a in members
                if _plain(a["statement"]) != _plain(a["text"])
            ]
            for kind, pool, count in (
                ("paraphrase", same, PER_GROUP),
                ("restated", restated, 1),
                ("other_value", other_value, PER_GROUP),
                ("other_rule", strangers, 1),
            ):
                for a, b in rng.sample(pool, min(count, len(pool))):
                    pairs.append(
                        {
                            "split": split,
                            "same": kind in ("paraphrase", "restated"),
                            "hard": kind == "other_value",
                            "kind": kind,
                            "a": _side(a),
                            "b": _side(b),
                        }
                    )
    for index, pair in enumerate(pairs):
        pair["id"] = f"sr{index:05d}"
    return pairs


def _plain(text: str) -> str:
    return " ".join(text.casefold().strip(" .!?").split())


def _side(row: dict) -> dict:
    return {"text": row["text"], "host": row["host"], "workspace": row["workspace"]}


def load_pairs(split: str | None = None, path: Path = PAIRS) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        pairs = [json.loads(line) for line in fh if line.strip()]
    return [p for p in pairs if split is None or p["split"] == split]


if __name__ == "__main__":
    built = build()
    with open(PAIRS, "w", encoding="utf-8") as fh:
        for pair in built:
            fh.write(json.dumps(pair, ensure_ascii=False, sort_keys=True) + "\n")
    counts = defaultdict(int)
    for pair in built:
        counts[(pair["split"], pair["kind"])] += 1
    print(
        f"{len(built)} pairs -> {PAIRS.name}: "
        + ", ".join(f"{k[0]}/{k[1]} {v}" for k, v in sorted(counts.items()))
    )
