"""The stamp of the vocabulary that shapes the recall index's terms (term_index.py's postings):
a new release that adds a synonym, a concept word or a stop word changes what a memory's
statement expands to, and memories indexed before it would lack the new terms until re-indexed.

The stamp is a digest of the tables those terms come from (lexicon.py's concepts, synonyms.py's
groups, the stop words and word pattern of subjects.py, slot_vocabulary.py's rewrites and slot
cues, which shape a derived subject) and of TERM_RULES_VERSION, which stands for the code rules
(text_terms.stem, compound splitting, relevance.py's value tokens, go_language,
slots.normalise_subject): bump it when one of those changes what a text's terms are. The store
records the stamp its postings were built under (`store_meta`, META_KEY); term_reindex.py's
sweep re-indexes every memory when it differs.
"""

from __future__ import annotations

import functools
import hashlib
import json

TERM_RULES_VERSION = 1
META_KEY = "term_vocabulary"  # the stamp every memory's postings were built under
PROGRESS_KEY = "term_vocabulary_progress"  # a sweep under way: its stamp and last id done


def _patterns(table: tuple) -> list[list[str]]:
    return [[pattern.pattern, value] for pattern, value in table]


@functools.cache
def vocabulary_stamp() -> str:
    """A short digest of everything that decides a text's index terms (computed once)."""
    from memvet.store.lexicon import CONCEPTS
    from memvet.store.slot_vocabulary import REWRITES, SLOT_CUES
    from memvet.store.subjects import STOPWORDS, WORD
    from memvet.store.synonyms import GROUPS

    shape = {
        "rules": TERM_RULES_VERSION,
        "concepts": CONCEPTS,
        "synonyms": GROUPS,
        "stopwords": sorted(STOPWORDS),
        "word": WORD.pattern,
        "rewrites": _patterns(REWRITES),
        "slot_cues": _patterns(SLOT_CUES),
    }
    text = json.dumps(shape, sort_keys=True, ensure_ascii=False)
    return f"terms-{TERM_RULES_VERSION}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
