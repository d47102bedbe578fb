"""Claude Code prompts typed while the agent was busy (research note §1.2).

Claude Code writes such a prompt as a `queue-operation` line (`operation: "enqueue"`, the text
in `content`) when it is typed. Later it either hands it to the model as a new turn, which
writes an ordinary `user` line with the same text, or folds it into the running turn, which
(2.1.97+) writes an `attachment` line of type `queued_command` with the text in `prompt` and a
`remove` operation. Older builds wrote only the enqueue line for a folded prompt, so the enqueue
line is the one read; what follows it is an echo, recognised by a fingerprint of its text.
"""

from __future__ import annotations

import re
from typing import Any

from memvet.daemon.hosts.turns import ParseResult, SessionState, Turn, fingerprint, text_of

_SLASH_COMMAND = re.compile(r"^\s*/[A-Za-z][\w:\-]*(?:\s|$)")  # "/mcp", "/review x"; not "/usr/bin"
# Text a queued_command carries that no person typed (another session, a task, a hook).
_NOT_TYPED_PREFIXES = (
    "<task-notification>",
    "<agent-message",
    "<channel",
    "<system-reminder>",
    "<command-name>",
    "<local-command",
)
ECHO = "queued_echo"


def enqueued(record: dict[str, Any], line_no: int, state: SessionState) -> ParseResult:
    """A `queue-operation` line: the prompt of an enqueue, a skip for every other operation."""
    if record.get("operation") != "enqueue":
        return ParseResult.skip("queue-operation")
    text = _text(record.get("content"))
    rejected = _rejected(text, state)
    if rejected is not None:
        return rejected
    assert text is not None
    state.await_echo(fingerprint(text))
    return ParseResult.of(Turn("user", text, line_no, None, text_of(record.get("timestamp"))))


def attached(record: dict[str, Any], line_no: int, state: SessionState) -> ParseResult:
    """An `attachment` line: a queued prompt the person typed, unless its enqueue was read."""
    attachment = record.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return ParseResult.skip("attachment")
    if state.sidechain or record.get("isSidechain") is True:
        return ParseResult.skip("sidechain")
    origin = attachment.get("origin")
    origin_kind = (
        origin.get("kind") if isinstance(origin, dict) else "human"
    )  # absent before 2.1.1xx
    if (
        attachment.get("commandMode", "prompt") != "prompt"
        or origin_kind != "human"
        or attachment.get("isMeta") is True
        or record.get("isMeta") is True
    ):
        return ParseResult.skip("not_typed")
    text = _text(attachment.get("prompt"))
    rejected = _rejected(text, state)
    if rejected is not None:
        return rejected
    assert text is not None
    if state.take_echo(fingerprint(text)):
        return ParseResult.skip(ECHO)
    uuid = text_of(record.get("uuid"))
    if uuid is not None and state.seen(uuid):
        return ParseResult.skip("duplicate")
    return ParseResult.of(Turn("user", text, line_no, uuid, text_of(record.get("timestamp"))))


def is_echo(text: str, state: SessionState) -> bool:
    """Is this `user` line the turn Claude Code made of a prompt already read when queued?"""
    return state.awaits_echo and state.take_echo(fingerprint(text))


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [
            b["text"]
            for b in value
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        return "\n\n".join(texts) if texts else None
    return None


def _rejected(text: str | None, state: SessionState) -> ParseResult | None:
    if state.sidechain:
        return ParseResult.skip("sidechain")
    if text is None:
        return ParseResult.skip("bad_shape")
    if not text.strip():
        return ParseResult.skip("no_text")
    if _SLASH_COMMAND.match(text):
        return ParseResult.skip("slash_command")
    if text.lstrip().startswith(_NOT_TYPED_PREFIXES):
        return ParseResult.skip("not_typed")
    return None
