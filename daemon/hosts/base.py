"""What every host's transcript parser does to a line: the size check, the decode into its
declared type (hosts/formats.py), else into a dict; the host's own parts are `_from_bytes` and
`_parse_record`.

A new host's parser subclasses `TranscriptParser` and sets `host` to its store/hosts.py name.
"""

from __future__ import annotations

from typing import Any

from memvet.daemon.hosts.previous import PreviousMessage
from memvet.daemon.hosts.turns import MAX_LINE_BYTES, ParseResult, SessionState, decode_line


class TranscriptParser:
    host: str

    def __init__(self, path: str, state: SessionState, *, want_assistant: bool = False) -> None:
        self.state = state
        self.want_assistant = want_assistant
        self.previous = PreviousMessage(self._assistant_text, state.proposal)

    def parse(self, raw: bytes, line_no: int) -> ParseResult:
        stripped = raw.strip()
        if len(stripped) <= MAX_LINE_BYTES and stripped[:1] == b"{" and stripped[-1:] == b"}":
            quick = self._from_bytes(stripped, line_no)
            if quick is not None:
                return quick
        record, reason = decode_line(stripped)
        if record is None:
            return ParseResult.skip(reason or "invalid_json")
        return self._parse_record(record, line_no)

    def _from_bytes(self, line: bytes, line_no: int) -> ParseResult | None:
        """The result `_parse_record` would give, from the line decoded into its declared type;
        None: decode it as a dict. A line over MAX_LINE_BYTES is never decoded."""
        return None

    def _parse_record(self, record: dict[str, Any], line_no: int) -> ParseResult:
        raise NotImplementedError

    def _assistant_text(self, line: bytes) -> str | None:
        """The text a held raw assistant line holds (PreviousMessage decodes it only when
        needed); a parser that holds only decoded text never gets asked."""
        return None
