"""The assistant message before a user prompt, kept for adoption ("yes, make that the rule").

The parsers do not decode assistant lines (most of a transcript's bytes): they hand the raw
line of a text-bearing assistant message to `PreviousMessage.hold`, which keeps a reference to
it, bounded. Its text is decoded only when someone asks (a reply that may adopt a proposal, or
the end of a batch). Across batches only what the pipeline reduced it to survives, in the
parser state: the redacted proposal sentence and its line, never the message itself.
"""

from __future__ import annotations

from collections.abc import Callable

HELD_LINES = 8  # an assistant message written as several lines (one content block each)
HELD_BYTES = 512 * 1024  # a longer message is a pasted document: the proposal is not in it


class PreviousMessage:
    """The latest assistant message that had text, as raw lines or as a restored proposal."""

    __slots__ = ("_decode", "_lines", "_size", "_message_id", "line", "_reduced")

    def __init__(self, decode: Callable[[bytes], str | None], restored: list | None = None) -> None:
        self._decode = decode  # raw line -> the message text it holds (None: none)
        self._lines: list[bytes | str] = []  # raw lines, or text already decoded
        self._size = 0
        self._message_id: str | None = None
        self.line = 0  # line number of its first text line
        self._reduced: str | None = None  # what the pipeline made of it (restored from state)
        if (
            isinstance(restored, list)
            and len(restored) == 2
            and isinstance(restored[0], int)
            and isinstance(restored[1], str)
        ):
            self.line, self._reduced = restored

    def hold(self, line: bytes | str, message_id: str | None, line_no: int) -> None:
        """A raw assistant line with a text block (or, from a decoded line, its text)."""
        if message_id is None or message_id != self._message_id:
            self._lines, self._size, self._message_id, self.line = [], 0, message_id, line_no
            self._reduced = None
        if len(self._lines) < HELD_LINES and self._size + len(line) <= HELD_BYTES:
            self._lines.append(line)
            self._size += len(line)

    hold_text = hold

    def text(self) -> str:
        """The message's text (decoded now), or "" when there is none or only a reduction."""
        texts = [
            t
            for t in (item if isinstance(item, str) else self._decode(item) for item in self._lines)
            if t
        ]
        return "\n\n".join(texts)

    def reduced(self, reduce: Callable[[str], str | None]) -> str | None:
        """`reduce(text)` of the held message, computed once; the restored value otherwise."""
        if self._lines:
            self._reduced = reduce(self.text()) or ""
            self._lines, self._size = [], 0
        return self._reduced or None

    def to_state(self) -> list | None:
        return [self.line, self._reduced] if self._reduced else None
