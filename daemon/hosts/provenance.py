"""Selective mode's structural checks: did the host itself write this prompt line?

Any process of the user can append a `"type":"user"` line to a transcript. Selective mode
auto-commits a prompt only when its line fits the host's own bookkeeping; a line that does not
is queued for a person with the reason (`unverified:<reason>` among the draft's reasons).

Claude Code: the line's `parentUuid` continues the chain from the previous line of the same
session, its `uuid` is new, its timestamp is not earlier than the session's last one, and no
tool call is open (a `tool_use` whose `tool_result` has not been written yet).
Codex: the prompt's `response_item` user message is echoed by an `event_msg/user_message` on
the very next line. Drafts of a Codex prompt are held until that line is read; `flush()` (at
a batch's end) releases any still held as unverified, so nothing waits across a commit.

Runs only in selective mode (every line is decoded: it costs what the fast paths save).
State is small, bounded and JSON-serialisable: it is kept in the file checkpoint.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import replace
from datetime import datetime
from typing import Any

from memvet.daemon.hosts.turns import fingerprint, without_lone_surrogates
from memvet.store.hosts import CLAUDE_CODE, CODEX
from memvet.store.records import CandidateDraft

UNVERIFIED = "unverified:"  # a reason with this prefix: never auto-committed
RECENT_UUIDS = 512
MAX_OPEN_TOOLS = 128


def unverified(drafts: list[CandidateDraft], reason: str) -> list[CandidateDraft]:
    return [replace(d, reasons=(*d.reasons, UNVERIFIED + reason)) for d in drafts]


def is_unverified(draft: CandidateDraft) -> bool:
    return any(r.startswith(UNVERIFIED) for r in draft.reasons)


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return without_lone_surrogates(record) if isinstance(record, dict) else None


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


class ClaudeCodeChain:
    def __init__(self, state: dict[str, Any] | None = None) -> None:
        state = state if isinstance(state, dict) else {}
        last = state.get("last")
        self.last: dict[str, str] = dict(last) if isinstance(last, dict) else {}  # session -> uuid
        self.seen: deque[str] = deque(state.get("seen") or (), maxlen=RECENT_UUIDS)
        self.open_tools: list[str] = [*(state.get("open") or ())][-MAX_OPEN_TOOLS:]
        self.time: str | None = state.get("time") if isinstance(state.get("time"), str) else None

    @property
    def state(self) -> dict[str, Any]:
        return {
            "last": dict(list(self.last.items())[-16:]),
            "seen": list(self.seen),
            "open": self.open_tools,
            "time": self.time,
        }

    def vet(self, line: bytes, drafts: list[CandidateDraft]) -> list[CandidateDraft]:
        record = _record(line)
        if record is None:
            return unverified(drafts, "unreadable_line") if drafts else drafts
        reason = self._reason(record) if drafts else None
        self._note(record)
        return unverified(drafts, reason) if reason else drafts

    def flush(self) -> list[CandidateDraft]:
        return []

    def _reason(self, record: dict[str, Any]) -> str | None:
        uuid, session = record.get("uuid"), record.get("sessionId")
        if record.get("type") != "user" or not isinstance(uuid, str) or not uuid:
            return "not_a_chained_user_line"
        if uuid in self.seen:
            return "uuid_reused"
        if record.get("parentUuid") != self.last.get(session if isinstance(session, str) else ""):
            return "parent_chain_broken"
        stamp, last = _time(record.get("timestamp")), _time(self.time)
        if stamp is None or (last is not None and stamp < last):
            return "timestamp_out_of_order"
        if self.open_tools:
            return "inside_open_tool_call"
        return None

    def _note(self, record: dict[str, Any]) -> None:
        uuid, session = record.get("uuid"), record.get("sessionId")
        if isinstance(uuid, str) and uuid:
            key = session if isinstance(session, str) else ""
            self.last.pop(key, None)
            self.last[key] = uuid  # most recent last: the state keeps the latest sessions
            self.seen.append(uuid)
            stamp = _time(record.get("timestamp"))
            if stamp is not None and (self.time is None or stamp >= (_time(self.time) or stamp)):
                self.time = record["timestamp"]
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                self.open_tools = [*self.open_tools, block["id"]][-MAX_OPEN_TOOLS:]
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in self.open_tools:
                self.open_tools = [t for t in self.open_tools if t != block["tool_use_id"]]


class CodexEcho:
    def __init__(self, state: dict[str, Any] | None = None) -> None:
        self.held: list[CandidateDraft] = []
        self.held_print: str | None = None

    @property
    def state(self) -> dict[str, Any]:
        return {}  # drafts are never held across a commit (flush), so nothing to keep

    def vet(self, line: bytes, drafts: list[CandidateDraft]) -> list[CandidateDraft]:
        record = _record(line) or {}
        payload = record.get("payload")
        if not isinstance(payload, dict):
            payload = {}
        out: list[CandidateDraft] = []
        if self.held:
            if (
                payload.get("type") == "user_message"
                and record.get("type") == "event_msg"
                and _echoes(payload.get("message"), self.held_print)
            ):
                out, self.held = self.held, []
            else:
                out = self.flush()
        if not drafts:
            return out
        if record.get("type") == "response_item" and payload.get("role") == "user":
            self.held, self.held_print = drafts, _user_text(payload)
            return out
        return out + unverified(drafts, "no_response_item")

    def flush(self) -> list[CandidateDraft]:
        held, self.held = self.held, []
        return unverified(held, "no_echo") if held else []


def _user_text(payload: dict[str, Any]) -> str:
    content = payload.get("content")
    return (
        "\n".join(
            b.get("text", "")
            for b in content
            if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
        if isinstance(content, list)
        else ""
    )


def _echoes(message: Any, prompt: str | None) -> bool:
    """The echo carries the typed prompt; older builds wrapped it inside the response item."""
    if not isinstance(message, str) or not message.strip() or prompt is None:
        return False
    return fingerprint(message) == fingerprint(prompt) or " ".join(message.split()) in " ".join(
        prompt.split()
    )


CHECKS = {CLAUDE_CODE: ClaudeCodeChain, CODEX: CodexEcho}
