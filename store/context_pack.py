"""The context pack the hooks give an agent: which approved memories, in what order, within a
token budget, rendered as the host's `additionalContext`.

Pure functions over light items, shared by the daemon's context server and the no-daemon hook
path, so both give byte-for-byte the same context. This module imports only the standard library,
`memvet.store.scope`, `memvet.store.vocabulary_values` (plain strings, no enum classes) and
`memvet.store.hook_json` (json without `re`): the hook loads it without the rest of the store.
Which memories match a prompt is prompt_match.py's (loaded for a prompt only).

Order: operator-typed over the user's explicit words over imports over model inferences, then
importance, then recency (`rank_key`; fast_read.py's SQL `ORDER BY` is its twin). The budget is
counted in UTF-8 bytes (`TOKEN_BYTES` per token), which the no-daemon path knows from ciphertext
lengths before it decrypts anything: it decrypts only what fits.
"""

from __future__ import annotations

from memvet.store import hook_json
from memvet.store import scope as scope_rule
from memvet.store.vocabulary_values import MemoryStatus, SourceType

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook ~4 ms
if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime
    from typing import Any

TOKEN_BYTES = 4  # one token ≈ 4 bytes of UTF-8: conservative for English prose and code
SESSION_START_TOKENS = 1024  # defaults; `[hook]` in MEMVET_HOME/config.toml overrides them
PROMPT_TOKENS = 512
MAX_TOKENS = 2400  # Claude Code cuts additionalContext at 10,000 characters
MIN_ROOM_BYTES = 32  # less room than this left: stop looking for a line that still fits
MAX_SKIPS = 64  # this many lines in a row too long for the room left: stop looking
SOURCE_TIER: dict[str, int] = {  # keyed by the stored strings: a member is one
    SourceType.OPERATOR: 0,
    SourceType.EXPLICIT_USER: 1,
    SourceType.IMPORT: 2,
    SourceType.MODEL_INFERENCE: 3,
}
LAST_TIER = 4

EVENT_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}
HEADERS = {
    "session-start": "Approved memories from memvet (each reviewed by the user), most important first:",
    "user-prompt-submit": "Approved memories from memvet that match this prompt (not shown earlier "
    "in this session):",
}
# When a chosen memory was auto-admitted (selective mode), the header claims no review of all,
# and that memory's line says it was not reviewed.
AUTO_HEADERS = {
    "session-start": "Memories from memvet, most important first (each reviewed by the user "
    "unless marked auto-admitted):",
    "user-prompt-submit": "Memories from memvet that match this prompt (not shown earlier in "
    "this session; reviewed by the user unless marked auto-admitted):",
}
AUTO = "auto-admitted, not reviewed by the user: "
FOOTER = "(+{n} more approved memories not shown; `memvet recall QUESTION` looks them up.)"
FOOTER_RESERVE = len(FOOTER.format(n=9_999_999).encode()) + 1
DISPUTED = "disputed, not settled (do not rely on it either way): "
# A slot with two answers (disputed, or approved without a choice) is named, never asserted.
CONTESTED = "disputed, ask the user which is current (memvet holds rival answers) about: "
BOUNDARY = " (boundary: {})"
BOUNDARY_BYTES = len(BOUNDARY.format("").encode())


class PackItem:
    """One memory as the pack sees it. `statement`/`boundary` stay None until decrypted; their
    UTF-8 lengths are known before (ciphertext length minus the fixed overhead)."""

    __slots__ = (
        "id",
        "kind",
        "status",
        "source_type",
        "importance",
        "recorded_at",
        "valid_from",
        "valid_to",
        "expires_at",
        "statement",
        "boundary",
        "statement_len",
        "boundary_len",
        "terms",
        "conflict",
        "slot",
        "subject",
        "subject_len",
        "auto",
    )

    def __init__(
        self,
        id: str,
        kind: str,
        status: str,
        source_type: str,
        importance: int,
        recorded_at: str,
        valid_from: str,
        valid_to: str | None,
        expires_at: str | None,
        statement_len: int,
        boundary_len: int,
    ) -> None:
        self.id, self.kind, self.status, self.source_type = id, kind, status, source_type
        self.importance, self.recorded_at = importance, recorded_at
        self.valid_from, self.valid_to, self.expires_at = valid_from, valid_to, expires_at
        self.statement_len, self.boundary_len = statement_len, boundary_len
        self.statement: str | None = None
        self.boundary: str | None = None
        self.terms: frozenset[str] | None = None
        self.conflict = "none"  # "unsettled": approved beside a rival without a choice
        self.slot: str | None = None  # the subject's blind index: one slot, one key
        self.subject: str | None = None  # decrypted only for a contested item
        self.subject_len = 0
        self.auto = False  # approved by the admission policy (selective mode), not by a person


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


