"""The extraction corpus: loading, the one train/dev/test split, and the digest that freezes the
test split. Shared by generate.py, train.py, the benchmark and the tests.

The split is decided once, by hashes, and stored in each record (`split`): template families
(a message's `group`) are ranked by the hash of their name within their kind and dealt
train, train, train, dev, test in that order, so every kind is in every split and every phrasing
of one family lands in one split (test phrasings are never seen in training); hand-written
messages and third-party dialogues or sessions go by a hash bucket of their id (60/20/20).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
MESSAGES = HERE / "messages.jsonl"
FROZEN = HERE / "test_split.sha256"
KINDS = ("decision", "procedure", "constraint", "preference", "fact")


def split_of(key: str) -> str:
    bucket = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 10
    return "train" if bucket < 6 else "dev" if bucket < 8 else "test"


def load(split: str | None = None, path: Path = MESSAGES) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        messages = [json.loads(line) for line in fh if line.strip()]
    return [m for m in messages if split is None or m["split"] == split]


def deal(families: list[str]) -> dict[str, str]:
    """Families of one kind, ranked by hash, dealt 3:1:1 to train, dev and test."""
    ranked = sorted(families, key=lambda f: hashlib.sha256(f.encode()).hexdigest())
    pattern = ("train", "train", "train", "dev", "test")
    return {family: pattern[i % 5] for i, family in enumerate(ranked)}


def digest(messages: list[dict]) -> str:
    """What freezes a split: every field of every message, in id order."""
    h = hashlib.sha256()
    for message in sorted(messages, key=lambda m: m["id"]):
        h.update(json.dumps(message, sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def third_party_split(dataset: str, key: str) -> str:
    """MemoryCode by dialogue (`source_file`), DevMemBench by session id: their own units."""
    return split_of(f"{dataset}:{key}")


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_+#\-]*")
STOP = frozenset(
    """a an the to of in on for with and or as at by from is are be it its this that these those
your my our their when if so into than then there which who what how can will would do does please you we i
also just don doesn isn aren won didn""".split()
)


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ing", "es", "s", "ed", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)][:6]
    return word[:6]


def content(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text) if len(w) > 1 and w.lower() not in STOP}


def match(candidate: str, evidence: str, share: float = 0.55) -> bool:
    """Does a candidate hold a labelled statement? Most of the evidence's content words must be in
    it (a clause cut off the rule does not count), and it must not be mostly other text."""
    wanted, said = content(evidence), content(candidate)
    if not wanted or not said:
        return False
    return len(wanted & said) / len(wanted) >= share and len(wanted & said) / len(said) >= 0.34
