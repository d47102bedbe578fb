"""What text may enter the store, and how stored text is shown on a terminal.

`sanitise(text)` is the one gate every write path calls (admission, approval with an edited
statement, `memvet propose`, MCP, the inspector's edit, bulk import): terminal escape sequences and
control characters out, lone surrogates to U+FFFD (they cannot be encrypted), then secrets
redacted. `\\n` and `\\t` stay; `\\r\\n` and a lone `\\r` become `\\n` (a bare carriage return
would let a line overwrite itself on screen). `for_terminal(text)` escapes whatever is left or
came in before this gate existed, for CLI output.
"""

from __future__ import annotations

import re

from memvet.store.lazy_pattern import LazyPattern

TYPE_CHECKING = False  # every command's output passes here: records loads only to sanitise
if TYPE_CHECKING:
    from memvet.store.records import CandidateDraft

# ESC-introduced sequences, whole: CSI (`ESC [ … final`), OSC/DCS/SOS/PM/APC strings up to BEL or
# ST (or the end of the text), and two-character escapes; their 8-bit forms (CSI U+009B, OSC
# U+009D, …). Removing only the ESC would leave "[31m" in the statement.
_ESCAPE_SEQUENCE = LazyPattern(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
)
# Control characters (C0 but \t and \n, DEL, C1), bidi embeddings/overrides/isolates (they make a
# line read differently from what it says) and lone surrogates. \r is handled on its own.
# _UNSAFE checks every command's output; the others compile on first use (LazyPattern).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATE = LazyPattern("[\ud800-\udfff]")
_NEWLINES = LazyPattern(r"\r\n?")
_SHOWN_ESCAPED = LazyPattern(
    "[\r\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def clean_controls(text: str) -> str:
    """Escape sequences and control characters removed, lone surrogates replaced by U+FFFD."""
    if not _UNSAFE.search(text):  # the usual case: one scan, nothing copied
        return text
    text = _NEWLINES.sub("\n", text)
    text = _ESCAPE_SEQUENCE.sub("", text)
    text = _SURROGATE.sub("\ufffd", text)
    return _UNSAFE.sub("", text)


def storable(text: str) -> str:
    """Only what cannot be encrypted replaced (lone surrogates): for ids and paths kept verbatim."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def sanitise(text: str) -> str:
    """The text as the store keeps it: controls cleaned, then secrets redacted."""
    from memvet.store.redaction import redact  # its patterns compile on first use, not at import

    return redact(clean_controls(text)).text


def sanitise_optional(text: str | None) -> str | None:
    return None if text is None else sanitise(text)


def sanitise_draft(draft: CandidateDraft) -> CandidateDraft:
    """Every text of a draft the store will keep, sanitised (the draft itself is left as it was)."""
    from dataclasses import replace

    from memvet.store.records import Evidence

    ev = draft.evidence
    if ev is not None:
        ev = Evidence(
            path=storable(ev.path),
            line=ev.line,
            message_id=None if ev.message_id is None else storable(ev.message_id),
            timestamp=ev.timestamp,
            excerpt=sanitise(ev.excerpt),
            session=None if ev.session is None else storable(ev.session),
        )
    scope = draft.scope
    scope = replace(
        scope,
        user=storable(scope.user),
        workspace=None if scope.workspace is None else storable(scope.workspace),
        session=None if scope.session is None else storable(scope.session),
    )
    return replace(
        draft,
        statement=sanitise(draft.statement).strip(),
        evidence=ev,
        scope=scope,
        usage_boundary=sanitise_optional(draft.usage_boundary),
        supersedes_hint=sanitise_optional(draft.supersedes_hint),
        reasons=tuple(storable(r) for r in draft.reasons),
    )


def for_terminal(text: str) -> str:
    """Anything that could drive a terminal shown as a visible escape (`\\x1b`, `\\u202e`)."""
    if not _UNSAFE.search(text) and "\r" not in text:
        return text
    return _SHOWN_ESCAPED.sub(_visible, text)


def _visible(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def json_safe(document: str) -> str:
    """A JSON document (ensure_ascii=False) with the same characters as `\\u` escapes: still
    the same JSON, and nothing left for a terminal to act on."""
    if not _UNSAFE.search(document):
        return document
    return _UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", document)