in_force = scope_rule.in_force  # valid now (store/scope.py; fast_read counts with its SQL twin)


def count_active(items: Iterable[PackItem], now: str) -> int:
    return sum(1 for item in items if item.status == MemoryStatus.ACTIVE and in_force(item, now))


# --- budget ------------------------------------------------------------------------------------
def contested(item: PackItem) -> bool:
    """One of two answers of a slot: the pack names the slot instead of either answer. (A row
    from before subjects existed has no subject: it keeps the older disputed line.)"""
    return (
        item.status == MemoryStatus.DISPUTED or item.conflict == "unsettled"
    ) and item.subject_len > 0


def _prefix(item: PackItem) -> str:
    if contested(item):
        return f"- [{item.kind}] " + CONTESTED
    return (
        f"- [{item.kind}] "
        + (DISPUTED if item.status == MemoryStatus.DISPUTED else "")
        + (AUTO if item.auto else "")
    )


def line_bytes(item: PackItem) -> int:
    if contested(item):
        return len(_prefix(item).encode()) + item.subject_len + 1
    extra = BOUNDARY_BYTES + item.boundary_len if item.boundary_len else 0
    return len(_prefix(item).encode()) + item.statement_len + extra + 1


def choose(items: Iterable[PackItem], budget_tokens: int, event: str, now: str) -> list[PackItem]:
    """Greedy in the given order: take each in-force line that fits the room left; stop once
    the room is gone or MAX_SKIPS lines in a row did not fit, leaving the rest of `items` unread
    (the no-daemon path then never builds items for the other thousands of rows)."""
    room = budget_tokens * TOKEN_BYTES - len(HEADERS[event].encode()) - 1 - FOOTER_RESERVE
    chosen: list[PackItem] = []
    named: set[str] = set()  # contested slots already named: one line per slot
    auto_header = False
    skips = 0
    if room < MIN_ROOM_BYTES:
        return chosen
    for item in items:
        if not in_force(item, now):
            continue
        if contested(item):
            if (item.slot or item.id) in named:
                continue
            named.add(item.slot or item.id)
        cost = line_bytes(item)
        header_extra = item.auto and not auto_header  # the longer header comes with it
        if header_extra:
            cost += len(AUTO_HEADERS[event].encode()) - len(HEADERS[event].encode())
        if cost <= room:
            auto_header = auto_header or header_extra
            chosen.append(item)
            room -= cost
            skips = 0
        else:
            skips += 1
        if room < MIN_ROOM_BYTES or skips >= MAX_SKIPS:
            break
    return chosen


def left_out(total_active: int, chosen: list[PackItem]) -> int:
    """For the footer: in-force active memories in scope that were not shown."""
    return total_active - sum(item.status == MemoryStatus.ACTIVE for item in chosen)


def render(event: str, chosen: list[PackItem], left_out: int) -> str:
    lines = [(AUTO_HEADERS if any(item.auto for item in chosen) else HEADERS)[event]]
    for item in chosen:
        if contested(item):
            lines.append(_prefix(item) + (item.subject or ""))
            continue
        line = _prefix(item) + (item.statement or "")
        if item.boundary:
            line += BOUNDARY.format(item.boundary)
        lines.append(line)
    if left_out:
        lines.append(FOOTER.format(n=left_out))
    return "\n".join(lines)


def hook_output(event: str, text: str) -> str:
    """Exactly the shape both hosts accept (Codex rejects unknown keys)."""
    return hook_json.dumps(
        {"hookSpecificOutput": {"hookEventName": EVENT_NAMES[event], "additionalContext": text}},
        ensure_ascii=False,
    )
