"""Builds `messages.jsonl`: the templated messages (templates.py, slots.py) in many voices, plus
the hand-written ones (handwritten.txt). Deterministic (fixed seed); rerunning it must not change
the file, and the frozen test split is checked by tests/daemon/extraction/test_corpus.py.

Run: python tests/corpus/extraction/generate.py
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from handwritten import read_handwritten  # noqa: E402
from labelled_corpus import deal, split_of  # noqa: E402
from slots import WORKSPACES  # noqa: E402
from templates import (  # noqa: E402
    ACK_REPLIES,
    ADOPT_REPLIES,
    NEGATIVES,
    ONE_OFF_PROPOSALS,
    POSITIVES,
    PROPOSALS,
    draw,
)

SEED = 20261201
OPENERS = [
    "",
    "",
    "",
    "btw ",
    "also, ",
    "oh and ",
    "quick note: ",
    "fyi ",
    "one more thing: ",
    "heads up, ",
]
CORRECTIONS = ["no, ", "nope - ", "wrong one. ", "that's not right: ", "no no. ", "stop. "]
GLOBAL_TAILS = [
    "That goes for all my projects.",
    "Same in every repo I own.",
    "This applies everywhere I work, not just here.",
    "Use that in all my repositories.",
]
LOCAL_TAILS = [
    "Everywhere in this codebase.",
    "Only in this repo.",
    "That's just for this project.",
]


def typo(text: str, rng: random.Random) -> str:
    """Realistic typing: a dropped or doubled letter, swapped neighbours, no capitals."""
    words = text.split(" ")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(words))
        w = words[i]
        if len(w) < 4 or "`" in w or "/" in w:
            continue
        j = rng.randrange(1, len(w) - 1)
        op = rng.choice(("drop", "swap", "double"))
        if op == "drop":
            w = w[:j] + w[j + 1 :]
        elif op == "swap":
            w = w[: j - 1] + w[j] + w[j - 1] + w[j + 1 :]
        else:
            w = w[:j] + w[j] + w[j:]
        words[i] = w
    return " ".join(words)


def sentence(text: str, rng: random.Random, voice: str) -> str:
    if voice == "terse":
        return text.rstrip(".")
    if voice == "typo":
        return typo(text, rng)
    if text.endswith(("?", ".", "!")) or text.startswith(("#", "Bug:", "Task:", "TODO:", "PROJ-")):
        return text[0].upper() + text[1:]
    return text[0].upper() + text[1:] + rng.choice([".", ".", ".", "!", ""])


def fill(template: str, slots: dict[str, str]) -> str:
    return template.format(**slots)


class Builder:
    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.messages: list[dict] = []
        self.splits: dict[str, str] = {}
        for kind in {p[1] for p in POSITIVES}:
            self.splits.update(deal([p[0] for p in POSITIVES if p[1] == kind]))
        self.splits.update(deal([n[0] for n in NEGATIVES]))
        self.splits.update(deal([f"prop-{i}" for i in range(len(PROPOSALS))]))
        self.splits.update(deal([f"neg-bare-ack-{i}" for i in range(len(ONE_OFF_PROPOSALS))]))
        self.pos = {
            s: [p for p in POSITIVES if self.splits[p[0]] == s] for s in ("train", "dev", "test")
        }
        self.neg = {
            s: [n for n in NEGATIVES if self.splits[n[0]] == s] for s in ("train", "dev", "test")
        }

    def add(
        self, group: str, voice: str, parts: list[str], labels: list[dict], previous: str = ""
    ) -> None:
        rng = self.rng
        host = rng.choice(("claude-code", "codex"))
        joiner = "\n" if host == "claude-code" and rng.random() < 0.3 else " "
        text = joiner.join(p for p in parts if p)
        self.messages.append(
            {
                "id": f"t{len(self.messages):05d}",
                "group": group,
                "split": self.splits[group],
                "host": host,
                "workspace": rng.choice(WORKSPACES),
                "voice": voice,
                "previous_assistant": previous,
                "text": text,
                "labels": labels,
            }
        )

    def label(self, positive: tuple, slots: dict, typed: str, scope: str | None = None) -> dict:
        _, kind, default_scope, polarity, _, statement = positive
        return {
            "statement": fill(statement, slots),
            "evidence": typed,
            "kind": kind,
            "scope": scope or default_scope,
            "polarity": polarity,
            "adopted": False,
        }

    def rule_message(self, split: str, voice: str) -> None:
        rng = self.rng
        positive = rng.choice(self.pos[split])
        slots = draw(rng)
        typed = sentence(
            fill(positive[4], slots), rng, voice if voice in ("terse", "typo") else "plain"
        )
        scope = None
        parts = [
            rng.choice(OPENERS) + typed
            if voice != "correction"
            else rng.choice(CORRECTIONS) + typed
        ]
        if (
            voice == "global-tail"
            and positive[2] == W
            and positive[1] in ("preference", "constraint")
        ):
            parts.append(rng.choice(GLOBAL_TAILS))
            scope = G
        elif voice == "local-tail":
            parts.append(rng.choice(LOCAL_TAILS))
            scope = W
        elif voice == "buried":
            before = [
                sentence(fill(rng.choice(self.neg[split])[1], slots), rng, "plain")
                for _ in range(rng.randint(1, 3))
            ]
            after = [
                sentence(fill(rng.choice(self.neg[split])[1], slots), rng, "plain")
                for _ in range(rng.randint(0, 2))
            ]
            parts = [*before, typed, *after]
        labels = [
            self.label(positive, slots, parts[0] if voice not in ("buried",) else typed, scope)
        ]
        if voice == "two-rules":
            second = rng.choice(self.pos[split])
            slots2 = draw(rng)
            typed2 = sentence(fill(second[4], slots2), rng, "plain")
            parts.append(typed2)
            labels.append(self.label(second, slots2, typed2))
        labels[0]["evidence"] = typed
        self.add(positive[0], voice, parts, labels)

    def negative_message(self, split: str, voice: str) -> None:
        rng = self.rng
        negative = rng.choice(self.neg[split])
        slots = draw(rng)
        parts = [rng.choice(OPENERS) + sentence(fill(negative[1], slots), rng, voice)]
        if voice == "buried":
            parts += [
                sentence(fill(rng.choice(self.neg[split])[1], slots), rng, "plain")
                for _ in range(rng.randint(1, 3))
            ]
        self.add(negative[0], voice, parts, [])

    def adoption_message(self, split: str, adopt: bool) -> None:
        rng = self.rng
        slots = draw(rng)
        if adopt:  # the proposal decides the split (its group), not `split`
            index = rng.randrange(len(PROPOSALS))
            proposal, statement, kind = PROPOSALS[index]
            previous = f"Done, the tests pass. {fill(proposal, slots)} Want me to?"
            label = {
                "statement": fill(statement, slots),
                "evidence": fill(proposal, slots),
                "kind": kind,
                "scope": W,
                "polarity": A,
                "adopted": True,
            }
            self.add(f"prop-{index}", "adoption", [rng.choice(ADOPT_REPLIES)], [label], previous)
        else:
            index = rng.randrange(len(ONE_OFF_PROPOSALS))
            previous = fill(ONE_OFF_PROPOSALS[index], slots)
            self.add(f"neg-bare-ack-{index}", "bare-ack", [rng.choice(ACK_REPLIES)], [], previous)


W, G, A = "workspace", "global", "assert"
PLAN = [
    ("rule", v, n)
    for v, n in (
        ("plain", 420),
        ("terse", 180),
        ("typo", 180),
        ("correction", 90),
        ("global-tail", 90),
        ("local-tail", 50),
        ("buried", 200),
        ("two-rules", 90),
    )
]
PLAN += [("neg", v, n) for v, n in (("plain", 560), ("terse", 150), ("typo", 150), ("buried", 150))]
PLAN += [("adopt", "adoption", 60), ("ack", "bare-ack", 50)]


def build() -> list[dict]:
    builder = Builder()
    rng = builder.rng
    for what, voice, count in PLAN:
        for _ in range(count):
            split = rng.choices(("train", "dev", "test"), weights=(6, 2, 2))[0]
            if what == "rule":
                builder.rule_message(split, voice)
            elif what == "neg":
                builder.negative_message(split, voice)
            else:
                builder.adoption_message(split, what == "adopt")
    messages = builder.messages
    messages += [
        {**m, "split": split_of(m["id"])} for m in read_handwritten(HERE / "handwritten.txt")
    ]
    # Written later, in new voices, for training only: appended so no earlier message (and no test
    # message) changes; split "train" by construction, never dealt.
    messages += [{**m, "split": "train"} for m in read_handwritten(HERE / "handwritten_train.txt")]
    # Written with them, for a fair dev figure per kind: "dev" by construction, appended last.
    messages += [{**m, "split": "dev"} for m in read_handwritten(HERE / "handwritten_dev.txt")]
    return messages


def main() -> int:
    messages = build()
    with open(HERE / "messages.jsonl", "w", encoding="utf-8") as out:
        for message in messages:
            out.write(json.dumps(message, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{len(messages)} messages written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
