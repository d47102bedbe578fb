"""What the host parsers hand to the pipeline, and the state they carry between lines.

A parser reads one transcript line at a time and returns either turns (a user prompt, an
assistant message) or the reason the line produced none. Reasons are short stable codes; they
are counted in the pipeline's stats and never carry anything a user typed.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

MAX_LINE_BYTES = 8 * 1024 * 1024  # a longer line is skipped without decoding
RECENT_IDS = 256  # how many message ids / prompt fingerprints the dedupe set remembers

# Reasons that mean "this line could not be read at all" (the others mean "read, not a prompt").
ERROR_REASONS = frozenset({"invalid_utf8", "invalid_json", "not_an_object", "line_too_long",
                           "bad_shape"})


@dataclass(frozen=True, slots=True)
class Turn:
    role: str  # "user" (typed by the person) or "assistant" (written by the model)
    text: str
    line: int
    message_id: str | None
    timestamp: str | None  # ISO 8601 as the host wrote it


@dataclass(frozen=True, slots=True)
class ParseResult:
    turns: tuple[Turn, ...] = ()
    reason: str | None = None  # why the line produced no turn; None when it produced some

    @classmethod
    def of(cls, *turns: Turn) -> ParseResult:
        return cls(turns, None)

    @classmethod
    def skip(cls, reason: str) -> ParseResult:
        cached = _SKIPS.get(reason)
        if cached is None:  # one shared instance per reason: most lines are skips
            cached = _SKIPS[reason] = cls((), reason)
        return cached


_SKIPS: dict[str, ParseResult] = {}


@dataclass
class SessionState:
    """Everything a parser must remember to resume mid-file after a restart (JSON-serialisable)."""

    session_id: str | None = None
    cwd: str | None = None
    host_version: str | None = None
    sidechain: bool = False  # a sub-agent transcript: its "user" turns were written by a model
    turn_id: str | None = None  # Codex: the current turn, used as the message id of its prompt
    last_assistant_id: str | None = None
    awaiting_echo: bool = False  # Codex: a prompt was read whose event_msg echo has not come yet
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=RECENT_IDS))

    def seen(self, key: str) -> bool:
        """True when `key` was seen recently; remembers it otherwise."""
        if key in self.recent:
            return True
        self.recent.append(key)
        return False

    def to_dict(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "cwd": self.cwd, "host_version": self.host_version,
                "sidechain": self.sidechain, "turn_id": self.turn_id,
                "last_assistant_id": self.last_assistant_id, "awaiting_echo": self.awaiting_echo,
                "recent": list(self.recent)}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> SessionState:
        state = cls()
        if not isinstance(data, dict):
            return state
        for name in ("session_id", "cwd", "host_version", "turn_id", "last_assistant_id"):
            value = data.get(name)
            setattr(state, name, value if isinstance(value, str) else None)
        state.sidechain = bool(data.get("sidechain", False))
        state.awaiting_echo = bool(data.get("awaiting_echo", False))
        recent = data.get("recent")
        if isinstance(recent, list):
            state.recent.extend(str(item) for item in recent[-RECENT_IDS:])
        return state


def decode_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """One JSON object from one line, or the reason it is not one."""
    if len(raw) > MAX_LINE_BYTES:
        return None, "line_too_long"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "invalid_utf8"
    if not text.strip():
        return None, "blank"
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        return None, "invalid_json"
    if not isinstance(record, dict):
        return None, "not_an_object"
    return record, None


def text_of(value: Any) -> str | None:
    """A string, or None for anything else (hosts change field types between versions)."""
    return value if isinstance(value, str) else None
