"""Sentences typed without their full stop: "Bug: the API returns 500 on empty carts My style
everywhere is const over let" is two sentences. The splitter (daemon/extract.py) cuts at
punctuation; this cuts such a run-on before a word that only opens a sentence, when the word
before it cannot lead into it ("we use Postgres and The Guardian style" stays whole).
"""

from __future__ import annotations

import re

# Words that open a sentence and are written with a capital nowhere else.
_RUN_ON = re.compile(
    r"(?<=[a-z0-9`'\")\]])\s+(?=(?:My|The|No|Never|Always|Don't|Please|We|We're|Our|Until|"
    r"Decided|Stop|Keep|Just|Nice|Thanks|Answer|Bug|TODO|What|Why|How)\b|##)"
)
_RUN_ON_STARTS = re.compile(r"[a-z0-9`'\")\]] +(?:[MTNADPWOUSKJBTH]|##)")  # cheap first look
_LEADS_IN = frozenset(
    "and or but so because that if when as than then where which who whom said says is are "
    "was were be the a an of to in on at for with by from into called named".split()
)


def cut_run_ons(pieces: list[str], text: str) -> list[str]:
    """`pieces` (sentences of `text`) with run-ons cut."""
    if _RUN_ON_STARTS.search(text) is None:  # most texts
        return pieces
    return [part for piece in pieces for part in _run_on(piece)]


def _run_on(piece: str) -> list[str]:
    """Sentences typed without their full stop ("Bug: the API returns 500 My style is …"): cut
    before a word that only opens a sentence when it follows a lowercase word that cannot lead
    into it. The cut piece gets its full stop, so no clause merging joins it back."""
    parts, start = [], 0
    for found in _RUN_ON.finditer(piece):
        before = piece[start : found.start()]
        if before.rsplit(None, 1)[-1].lower() in _LEADS_IN:
            continue
        parts.append(before + ".")
        start = found.end()
    parts.append(piece[start:])
    return parts
