"""A text's terms, the one normalisation every comparison of words shares: content words,
stemmed, compounds also split, plus the lexicon's concept tokens they name. The pack's prompt
match (prompt_match.py), recall (relevance.py), subjects and claims (slots.py, claims.py) all
compare words through it, so a word means the same thing to each.

Standard library, `memvet.store.subjects` and `memvet.store.lexicon` only: the hook's prompt
path loads it.
"""

from __future__ import annotations

import re

from memvet.store.lexicon import compile_concepts
from memvet.store.subjects import STOPWORDS, WORD


def stem(word: str) -> str:
    """A light suffix stripper (a small part of Porter's steps 1a/1b, plus -ly and a final -e),
    so "tests", "testing" and "tested" meet "test", "logging" meets "logs", "locally" "local".
    Only ever compared with itself: its stems need not be words."""
    found = _STEMS.get(word)
    if found is None:
        found = _stripped(word)
        if len(_STEMS) < _TERMS_MAX:
            _STEMS[word] = found
    return found


# word -> its stem: recall's claims stem the same words for every pair they compare (issue 15)
_STEMS: dict[str, str] = {}


def _stripped(word: str) -> str:
    if len(word) > 4 and word.endswith("sses"):
        word = word[:-2]
    elif len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and any(c in "aeiouy" for c in base):
            word = base
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # shipp(ed) -> ship, logg(ing) -> log
            break
    if len(word) > 5 and word.endswith("ly"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]  # release / released / releases all -> releas
    return word


_TERMS: dict[str, tuple[str, ...]] = {}  # raw word -> its terms; words repeat across memories
_TERMS_MAX = 50_000  # words; bounds the daemon's memory
_PARTS = re.compile(r"[-_./+#]+")


def _word_terms(word: str) -> tuple[str, ...]:
    """The word (trimmed as subjects.content_words trims it) and, for a compound such as
    `log/slog`, `dag_id` or `legacy-billing`, each of its parts."""
    word = word.rstrip(".-/")
    parts = [word, *_PARTS.split(word)] if _PARTS.search(word) else [word]
    return tuple(
        dict.fromkeys(stem(p) for p in parts if (len(p) > 1 or p.isdigit()) and p not in STOPWORDS)
    )


def plain_terms(text: str) -> set[str]:
    out: set[str] = set()
    for word in set(WORD.findall(text.casefold())):
        found = _TERMS.get(word)
        if found is None:
            found = _word_terms(word)
            if len(_TERMS) < _TERMS_MAX:
                _TERMS[word] = found
        out.update(found)
    return out


CONCEPTS, CONCEPT_PHRASES = compile_concepts(plain_terms)


def terms(text: str) -> frozenset[str]:
    """Content words, stemmed, compounds also split, plus the lexicon's concept tokens they name
    ("pnpm" -> "~package-manager"). Cached per word: the no-daemon prompt path reads every
    memory in scope, and the regex and stemming per word were most of its time."""
    out = plain_terms(text)
    concepts = {c for term in out for c in CONCEPTS.get(term, ())}
    concepts.update(token for phrase, token in CONCEPT_PHRASES if phrase <= out)
    return frozenset(out | concepts)
