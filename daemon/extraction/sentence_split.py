"""A prompt's sentences, for the extraction rules (extract.py): code blocks and pasted output
(logs, stack traces, shell sessions, diffs, code lines) are set aside, paragraphs are cut into
sentences (code spans, URLs and paths are never cut), and each sentence is lightly normalised
(bullets, discourse openers like "Also," and a leading "please" go; the words stay the person's).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memvet.daemon.extraction.casefold import folded
from memvet.daemon.extraction.filters import mask_protected, unmask
from memvet.daemon.extraction.run_on import cut_run_ons
from memvet.store.lazy_pattern import LazyPattern

_FENCED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_BULLET = re.compile(r"^\s*(?:[-*•▪+]|\d{1,3}[.)]|[a-z][.)])\s+")
_SENTENCE_END = re.compile(
    r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Za-z0-9\ue000])|\s*;\s+|\s+[—–]\s+(?=[A-Z])"
    r"|,\s+(?=(?:and\s+|but\s+|so\s+)?(?:dont|don't|do not|never|always|please|pls)\b)"
    r"|,\s+(?=(?!then\b)(?:the |our )?[\w./\-#]+(?: [\w./\-#]+)? (?:is|are|go|goes|runs?|lives?|uses?|needs?) (?!\w+ing\b))"
    r"|,\s+(?=we (?:dont|don't|do not|never|always|only)\b)"
    r"|,\s+(?:and\s+)?(?=[\w./\-]+ (?:has to|have to|must|needs to)\b)"
)
_BREAK_CHARS = re.compile("[.!?;,\u2014\u2013]")  # where a _SENTENCE_END match can begin
_ABBREVIATION = re.compile(r"(?i)(?:\b(?:e\.g|i\.e|etc|vs|approx|incl|cf|mr|mrs|ms|dr|no|fig)\.)$")
_OPENER = re.compile(
    r"^(?:(?:also|and|but|so|oh|btw|by the way|additionally|plus|firstly|secondly|thirdly|lastly|"
    r"finally|first|second|third|one more thing|another thing|last but not least|likewise|similarly|quick note|"
    r"in addition|moreover|furthermore|fyi|heads up|note|pls|ps|sorry|oops|whoops|my bad|no wait|wait|reminder|"
    r"yes|yep|yeah)"
    r"\b[,:;]?\s+|"
    r"(?:now|ok|okay|well|alright|right|anyway|great|good|perfect|excellent|cool|sure|yes|yeah|"
    r"hey|hi|hello)\b\s*[,:;!.\-—]+\s+)+",
    re.I,
)
_OPENER_STARTS = ("",)  # every text: its alternatives start too many ways to list
_PLEASE = re.compile(r"^please,?\s+", re.I)
_PLEASE_STARTS = ("please",)  # what every match starts with (test_declared_words.py checks)
# "- yaml keys in snake_case": a dash bullet, which the diff skip-line also matches; read as a
# bullet when nothing else in the text looks like a diff (no "+" line, no hunk header).
_DASH_BULLET = LazyPattern(r"^- (?=[A-Za-z`])")  # compiled on first use: start-up
_DIFF_MARK = LazyPattern(r"(?m)^(?:\+|@@ |diff --git )")
_SCOPE_PHRASE = re.compile(
    r"^\s*(?:in|for|across|on|at|everywhere|globally|here)\b[^,.;]{0,40}$", re.I
)


def split_sentences(text: str, skip_line: Callable[[str], bool]) -> list[str]:
    """The normalised sentences of a prompt: fenced code and the lines `skip_line` says are
    pasted output are set aside, bullets start a sentence, a line starting lower-case
    continues the one before."""
    if "```" in text or "~~~" in text:
        text = _FENCED.sub("\n", text)
    units: list[str] = []
    diff_like: bool | None = None  # asked once, only when a dash bullet is skipped
    for line in text.splitlines():
        if not line.strip() or skip_line(line):
            if _DASH_BULLET.match(line) and not skip_line(line[2:]):
                if diff_like is None:
                    diff_like = _DIFF_MARK.search(text) is not None
                if not diff_like:
                    units.append(line[2:].strip())  # a bullet starts a sentence
                    continue
            if units and units[-1]:
                units.append("")  # a paragraph break
            continue
        bullet = _BULLET.match(line)
        line = (line[bullet.end() :] if bullet is not None else line).strip()
        joins = (
            units
            and units[-1]
            and bullet is None
            and line[:1].islower()
            and units[-1][-1:] not in ".!?:;"
        )
        if joins:
            units[-1] = f"{units[-1]} {line}"
        else:
            units.append(line)
    sentences = []
    for unit in filter(None, units):
        sentences.extend(s for s in (normalise(p) for p in _split_unit(unit)) if s)
    return sentences


def _split_unit(unit: str) -> list[str]:
    """Sentences of one paragraph; code spans, URLs and paths are never cut."""
    masked, slots = mask_protected(unit)
    pieces, start = [], 0
    for boundary in _boundaries(masked):
        head = masked[start : boundary.start()]
        if _ABBREVIATION.search(head):
            continue
        pieces.append(head)
        start = boundary.end()
    pieces.append(masked[start:])
    pieces = cut_run_ons(pieces, masked)
    merged: list[str] = []
    for piece in pieces:  # "In all my projects, always …": a scope phrase belongs to what follows
        if merged and _SCOPE_PHRASE.match(merged[-1]):
            merged[-1] = f"{merged[-1].rstrip()}, {piece.lstrip()}"
        else:
            merged.append(piece)
    return [unmask(p, slots) if "\ue000" in p else p for p in merged]


def _boundaries(masked: str) -> list[re.Match[str]]:
    """What `_SENTENCE_END.finditer(masked)` finds, tried only where a match can begin: after
    . ! ?, at a comma, and in the spaces before a semicolon or a dash (or at the semicolon)."""
    starts: set[int] = set()
    for found in _BREAK_CHARS.finditer(masked):
        at = found.start()
        char = masked[at]
        if char in ".!?":
            starts.add(at + 1)
        elif char == ",":
            starts.add(at)
        else:
            space = at
            while space > 0 and masked[space - 1].isspace():
                space -= 1
            starts.update(range(space, at + 1))
    matches, end = [], 0
    for start in sorted(starts):
        if start >= end and (boundary := _SENTENCE_END.match(masked, start)) is not None:
            matches.append(boundary)
            end = boundary.end()
    return matches


def normalise(sentence: str) -> str:
    """Light clean-up only: whitespace, bullets, an opening "Also,"/"Now," or "please"."""
    text = " ".join(sentence.split()).strip(" -—–")
    if text.startswith("(") and text.count("(") > text.count(")"):  # "(yes api is on 9090 now"
        text = text[1:]
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    if folded(text[:64]).startswith(_OPENER_STARTS):  # else the pattern cannot match
        text = _OPENER.sub("", text)
    if folded(text[:64]).startswith(_PLEASE_STARTS):
        text = _PLEASE.sub("", text)
    text = text.strip(" -—–")
    if folded(text[:64]).startswith(_PLEASE_STARTS):
        text = _PLEASE.sub("", text)
    if not text:
        return ""
    return text[0].upper() + text[1:] if text[0].islower() else text
