"""The context pack the hooks give an agent: which approved memories, in what order, within a
token budget, rendered as the host's `additionalContext`.

Pure functions over light items, shared by the daemon's context server and the no-daemon hook
path, so both give byte-for-byte the same context. This module imports only the standard library
and `memvet.store.subjects`: the hook loads it without the rest of the store.

Order: operator-typed over the user's explicit words over imports over model inferences, then
importance, then recency (`rank_key`; fast_read.py's SQL `ORDER BY` is its twin). The budget is
counted in UTF-8 bytes (`TOKEN_BYTES` per token), which the no-daemon path knows from ciphertext
lengths before it decrypts anything: it decrypts only what fits.
"""

from __future__ import annotations

import json
import math

from memvet.store.subjects import content_words

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook ~4 ms
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from datetime import datetime
    from typing import Any

TOKEN_BYTES = 4  # one token ≈ 4 bytes of UTF-8: conservative for English prose and code
SESSION_START_TOKENS = 1024  # defaults; `[hook]` in MEMVET_HOME/config.toml overrides them
PROMPT_TOKENS = 512
MAX_TOKENS = 2400  # Claude Code cuts additionalContext at 10,000 characters
MIN_ROOM_BYTES = 32  # less room than this left: stop looking for a line that still fits
MAX_SKIPS = 64  # this many lines in a row too long for the room left: stop looking
PROMPT_RELEVANCE = 0.34  # idf-weighted share of shared terms (see `relevance`) to add on a prompt
SOURCE_TIER = {"operator": 0, "explicit_user": 1, "import": 2, "model_inference": 3}
LAST_TIER = 4

EVENT_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}
HEADERS = {
    "session-start": "Approved memories from memvet (each reviewed by the user), most important first:",
    "user-prompt-submit": "Approved memories from memvet that match this prompt (not shown earlier "
                          "in this session):",
}
FOOTER = "(+{n} more approved memories not shown; `memvet recall QUESTION` looks them up.)"
FOOTER_RESERVE = len(FOOTER.format(n=9_999_999).encode()) + 1
DISPUTED = "disputed, not settled (do not rely on it either way): "
BOUNDARY = " (boundary: {})"
BOUNDARY_BYTES = len(BOUNDARY.format("").encode())


class PackItem:
    """One memory as the pack sees it. `statement`/`boundary` stay None until decrypted; their
    UTF-8 lengths are known before (ciphertext length minus the fixed overhead)."""

    __slots__ = ("id", "kind", "status", "source_type", "importance", "recorded_at", "valid_from",
                 "valid_to", "expires_at", "statement", "boundary", "statement_len",
                 "boundary_len", "terms")

    def __init__(self, id: str, kind: str, status: str, source_type: str, importance: int,
                 recorded_at: str, valid_from: str, valid_to: str | None,
                 expires_at: str | None, statement_len: int, boundary_len: int) -> None:
        self.id, self.kind, self.status, self.source_type = id, kind, status, source_type
        self.importance, self.recorded_at = importance, recorded_at
        self.valid_from, self.valid_to, self.expires_at = valid_from, valid_to, expires_at
        self.statement_len, self.boundary_len = statement_len, boundary_len
        self.statement: str | None = None
        self.boundary: str | None = None
        self.terms: frozenset[str] | None = None


def stamp(value: datetime) -> str:
    """A time as the store's SQLite columns hold it (UTC, microseconds), so strings compare."""
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")


def tier(source_type: str) -> int:
    return SOURCE_TIER.get(source_type, LAST_TIER)


def rank_key(item: Any) -> tuple:
    """Sort with reverse=True: lower tier, then higher importance, then newer, then higher id.
    Works for PackItem and for store Memory records alike."""
    return (-tier(item.source_type), item.importance, item.recorded_at, item.id)


def ranked(items: Iterable[Any]) -> list[Any]:
    return sorted(items, key=rank_key, reverse=True)


def in_force(item: PackItem, now: str) -> bool:
    """Valid now: started, not ended, not past its TTL (the sweep may not have retired it yet)."""
    return (item.valid_from <= now and (item.valid_to is None or item.valid_to > now)
            and (item.expires_at is None or item.expires_at > now))


