"""Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), research note §3.

Envelope `{timestamp, type, payload}` since Sept 2025; bare ResponseItems before that (§3.8).
Prompts come from `response_item` messages with role `user`; Codex also writes each typed prompt
as `event_msg/user_message` (or `item_completed` UserMessage in paginated files) right after it,
so an event that echoes the prompt just read is counted once. Injected context (AGENTS.md,
`<environment_context>`, user instructions), developer messages and `compacted` history are
never prompts, and neither is anything in a sub-agent thread.
"""

from __future__ import annotations

import re
from typing import Any

from memvet.daemon.hosts import formats
from memvet.daemon.hosts.base import TranscriptParser
from memvet.daemon.hosts.turns import (
    ParseResult,
    Turn,
    decode_line,
    fingerprint,
    text_of,
)
from memvet.store import hosts

HOST = hosts.CODEX

_TURN_STARTS = ("task_started", "turn_started")
# Top-level line types with no prompt in them, seen in real 0.171 rollouts (issue 10).
BOOKKEEPING = frozenset({"world_state", "token_usage_record"})
_TYPED_PROMPTS = ("user_message", "item_completed")
# What Codex itself puts in role-user messages (host protocol, not the person).
_INJECTED = re.compile(
    r"^\s*(?:#\s*AGENTS\.md instructions for|<user_instructions>|<environment_context>|"
    r"<permissions instructions>|<turn_aborted>|<user_shell_command>|<skill>|<INSTRUCTIONS>)"
)
_ENV_CWD = re.compile(r"<cwd>([^<\n]{1,4096})</cwd>")
_REQUEST_MARKER = "## My request for Codex:"  # 2025 builds wrapped the prompt after this line


