"""One parser per host transcript format. `parser_for` picks it by host name."""

from __future__ import annotations

from memvet.daemon.hosts.claude_code import ClaudeCodeParser
from memvet.daemon.hosts.codex import CodexParser
from memvet.daemon.hosts.turns import ParseResult, SessionState, Turn

HOSTS = ("claude-code", "codex")

_PARSERS = {"claude-code": ClaudeCodeParser, "codex": CodexParser}


def parser_for(host: str, path: str, state: SessionState, *, want_assistant: bool = False
               ) -> ClaudeCodeParser | CodexParser:
    try:
        parser_class = _PARSERS[host]
    except KeyError:
        raise ValueError(f"unknown host {host!r}; expected one of {', '.join(HOSTS)}") from None
    return parser_class(path, state, want_assistant=want_assistant)


__all__ = ["HOSTS", "ParseResult", "SessionState", "Turn", "parser_for"]
