"""Text lowercased the way the regex engine folds case when it ignores case, so a word or
keyword looked for in the lowered text is the one a case-insensitive rule sees."""

from __future__ import annotations

import re

# Characters the regex engine, ignoring case, matches to an ASCII letter while str.lower() does
# not turn them into it: folded first, so the words seen here are the ones the regex sees.
FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
UNFOLDED = re.compile("[\u0130\u0131\u017f]")
WORD = re.compile(r"\w+")


def folded(text: str) -> str:
    """`text` lowercased the way the regex engine compares it when ignoring case."""
    if not text.isascii() and UNFOLDED.search(text) is not None:
        return text.translate(FOLD).lower()
    return text.lower()
