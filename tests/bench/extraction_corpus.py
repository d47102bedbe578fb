"""Extraction quality on the FROZEN TEST SPLIT of tests/corpus/extraction (never used for training
or tuning), with 95 % Wilson intervals, per kind and per host, duplicates, scope and reviewer
effort; baselines in the same run: every user sentence, a keyword rule, the rules alone.

Each message is replayed as a transcript in its host's format (the previous assistant turn, if
any, as an assistant line before it) and fed through `FilePipeline`. A draft holds a label when
it holds most of the label's evidence words (corpus.match); an adopted label is matched on the
proposal the draft was built from.
"""

from __future__ import annotations

import math
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "extraction"
sys.path.insert(0, str(CORPUS))
from labelled_corpus import KINDS, load, match, third_party_split  # noqa: E402, F401

_KEYWORD = re.compile(
    r"(?i)\b(?:always|never|don't|do not|must|prefer|should|from now on|we use)\b"
)


def wilson(hits: int, total: int) -> list[float]:
    if total == 0:
        return [0.0, 0.0]
    z, p = 1.96, hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _pr(tp_drafts: int, drafts: int, found: int, labels: int) -> dict:
    return {
        "drafts": drafts,
        "labels": labels,
        "precision": round(tp_drafts / max(1, drafts), 4),
        "precision_95ci": wilson(tp_drafts, drafts),
        "recall": round(found / max(1, labels), 4),
        "recall_95ci": wilson(found, labels),
    }


def _holds(statement: str, label: dict) -> bool:
    return match(statement, label["evidence"]) or (
        label["adopted"] and match(statement, label["statement"])
    )


def replay(message: dict, rules, build) -> list:
    from memvet.daemon.pipeline import FilePipeline

    turns = [("assistant", message["previous_assistant"])] if message["previous_assistant"] else []
    turns.append(("user", message["text"]))
    pipeline = FilePipeline(
        message["host"], f"/bench/{message['id']}.jsonl", rules=rules, user="bench"
    )
    drafts = []
    for n, line in enumerate(
        build[message["host"]](message["id"], f"/bench/{message['workspace']}", turns), 1
    ):
        drafts.extend(pipeline.feed(line, n))
    return [(d.statement, d.kind, d.scope.workspace is None) for d in drafts]


def score(messages: list[dict], outputs: list[list[tuple[str, str, bool]]]) -> dict:
    """outputs[i]: (statement, kind, user_global) per draft of messages[i]."""
    total = Counter()
    by_host: dict[str, Counter] = defaultdict(Counter)
    recall_kind: dict[str, list[int]] = {k: [0, 0] for k in KINDS}
    precision_kind: dict[str, list[int]] = {k: [0, 0] for k in KINDS}
    confusion = {k: dict.fromkeys(KINDS, 0) for k in KINDS}
    scope = Counter()
    for message, drafts in zip(messages, outputs, strict=True):
        labels = message["labels"]
        matched: set[int] = set()
        row = by_host[message["host"]]
        for statement, kind, user_global in drafts:
            # one label per draft: an unmatched label it holds first ("Secrets never go in X."
            # and "… in Y." share most words), a matched one only as a duplicate
            held = [i for i, lab in enumerate(labels) if _holds(statement, lab)]
            hit = next((i for i in held if i not in matched), held[0] if held else None)
            for counter in (total, row):
                counter["drafts"] += 1
                counter["tp_drafts"] += hit is not None
                counter["duplicates"] += hit is not None and hit in matched
            if kind in precision_kind:
                precision_kind[kind][1] += 1
                precision_kind[kind][0] += hit is not None
            if hit is None or hit in matched:
                continue
            matched.add(hit)
            label = labels[hit]
            confusion[label["kind"]][kind if kind in KINDS else "fact"] += 1
            wanted_global = label["scope"] == "global"
            scope["right"] += user_global == wanted_global
            scope["pairs"] += 1
            scope["global_labels"] += wanted_global
            scope["global_right"] += wanted_global and user_global
        for i, label in enumerate(labels):
            recall_kind[label["kind"]][0] += 1
            recall_kind[label["kind"]][1] += i in matched
            for counter in (total, row):
                counter["labels"] += 1
                counter["found"] += i in matched
    pairs = sum(sum(r.values()) for r in confusion.values())
    agree = sum(confusion[k][k] for k in KINDS)
    return {
        "overall": _pr(total["tp_drafts"], total["drafts"], total["found"], total["labels"]),
        "per_host": {
            h: _pr(c["tp_drafts"], c["drafts"], c["found"], c["labels"])
            for h, c in sorted(by_host.items())
        },
        "recall_per_label_kind": {
            k: {
                "labels": v[0],
                "recall": round(v[1] / max(1, v[0]), 4),
                "recall_95ci": wilson(v[1], v[0]),
            }
            for k, v in recall_kind.items()
        },
        "precision_per_predicted_kind": {
            k: {"drafts": v[1], "precision": round(v[0] / max(1, v[1]), 4)}
            for k, v in precision_kind.items()
        },
        "kind_agreement": round(agree / max(1, pairs), 4),
        "kind_agreement_95ci": wilson(agree, pairs),
        "kind_confusion_label_by_predicted": confusion,
        "duplicates_rate": round(total["duplicates"] / max(1, total["drafts"]), 4),
        "scope_right": round(scope["right"] / max(1, scope["pairs"]), 4),
        "user_global_right": round(scope["global_right"] / max(1, scope["global_labels"]), 4),
        "user_global_labels_found": scope["global_labels"],
        "reviewer_effort_queue_items_per_approved": round(
            total["drafts"] / max(1, total["found"]), 3
        ),
    }


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.split()) >= 3]


def bench_corpus_test(rules, build, split: str = "test") -> dict:
    from memvet.daemon.extraction.rules import load_rules

    messages = load(split)
    ours = score(messages, [replay(m, rules, build) for m in messages])
    with tempfile.TemporaryDirectory() as tmp:
        off = Path(tmp) / "rules.toml"
        off.write_text("[policy]\nlearned_scorer = false\n")
        rules_only = load_rules(str(off))
        alone = score(messages, [replay(m, rules_only, build) for m in messages])
    every = score(messages, [[(s, "fact", False) for s in _sentences(m["text"])] for m in messages])
    keyword = score(
        messages,
        [
            [(s, "fact", False) for s in _sentences(m["text"]) if _KEYWORD.search(s)]
            for m in messages
        ],
    )
    base = ours["overall"]
    return {
        "third_party": False,
        "split": split
        if split != "test"
        else "test (frozen; tests/corpus/extraction/test_split.sha256)",
        "messages": len(messages),
        "labels": sum(len(m["labels"]) for m in messages),
        "ours": ours,
        "baseline_rules_alone": alone["overall"]
        | {
            "kind_agreement": alone["kind_agreement"],
            "user_global_right": alone["user_global_right"],
        },
        "baseline_every_user_sentence": every["overall"],
        "baseline_keyword_rule": keyword["overall"],
        "precision_vs_every_sentence": round(
            base["precision"] / max(1e-9, every["overall"]["precision"]), 2
        ),
        "recall_vs_rules_alone": round(base["recall"] / max(1e-9, alone["overall"]["recall"]), 2),
    }
