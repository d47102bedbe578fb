"""What the host parsers hand to the pipeline, and the state they carry between lines.

A parser reads one transcript line at a time and returns either turns (a user prompt, an
assistant message) or the reason the line produced none. Reasons are short stable codes; they
are counted in the pipeline's stats and never carry anything a user typed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import deque
from collections.abc import Iterable
from typing import Any, NamedTuple

MAX_LINE_BYTES = 8 * 1024 * 1024  # a longer line is skipped without decoding
RECENT_IDS = 256  # how many message ids / prompt fingerprints the dedupe set remembers
QUEUED_ECHOES = 32  # fingerprints of queued prompts whose echo may still come

# Reasons that mean "this line could not be read at all" (the others mean "read, not a prompt").
ERROR_REASONS = frozenset(
    {"invalid_utf8", "invalid_json", "not_an_object", "line_too_long", "bad_shape"}
)


class Turn(NamedTuple):
    """Immutable; a named tuple because a parser builds one per prompt and per assistant message."""

    role: str  # "user" (typed by the person) or "assistant" (written by the model)
    text: str
    line: int
    message_id: str | None
    timestamp: str | None  # ISO 8601 as the host wrote it


class ParseResult(NamedTuple):
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


class SessionState:
    """Everything a parser must remember to resume mid-file after a restart (JSON-serialisable)."""

    __slots__ = (
        "session_id",
        "cwd",
        "host_version",
        "sidechain",
        "turn_id",
        "last_assistant_id",
        "awaiting_echo",
        "recent",
        "_recent_keys",
        "queued",
        "proposal",
    )

    def __init__(
        self,
        session_id: str | None = None,
        cwd: str | None = None,
        host_version: str | None = None,
        sidechain: bool = False,
        turn_id: str | None = None,
        last_assistant_id: str | None = None,
        awaiting_echo: bool = False,
        recent: Iterable[str] = (),
        queued: Iterable[str] = (),
    ) -> None:
        self.session_id, self.cwd, self.host_version = session_id, cwd, host_version
        self.sidechain = (
            sidechain  # a sub-agent transcript: its "user" turns were written by a model
        )
        self.turn_id = turn_id  # Codex: the current turn, used as the message id of its prompt
        self.last_assistant_id = last_assistant_id
        self.awaiting_echo = (
            awaiting_echo  # Codex: a prompt was read whose event_msg echo has not come yet
        )
        self.recent: deque[str] = deque(recent, maxlen=RECENT_IDS)
        self._recent_keys: set[str] = set(self.recent)
        # Claude Code: fingerprints of prompts read when queued, whose echo is still to come
        self.queued: deque[str] = deque(queued, maxlen=QUEUED_ECHOES)
        # [line, redacted proposal sentence] of the last assistant message (hosts/previous.py)
        self.proposal: list | None = None

    def __repr__(self) -> str:
        return f"SessionState({self.to_dict()!r})"

    def seen(self, key: str) -> bool:
        """True when `key` was seen recently; remembers it otherwise (a set beside the deque
        answers the question: keys in the deque are unique, so it mirrors it exactly)."""
        if len(self._recent_keys) != len(self.recent):  # `recent` was filled from outside
            self._recent_keys = set(self.recent)
        if key in self._recent_keys:
            return True
        if len(self.recent) == RECENT_IDS:
            self._recent_keys.discard(self.recent[0])  # the append below evicts it
        self.recent.append(key)
        self._recent_keys.add(key)
        return False

    @property
    def awaits_echo(self) -> bool:
        return bool(self.queued)

    def await_echo(self, key: str) -> None:
        self.queued.append(key)

    def take_echo(self, key: str) -> bool:
        """True (and forgotten) when `key` is the fingerprint of a queued prompt already read."""
        if key in self.queued:
            self.queued.remove(key)
            return True
        return False

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "cwd": self.cwd,
            "host_version": self.host_version,
            "sidechain": self.sidechain,
            "turn_id": self.turn_id,
            "last_assistant_id": self.last_assistant_id,
            "awaiting_echo": self.awaiting_echo,
            "recent": list(self.recent),
            "queued": list(self.queued),
            "proposal": self.proposal,
        }

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
        queued = data.get("queued")
        if isinstance(queued, list):
            state.queued.extend(str(item) for item in queued[-QUEUED_ECHOES:])
        proposal = data.get("proposal")
        state.proposal = proposal if isinstance(proposal, list) else None
        return state


def decode_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """One JSON object from one line, or the reason it is not one."""
    if len(raw) > MAX_LINE_BYTES:
        return None, "line_too_long"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "invalid_utf8"
    if not text or text.isspace():  # what `not text.strip()` says, without the copy
        return None, "blank"
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        return None, "invalid_json"
    if not isinstance(record, dict):
        return None, "not_an_object"
    if b"\\u" in raw and _SURROGATE_ESCAPE.search(raw):  # rare: only then walk the record
        record = without_lone_surrogates(record)
    return record, None


# A \uD800-\uDFFF escape (the only way JSON text can carry a surrogate: UTF-8 cannot).
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(value: Any) -> Any:
    """`value` with every unpaired surrogate replaced by U+FFFD (a pair written as two escapes
    is already one character after decoding). Node writes lone ones; they cannot be stored."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    return value


def fingerprint(text: str) -> str:
    """A short hash of a prompt's words, whitespace-insensitive: what dedupe sets remember."""
    normal = " ".join(text.split())
    return "p:" + hashlib.blake2b(normal.encode("utf-8", "replace"), digest_size=8).hexdigest()


def text_of(value: Any) -> str | None:
    """A string, or None for anything else (hosts change field types between versions)."""
    return value if isinstance(value, str) else None
