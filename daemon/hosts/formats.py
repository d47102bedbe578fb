"""The host line types memvet reads, declared as msgspec Structs with only the fields it reads.

A line is decoded into its declared type first (msgspec skips every other field without
building it: tool output, file snapshots and model text cost almost nothing). A line that does
not fit its declaration (a type the declaration does not list, a field of another type, a lone
surrogate, invalid JSON) raises `msgspec.DecodeError` and is decoded as a plain dict instead,
which checks every field by hand and gives the reason it was skipped: nothing is lost either way.
Research note: ../shared/research/host-formats.md (§1 Claude Code, §3 Codex).
"""

from __future__ import annotations

from typing import Union

import msgspec

Unfit = (msgspec.DecodeError, RecursionError)  # the line is decoded as a dict instead


class Block(msgspec.Struct):
    """One content block of a message: a text block's text; tool blocks keep only their type."""

    type: str | None = None
    text: str | None = None


# --- Claude Code (`~/.claude/projects/<project>/<session>.jsonl`) -------------------------------


class ClaudeMessage(msgspec.Struct):
    id: str | None = None  # assistant messages: one line per content block, grouped by id
    content: str | list[Block] | None = None


class ClaudeLine(msgspec.Struct, tag_field="type"):
    """What every line may carry: the session's bookkeeping."""

    sessionId: str | None = None
    cwd: str | None = None
    version: str | None = None


class ClaudeUser(ClaudeLine, tag="user"):
    message: ClaudeMessage | None = None
    isSidechain: bool | None = None
    isMeta: bool | None = None
    isCompactSummary: bool | None = None
    isVisibleInTranscriptOnly: bool | None = None
    uuid: str | None = None
    timestamp: str | None = None


class ClaudeAssistant(ClaudeLine, tag="assistant"):
    message: ClaudeMessage | None = None
    isSidechain: bool | None = None
    uuid: str | None = None
    timestamp: str | None = None


# Line types that never hold a prompt (queue-operation and attachment lines may: they are read
# as dicts, by hosts/queued.py); any type not listed here is counted as unknown.
CLAUDE_BOOKKEEPING = (
    "progress",
    "file-history-snapshot",
    "summary",
    "system",
    "last-prompt",
    "custom-title",
    "ai-title",
    "agent-name",
    "pr-link",
    "permission-mode",
    "agent-setting",
    "bridge-session",
    "worktree-state",
    # Seen in real 2.1.332 transcripts (issue 10): request and cost bookkeeping, mode switches.
    "atis-latch",
    "api-request-shape",
    "api-request-blob",
    "api-request",
    "cost-state",
    "mode",
    "tools-used",
)
_CLAUDE_BOOKKEEPING_LINES = tuple(
    msgspec.defstruct(f"Claude_{name.replace('-', '_')}", [], bases=(ClaudeLine,), tag=name)
    for name in CLAUDE_BOOKKEEPING
)
decode_claude = msgspec.json.Decoder(
    Union[(ClaudeUser, ClaudeAssistant, *_CLAUDE_BOOKKEEPING_LINES)]  # noqa: UP007
).decode


def line_type(line: ClaudeLine) -> str:
    return line.__struct_config__.tag  # type: ignore[return-value]


# --- Codex (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, envelope era) ----------------------


class CodexPayload(msgspec.Struct):
    """The payload's small fields: what kind of item or event it is, and turn bookkeeping."""

    type: str | None = None
    role: str | None = None
    id: str | None = None
    turn_id: str | None = None
    cwd: str | None = None


class CodexLine(msgspec.Struct):
    """`{timestamp, type, payload}`; a line without a payload object is read as a dict (the bare
    era before Sept 2025, or a broken line)."""

    type: str | None = None
    payload: CodexPayload | None = None


decode_codex = msgspec.json.Decoder(CodexLine).decode
