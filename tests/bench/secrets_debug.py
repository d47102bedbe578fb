"""Which detector touched which row: a debugging aid for tuning the redactor (not a benchmark).

Prints the adjudicated rows of ONE half of the `text` split that the redactor gets wrong: false
positives (not_secret rows changed) and misses, each with the marker kinds that fired per layer.
Tune on half 0 only; half 1 is the figure not looked at (bench_secrets.py `held_out`).

Run: .venv/bin/python tests/bench/secrets_debug.py [fp|missed] [--half 0] [--family NAME]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_secrets  # noqa: E402
from memvet.store.redaction import redact  # noqa: E402
from memvet.store.redaction.redact import redact_layers  # noqa: E402

_KIND = re.compile(r"\[REDACTED:([a-z0-9\-]+)\]")


def fired(text: str) -> dict[str, list[str]]:
    """Marker kinds per layer when the layers run alone."""
    return {
        name: _KIND.findall(fn(text).text)
        for name, fn in (
            ("rules", partial(redact_layers, own=False)),
            ("own", partial(redact_layers, rules=False)),
        )
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=("fp", "missed", "summary"))
    parser.add_argument("--half", type=int, default=0)
    parser.add_argument("--family")
    parser.add_argument("--width", type=int, default=300)
    args = parser.parse_args()
    rows = bench_secrets.adjudicated(bench_secrets.load_rows())
    oracles = bench_secrets.load_oracles()
    halves = bench_secrets.split_halves(rows)["text"]
    by_kind: Counter[str] = Counter()
    for index, row in enumerate(rows):
        if halves[index] != args.half or (args.family and row["family"] != args.family):
            continue
        result = redact(row["text"])
        if args.what == "summary":
            secret = row["text_label"] == "secret"
            hit = (
                bench_secrets.score_secret_row(row, result.text, result.changed, oracles)[0]
                if secret
                else result.changed
            )
            by_kind[("secret" if secret else "not_secret", hit)] += 1
            continue
        if args.what == "fp":
            if row["text_label"] == "secret" or not result.changed:
                continue
        else:
            if row["text_label"] != "secret":
                continue
            if bench_secrets.score_secret_row(row, result.text, result.changed, oracles)[0]:
                continue
        layers = fired(row["text"])
        by_kind.update(f"{layer}:{kind}" for layer, kinds in layers.items() for kind in set(kinds))
        print(f"== {row['id']} {row['rule_id']} {row['family']} {layers}")
        print("   IN :", row["text"][: args.width].replace("\n", "⏎"))
        print("   OUT:", result.text[: args.width].replace("\n", "⏎"))
    if args.what == "summary":  # the half's figures only: the other half stays unseen
        secret = by_kind[("secret", True)] + by_kind[("secret", False)]
        negative = by_kind[("not_secret", True)] + by_kind[("not_secret", False)]
        print(
            f"half {args.half}: recall {by_kind[('secret', True)] / secret:.4f} of {secret}, "
            f"fp {by_kind[('not_secret', True)] / negative:.4f} of {negative}"
        )
        return 0
    print(by_kind.most_common())
    return 0


if __name__ == "__main__":
    sys.exit(main())