# --- budget ------------------------------------------------------------------------------------
def _prefix(item: PackItem) -> str:
    return f"- [{item.kind}] " + (DISPUTED if item.status == "disputed" else "")


def line_bytes(item: PackItem) -> int:
    extra = BOUNDARY_BYTES + item.boundary_len if item.boundary_len else 0
    return len(_prefix(item).encode()) + item.statement_len + extra + 1


def choose(items: Iterable[PackItem], budget_tokens: int, event: str,
           now: str) -> tuple[list[PackItem], int]:
    """Greedy in the given order: take each in-force line that fits the room left. Returns the
    chosen items and how many in-force active memories were left out (for the footer). Reads
    every item (cheap: lengths only) so the count is exact."""
    room = budget_tokens * TOKEN_BYTES - len(HEADERS[event].encode()) - 1 - FOOTER_RESERVE
    chosen: list[PackItem] = []
    left_out = skips = 0
    looking = room >= MIN_ROOM_BYTES
    for item in items:
        if not in_force(item, now):
            continue
        if looking:
            cost = line_bytes(item)
            if cost <= room:
                chosen.append(item)
                room -= cost
                skips = 0
                looking = room >= MIN_ROOM_BYTES
                continue
            skips += 1
            looking = room >= MIN_ROOM_BYTES and skips < MAX_SKIPS
        if item.status == "active":
            left_out += 1
    return chosen, left_out


def render(event: str, chosen: list[PackItem], left_out: int) -> str:
    lines = [HEADERS[event]]
    for item in chosen:
        line = _prefix(item) + (item.statement or "")
        if item.boundary:
            line += BOUNDARY.format(item.boundary)
        lines.append(line)
    if left_out:
        lines.append(FOOTER.format(n=left_out))
    return "\n".join(lines)


def hook_output(event: str, text: str) -> str:
    """Exactly the shape both hosts accept (Codex rejects unknown keys)."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": EVENT_NAMES[event],
                                              "additionalContext": text}}, ensure_ascii=False)


# --- relevance ---------------------------------------------------------------------------------
def stem(word: str) -> str:
    """Plural and -ing/-ed endings, so "tests", "testing" and "tested" meet "test"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    return word


def terms(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in content_words(text))


def item_terms(item: PackItem) -> frozenset[str]:
    if item.terms is None:
        item.terms = terms(item.statement or "")
    return item.terms


def document_frequencies(items: Iterable[PackItem]) -> dict[str, int]:
    df: dict[str, int] = {}
    for item in items:
        for term in item_terms(item):
            df[term] = df.get(term, 0) + 1
    return df


def idf(df: dict[str, int], n: int, term: str) -> float:
    return math.log(1.0 + n / (1 + df.get(term, 0)))


def relevance(mem_terms: frozenset[str], prompt_terms: frozenset[str], df: dict[str, int],
              n: int) -> float:
    """Idf-weighted overlap coefficient: the shared terms' weight over the lighter side's, so a
    short memory fully named in a long prompt scores high and a common word alone scores low."""
    shared = mem_terms & prompt_terms
    if not shared:
        return 0.0
    weight = lambda ts: sum(idf(df, n, t) for t in ts)  # noqa: E731
    return weight(shared) / min(weight(mem_terms), weight(prompt_terms))


def relevant(items: list[PackItem], prompt: str, given: set[str], now: str) -> Iterator[PackItem]:
    """In-force memories of `items` (all decrypted, in rank order) that match the prompt and were
    not given this session, most relevant first; ties keep rank order."""
    prompt_terms = terms(prompt)
    if not prompt_terms:
        return iter(())
    df = document_frequencies(items)
    n = len(items)
    scored = []
    for item in items:
        if item.id in given or not in_force(item, now):
            continue
        score = relevance(item_terms(item), prompt_terms, df, n)
        if score >= PROMPT_RELEVANCE:
            scored.append((round(score, 6), item))
    scored.sort(key=lambda pair: pair[0], reverse=True)  # stable: rank order within a score
    return (item for _, item in scored)
