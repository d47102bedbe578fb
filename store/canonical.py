"""The canonical form of a statement that content keys and tombstones are computed over.

`norm2` (the current one): NFKC, case-fold, Unicode format characters (category Cf: soft
hyphen, zero-width space and joiners, bidi marks) dropped, whitespace collapsed, quotes of any
script around the statement and trailing sentence punctuation (ASCII, CJK, full-width, …)
dropped, and every character mapped to its Unicode TR39 confusable prototype (the "skeleton"),
so a Cyrillic `о` reads as a Latin `o`. The TR39 map is derived from the `confusable-homoglyphs`
package's data and ships as `memvet/assets/canonical/skeleton.json` (loaded on first use: a
fiftieth of the cost of deriving it in every writing process, and content keys do not move when
that package is upgraded; a test checks the two agree). Re-derive it with
`python -m memvet.store.canonical > assets/canonical/skeleton.json`.

`norm1` (the first version) was NFKC, case-fold, whitespace collapsed, trailing punctuation
dropped; keys made with it are re-derived by migration m004_norm2_keys.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache, lru_cache

NAME = "norm2"
# Sentence punctuation that ends a statement without changing what it says: ASCII, the
# ellipsis, CJK and half-width ideographic stops and commas, Arabic, Devanagari, Armenian,
# Ethiopic and Greek terminators. (Full-width ！？．；：，become ASCII under NFKC.)
TRAILING = frozenset(".!?;:,…‥。、｡､؟،؛۔।॥։።፧·")
# Quote-like marks that are not in the Pi/Pf categories: ASCII, CJK corner brackets and
# double primes, the low-9 quotes (category Ps).
QUOTES = frozenset("\"'`´「」『』〝〞〟„‚﹁﹂﹃﹄")


def is_quote(char: str) -> bool:
    return char in QUOTES or unicodedata.category(char) in ("Pi", "Pf")


SKELETON_TABLE = "canonical/skeleton.json"  # in memvet.assets


@cache
def _skeleton_table() -> dict[int, str]:
    """Each confusable character -> its TR39 prototype, as shipped (see the module's docstring)."""
    from importlib.resources import files  # not at import: most commands never need it

    shipped = json.loads(files("memvet.assets").joinpath(SKELETON_TABLE).read_text("utf-8"))
    return {int(code): target for code, target in shipped["table"].items()}


def derive_skeleton_table() -> dict[int, str]:
    """Each confusable character -> its TR39 prototype. The package stores the TR39 map in both
    directions: a prototype lists its sources, a source lists its one prototype. A source whose
    prototype lists only it back is a pair whose direction the data does not tell; both of
    them then map to the lower code point, which gives the pair one skeleton all the same."""
    from importlib.resources import files

    data = json.loads(
        files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8")
    )

    def clean(text: str) -> str:  # the data wraps right-to-left characters in LRM marks
        return "".join(c for c in text if unicodedata.category(c) != "Cf")

    table: dict[int, str] = {}
    for key, entries in data.items():
        char = clean(key)
        if len(char) != 1 or len(entries) != 1:
            continue  # a prototype (it lists several sources) maps to itself
        target = clean(entries[0]["c"])
        back = data.get(entries[0]["c"], [])
        if not target or target == char:
            continue
        if len(back) == 1 and len(target) == 1 and ord(target) > ord(char):
            continue  # an undirected pair: the lower code point is the pair's skeleton
        table[ord(char)] = target
    return table


def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, every character to its prototype, NFD again."""
    return unicodedata.normalize(
        "NFD", unicodedata.normalize("NFD", text).translate(_skeleton_table())
    )


def _trim(text: str) -> str:
    """Drop surrounding whitespace and quotes, and trailing sentence punctuation, until stable."""
    start, end = 0, len(text)
    while True:
        before = (start, end)
        while start < end and (text[start].isspace() or is_quote(text[start])):
            start += 1
        while end > start and (
            text[end - 1].isspace() or is_quote(text[end - 1]) or text[end - 1] in TRAILING
        ):
            end -= 1
        if (start, end) == before:
            return text[start:end]


def _fold(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    visible = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return " ".join(visible.split())


@lru_cache(maxsize=4096)  # a content key and a statement key are taken of each statement
def norm2(text: str) -> str:
    """The statement's canonical form (see the module's docstring)."""
    first = _trim(_fold(text))
    # The skeleton can turn a character into punctuation or a quote (an Armenian full stop
    # into a colon): fold and trim once more on the far side of it.
    return _trim(_fold(skeleton(first)))


if __name__ == "__main__":  # prints the table to ship (see the module's docstring)
    from importlib.metadata import version

    print(
        json.dumps(
            {
                "source": f"Unicode TR39 confusables, confusable-homoglyphs {version('confusable-homoglyphs')}",
                "license": "the Unicode License (TR39 data); confusable-homoglyphs is MIT",
                "table": {str(code): t for code, t in sorted(derive_skeleton_table().items())},
            },
            ensure_ascii=False,
            indent=0,
        )
    )
