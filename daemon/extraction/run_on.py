"""Sentences typed without their full stop: "Bug: the API returns 500 on empty carts My style
everywhere is const over let" is two sentences. The splitter (sentence_split.py) cuts at
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
# Cheap first look: a lower-case end, spaces, a capital that may open a sentence. Written to
# start with its space (the engine skips ahead to one) and look behind it: found where
# r"[a-z0-9`'\")\]] +(?:[MTNADPWOUSKJBTHI]|##)" is found, in half the time.
_RUN_ON_STARTS = re.compile(r" (?<=[a-z0-9`'\")\]] ) *(?:[MTNADPWOUSKJBTHI]|##)")
_LEADS_IN = frozenset(
    "and or but so because that if when as than then where which who whom said says is are "
    "was were be the a an of to in on at for with by from into called named".split()
)
# "I" opens a clause mid-sentence too: "the editor I use is Neovim" (a relative clause without
# "that"), "whatever I pick". Cut before a first-person clause only when what comes before is a
# clause of its own (four words or more), no word before it leads into it, and the "I" clause
# has no verb of its own right after (the relative clause's "… I use is Neovim").
_I_CLAUSE = re.compile(
    r"(?<=[a-z0-9`'\")\]])\s+(?=I(?:'m|'d|'ve| am| prefer| always| never| usually| mostly| "
    r"generally| like| want| use| live| work| write| name| code| run)\b)"
)
_I_LEADS_IN = _LEADS_IN | frozenset(
    "what whatever whichever wherever whenever how why until unless since before after while "
    "once whether though although like".split()
)
# What opens a fronted phrase, not a clause of its own.
_FRONTED = frozenset(
    "in on for across at with when if after before since whenever as from by during unlike like "
    "throughout within outside inside".split()
)
_VERB_AFTER = re.compile(r"I\S*(?: \S+){0,4} (?:is|are|was|were|works|worked|looks)\b")


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
    for found in _cuts(piece):
        before = piece[start : found.start()]
        if found.re is _I_CLAUSE:
            words = before.split()
            if (
                len(words) < 4
                or words[-1].lower() in _I_LEADS_IN
                or words[0].lower() in _FRONTED  # "In all my projects I want …": one sentence
                or _VERB_AFTER.match(piece, found.end()) is not None
            ):
                continue
        elif before.rsplit(None, 1)[-1].lower() in _LEADS_IN:
            continue
        parts.append(before + ".")
        start = found.end()
    parts.append(piece[start:])
    return parts


def _cuts(piece: str) -> list[re.Match[str]]:
    found = list(_RUN_ON.finditer(piece))
    if " I" in piece:
        found = sorted([*found, *_I_CLAUSE.finditer(piece)], key=lambda m: m.start())
    return found