class CodexParser(TranscriptParser):
    host = HOST

    def _assistant_text(self, line: bytes) -> str | None:
        return _assistant_text(line)

    def _parse_record(self, record: dict[str, Any], line_no: int) -> ParseResult:
        if "payload" in record:
            return self._envelope(record, line_no)
        return self._bare(record, line_no)

    def _from_bytes(self, line: bytes, line_no: int) -> ParseResult | None:
        """What `_envelope` gives for tool calls and outputs, reasoning, token counts, turn
        bookkeeping and assistant messages (most of a rollout's bytes), from the line decoded
        into its declared type (hosts/formats.py); None: decode it as a dict."""
        try:
            typed = formats.decode_codex(line)
        except formats.Unfit:
            return None
        kind, payload = typed.type, typed.payload
        if kind is None or payload is None:
            return None
        item = payload.type
        state = self.state
        if kind == "response_item":
            if item != "message":
                return ParseResult.skip("tool_or_reasoning")
            role = payload.role
            if role == "user" or (role == "assistant" and self.want_assistant):
                return None  # a prompt, or the assistant's text: decode
            if role != "assistant":
                return ParseResult.skip("developer_message")
            message_id = payload.id or f"{state.turn_id or 'turn'}:{line_no}"
            state.last_assistant_id = message_id
            if state.sidechain:
                return ParseResult.skip("sidechain")
            self.previous.hold(line, message_id, line_no)  # its text is decoded if asked
            return ParseResult.of(Turn("assistant", "", line_no, message_id, None))
        if kind == "event_msg":
            if item in _TYPED_PROMPTS:
                return None
            if item in _TURN_STARTS:
                state.turn_id = payload.turn_id or state.turn_id
            return ParseResult.skip("event_msg")
        if kind == "turn_context":
            state.cwd = payload.cwd or state.cwd
            state.turn_id = payload.turn_id or state.turn_id
            return ParseResult.skip("turn_context")
        if kind == "compacted":
            return ParseResult.skip("compacted")
        if kind in BOOKKEEPING:
            return ParseResult.skip(kind)
        if kind == "session_meta":
            return None
        return ParseResult.skip("unknown_type")

    # --- envelope era ------------------------------------------------------------------------

    def _envelope(self, record: dict[str, Any], line_no: int) -> ParseResult:
        kind, payload = text_of(record.get("type")), record.get("payload")
        stamp = text_of(record.get("timestamp"))
        if kind is None or not isinstance(payload, dict):
            return ParseResult.skip("bad_shape")
        if kind == "session_meta":
            self._session_meta(payload)
            return ParseResult.skip("session_meta")
        if kind == "turn_context":
            self.state.cwd = text_of(payload.get("cwd")) or self.state.cwd
            self.state.turn_id = text_of(payload.get("turn_id")) or self.state.turn_id
            return ParseResult.skip("turn_context")
        if kind == "response_item":
            return self._item(payload, line_no, stamp)
        if kind == "event_msg":
            return self._event(payload, line_no, stamp)
        if kind == "compacted":
            return ParseResult.skip("compacted")
        if kind in BOOKKEEPING:
            return ParseResult.skip(kind)
        return ParseResult.skip("unknown_type")

    def _session_meta(self, payload: dict[str, Any]) -> None:
        state = self.state
        if state.session_id is None:  # forked files replay a parent's meta later on: first wins
            state.session_id = text_of(payload.get("id")) or text_of(payload.get("session_id"))
            state.cwd = text_of(payload.get("cwd")) or state.cwd
        state.host_version = text_of(payload.get("cli_version")) or state.host_version
        source = payload.get("source")
        if isinstance(source, dict) and "subagent" in source:
            state.sidechain = True

    def _item(self, payload: dict[str, Any], line_no: int, stamp: str | None) -> ParseResult:
        if payload.get("type") != "message":
            return ParseResult.skip("tool_or_reasoning")
        role = payload.get("role")
        if role == "user":
            return self._user_item(payload.get("content"), line_no, stamp)
        if role == "assistant":
            return self._assistant_item(payload, line_no, stamp)
        return ParseResult.skip("developer_message")

    def _user_item(self, content: Any, line_no: int, stamp: str | None) -> ParseResult:
        text = _joined_text(content, ("input_text", "text"))
        if text is None:
            return ParseResult.skip("no_text")
        if found := _ENV_CWD.search(text[:8192]):
            self.state.cwd = self.state.cwd or found.group(1).strip()
        if _INJECTED.match(text):
            return ParseResult.skip("injected_context")
        if self.state.sidechain:
            return ParseResult.skip("sidechain")
        if _REQUEST_MARKER in text:
            text = text.split(_REQUEST_MARKER, 1)[1].strip()
        if not text.strip():
            return ParseResult.skip("no_text")
        self.state.awaiting_echo = True
        self.state.seen(fingerprint(text))
        return ParseResult.of(Turn("user", text, line_no, self.state.turn_id, stamp))

    def _assistant_item(
        self, payload: dict[str, Any], line_no: int, stamp: str | None
    ) -> ParseResult:
        message_id = text_of(payload.get("id")) or f"{self.state.turn_id or 'turn'}:{line_no}"
        self.state.last_assistant_id = message_id
        if self.state.sidechain:
            return ParseResult.skip("sidechain")
        text = _joined_text(payload.get("content"), ("output_text", "text"))
        if text:
            self.previous.hold_text(text, message_id, line_no)
        if not self.want_assistant:
            text = ""
        # Without text it only counts: it keeps no time either (it never becomes a draft).
        return ParseResult.of(
            Turn("assistant", text or "", line_no, message_id, stamp if text else None)
        )

    def _event(self, payload: dict[str, Any], line_no: int, stamp: str | None) -> ParseResult:
        kind = payload.get("type")
        if kind in _TURN_STARTS:
            self.state.turn_id = text_of(payload.get("turn_id")) or self.state.turn_id
            return ParseResult.skip("event_msg")
        if kind == "user_message":
            return self._typed_prompt(text_of(payload.get("message")), line_no, stamp)
        if kind == "item_completed":
            item = payload.get("item")
            if isinstance(item, dict) and item.get("type") == "UserMessage":
                return self._typed_prompt(
                    _joined_text(item.get("content"), ("text",)), line_no, stamp
                )
        return ParseResult.skip("event_msg")

    def _typed_prompt(self, text: str | None, line_no: int, stamp: str | None) -> ParseResult:
        """The event Codex writes for what the person typed: usually an echo of the item just read."""
        if self.state.awaiting_echo:
            self.state.awaiting_echo = False
            return ParseResult.skip("echo")
        if not text or not text.strip():
            return ParseResult.skip("no_text")
        if self.state.seen(fingerprint(text)):
            return ParseResult.skip("echo")
        if self.state.sidechain:
            return ParseResult.skip("sidechain")
        return ParseResult.of(Turn("user", text, line_no, self.state.turn_id, stamp))

    # --- bare era (before Sept 2025) ---------------------------------------------------------

    def _bare(self, record: dict[str, Any], line_no: int) -> ParseResult:
        if "record_type" in record:
            return ParseResult.skip("state")
        kind = record.get("type")
        if kind is None and "id" in record:  # the first line: session id, instructions, git
            self.state.session_id = self.state.session_id or text_of(record.get("id"))
            return ParseResult.skip("session_meta")
        if kind == "message":
            return self._item(record, line_no, text_of(record.get("timestamp")))
        if isinstance(kind, str):
            return ParseResult.skip("tool_or_reasoning")
        return ParseResult.skip("bad_shape")


def _joined_text(content: Any, block_types: tuple[str, ...]) -> str | None:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") in block_types and isinstance(b.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def _assistant_text(line: bytes) -> str | None:
    """The text of an assistant message line held by `PreviousMessage` (decoded when asked)."""
    record, _ = decode_line(line)
    payload = record.get("payload", record) if record is not None else None
    return (
        _joined_text(payload.get("content"), ("output_text", "text"))
        if isinstance(payload, dict)
        else None
    )
