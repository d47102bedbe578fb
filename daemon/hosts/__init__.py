"""One parser per host transcript format. `parser_for` picks it by host name."""

from __future__ import annotations

from memvet.daemon.hosts.base import TranscriptParser
from memvet.daemon.hosts.claude_code import ClaudeCodeParser
from memvet.daemon.hosts.codex import CodexParser
from memvet.daemon.hosts.turns import ParseResult, SessionState, Turn

# The hosts whose transcripts the daemon reads: one parser each, named by store/hosts.py.
_PARSERS = {parser.host: parser for parser in (ClaudeCodeParser, CodexParser)}
HOSTS = tuple(_PARSERS)


def parser_for(
    host: str, path: str, state: SessionState, *, want_assistant: bool = False
) -> TranscriptParser:
    try:
        parser_class = _PARSERS[host]
    except KeyError:
        raise ValueError(f"unknown host {host!r}; expected one of {', '.join(HOSTS)}") from None
    return parser_class(path, state, want_assistant=want_assistant)


__all__ = ["HOSTS", "ParseResult", "SessionState", "TranscriptParser", "Turn", "parser_for"]
