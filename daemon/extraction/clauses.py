"""One rule, one candidate: the clauses of one rule become one statement a reviewer can
approve as it stands.

The splitter cuts a message at sentence ends and also inside a sentence (before ", never",
"; ", " — "), so one rule can come out as two or three clauses ("We use pnpm in this repo" +
"never npm"). Here, in message order:

- clauses of one sentence (nothing but , ; — between them) that are statements, or short
  fragments beside a statement, are joined back into one statement;
- a statement that depends on the sentence before it (it opens with a pronoun subject, "It must
  run first", or is elliptical, "Never with heroku") is joined to that sentence; with none
  before it, it cannot stand and is dropped;
- a statement that only widens the scope of what came before ("That goes for all my repos") is
  no statement: it is handed back as a scope cue;
- a one-off task clause that shares its object with a rule of the same message gives way to it.

A joined statement keeps every word of its clauses, so a "never" in one of them stays in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import Any

from memvet.daemon.extraction.features import typed_demonstrative
from memvet.daemon.extraction.scope_cues import WIDENS_ANY
from memvet.store.lazy_pattern import LazyPattern
from memvet.store.vocabulary import Polarity

# Read per clause and per sentence: module constants, not a member lookup each time.
ASSERT, DENY = Polarity.ASSERT, Polarity.DENY
# Compiled on first use (lazy_pattern.py): only messages with a candidate get here.
# A list item starts a sentence: the flattened gap before it opens with its bullet ("repo: - x").
_SENTENCE_GAP = LazyPattern(r"[.!?\n]|^\s*(?:[-*\u2022\u25aa+]|\d{1,3}[.)])\s")
_DEPENDENT = LazyPattern(
    r"(?i)^(?:it|it's|they|them|he|she|same|ditto)\b"
    r"|^(?:this|that|these|those)\s+(?:is|are|was|were|goes|go|applies|apply|should|must|needs?|has|have|"
    r"means|also|too|one|ones|includes|works|stays|can|will|'s)\b(?![^:]{0,40}:\s*\S)"  # "this goes for X: <rule>"
    r"|^(?:never|not|no|always|only)\s+(?:with|on|in|for|at|to|from|via|through|over|under|by|after|before)\b"
)
# The same with the demonstrative mistyped ("thsi has to be …", "htat must …").
_TYPED_DEPENDENT = LazyPattern(
    r"(?i)^([a-z]{3,6})\s+(?:is|are|was|were|goes|go|applies|apply|should|must|needs?|has|have|"
    r"means|also|too|can|will|stays)\b"
)


# A rule whose object points back ("Naming needs a prefix. Start them with 'x_'.", "Add this
# decorator to all methods", "Always include 'chx' in them"): what "them" is, the sentence before says.
_POINTS_BACK = LazyPattern(
    r"(?i)^(?:(?:from now on|going forward|moving forward|always|never|please|just|also|and|so|"
    r"specifically|(?:ensure|make sure)(?: that)? you|remember to)[,\s]+)*"
    r"(?:start|end|prefix|suffix|include|add|append|put|apply|attach|decorate|tag|mark|wrap)\s+"
    r"(?:it|them|these|those|this\s+(?:decorator|prefix|suffix|string|convention|module|rule|"
    r"format|tag|label))\b(?![^:]{0,40}:\s*\S)"  # "tag it like the rest: every resource gets …"
    r"|^(?:always|never)\s+\w+\b[^.;:]{0,60}\b(?:in|to|on|with)\s+(?:it|them)\W*$"
)

# "It" with nothing to point back to: "It's important that …", "It is best to …".
_EXPLETIVE_IT = LazyPattern(
    r"(?i)^it(?:'s| is) (?:really |very |always )?(?:important|crucial|essential|vital|key|best|"
    r"better|good practice|required|mandatory|necessary|worth)\b[^.;]{0,40}?\b(?:that|to)\b"
)


def depends_on_before(sentence: str) -> bool:
    """A clause that leans on the sentence before it ("That must stay private!"): never a rule
    alone."""
    if _DEPENDENT.match(sentence) is not None:
        return _EXPLETIVE_IT.match(sentence) is None
    if _POINTS_BACK.match(sentence) is not None:
        return True
    typed = _TYPED_DEPENDENT.match(sentence)
    return typed is not None and typed_demonstrative(typed.group(1).lower())


_SCOPE_ONLY = LazyPattern(
    r"(?i)^(?:this|that|it|same|the same|these|those)\s+(?:also\s+)?(?:goes|applies|holds|is true|counts|stands)?\s*"
    r"(?:for|to|in|across|on)?\b"
)
_TASK_VERB = LazyPattern(
    r"(?i)^(?:fix|rename|add|remove|delete|update|port|move|change|create|write|rewrite|refactor|bump|"
    r"revert|drop|replace|implement|migrate|convert|split|merge|edit|make)\b"
)
# Clauses that say nothing of their own: never glued to a statement.
_FILLER = LazyPattern(
    r"(?i)^(?:also|and|but|so|ok|okay|yes|yeah|yep|no|nope|thanks|thank you|thx|ty|please|pls|"
    r"btw|oh|well|now|then|plus|hmm|right|sure|great|cool|perfect|nice|again|anyway|"
    r"wait|sorry|fine|good|lol|haha)(?:\W+(?:also|and|but|so|thanks|please|again|then|now))*\W*$"
)
_NEGATION = LazyPattern(r"(?i)\b(?:never|not|no|don't|dont|do not|avoid|stop|without)\b|n't\b")
_WORD = LazyPattern(r"[a-z0-9_./'\-]{2,}")
_STOP = frozenset(
    "the and for with that this from into onto not never always use uses only our your "
    "their them they its it's should must have has all any every".split()
)
# Words that name nothing: a statement made only of them ("Don't do that from now on") points
# at something said elsewhere.
_EMPTY = _STOP | frozenset(
    "don't dont does did doing done now going forward keep please again time "
    "more way like those these here there what which thing things stuff one on in to of is be do we so or "
    "at by as an up if no it me my us".split()
)
_BLOCKED = -2  # in `previous`: a sentence nothing may be glued to
FRAGMENT_WORDS = 5  # a clause this short without a statement of its own belongs to its neighbour


def merge_clauses(
    text: str,
    parts: Sequence[tuple[str, Any]],
    max_chars: int,
    *,
    rejected: AbstractSet[int] = frozenset(),
    framing: AbstractSet[int] = frozenset(),
) -> tuple[list[Any], list[str]]:
    """`parts`: the message's sentences in order, each with its `Extracted` or None. Returns
    the statements after merging and the sentences that are not statements (scope cues count).
    `rejected`: parts a reject rule ruled out ("don't ship it today"), never glued to a rule;
    `framing`: those of them that govern the clause after them in the same sentence ("According
    to the README, …"), which is then no statement either."""
    raw = " ".join(text.split())
    flat = raw.lower()
    spans = _locate(flat, [sentence for sentence, _ in parts])
    if len(flat) == len(raw):  # as typed: "…, never npm" goes on in lower case
        parts = [
            (_as_typed(sentence, raw, span), result)
            for (sentence, result), span in zip(parts, spans, strict=True)
        ]
    found: list[Any] = []
    others: list[str] = []
    previous: tuple[str, Any, int] | None = None  # (sentence, its result, index in `found` or -1)
    for index, (sentence, result) in enumerate(parts):
        same_sentence = index > 0 and _joined_in_text(flat, spans[index - 1], spans[index])
        if index in rejected or (same_sentence and index - 1 in framing):
            others.append(sentence)
            previous = (sentence, None, _BLOCKED)
            continue
        if result is None:
            if (
                same_sentence
                and previous is not None
                and previous[2] >= 0
                and len(sentence.split()) <= FRAGMENT_WORDS
                and not _FILLER.match(sentence)
            ):
                found[previous[2]] = _join(found[previous[2]], sentence, ", ", None, max_chars)
                previous = (sentence, None, previous[2])
                continue
            if previous is not None and previous[2] >= 0 and _POINTS_BACK.match(sentence):
                # "Branch names need a prefix. Start them with feat/.": the rule's own words
                found[previous[2]] = _join(found[previous[2]], sentence, " ", None, max_chars)
                previous = (sentence, None, previous[2])
                continue
            others.append(sentence)
            previous = (sentence, None, -1)
            continue
        if (
            _SCOPE_ONLY.match(sentence)
            and WIDENS_ANY.search(sentence)
            and len(sentence.split()) <= 10
        ):
            others.append(sentence)  # "That goes for all my projects": a scope cue, not a rule
            previous = (sentence, None, -1)
            continue
        dependent = depends_on_before(sentence) or not (_words(sentence) - _EMPTY)
        if previous is not None and (same_sentence or dependent):
            merged = _merged_with(
                previous, sentence, result, found, others, same_sentence, max_chars
            )
            if merged is not None:
                previous = (sentence, result, merged)
                continue
        if dependent:
            previous = (sentence, None, -1)  # a clause nobody can approve on its own
            continue
        found.append(result)
        previous = (sentence, result, len(found) - 1)
    return _rules_over_tasks(found), others


def _merged_with(
    previous: tuple[str, Any, int],
    sentence: str,
    result: Any,
    found: list[Any],
    others: list[str],
    same_sentence: bool,
    max_chars: int,
) -> int | None:
    """Join `result` to the sentence before it; the index in `found` of the joined statement,
    or None when they stay apart."""
    prev_sentence, _, at = previous
    if at == _BLOCKED:
        return None
    glue = ", " if same_sentence else " "
    if at >= 0:
        merged = _join(found[at], sentence, glue, result, max_chars)
        if merged is found[at]:
            return None
        found[at] = merged
        return at
    if _FILLER.match(prev_sentence):
        return None
    if (
        same_sentence
        and not depends_on_before(sentence)
        and (len(prev_sentence.split()) > FRAGMENT_WORDS or _TASK_VERB.match(prev_sentence))
    ):
        return None  # a task clause before a rule in one sentence: the rule stands alone
    merged = _join(result, prev_sentence, glue, None, max_chars, before=sentence)
    if merged is result:
        return None
    if others and others[-1] == prev_sentence:
        others.pop()
    found.append(merged)
    return len(found) - 1


def _join(
    base: Any, clause: str, glue: str, clause_result: Any, max_chars: int, *, before: str = ""
) -> Any:
    """`base` with `clause` after it (or before it: `before` is then the base's sentence as
    typed), or `base` itself when too long."""
    if before:
        statement = f"{_end_sentence(clause, glue)}{glue}{_later(before, glue)}"
    else:
        statement = f"{_end_sentence(base.statement, glue)}{glue}{_later(clause, glue)}"
    if len(statement) > max_chars:
        return base
    kind, confidence, polarity = base.kind, base.confidence, base.polarity
    reasons = list(base.reasons)
    if clause_result is None and before and base.polarity == DENY and not _NEGATION.search(clause):
        polarity = ASSERT  # "Deploy to fly.io. Never with heroku." asserts fly.io
    if clause_result is not None:
        # "X, never Y": the rule is X (its kind); the "never Y" only bounds it
        keeps_kind = base.polarity == ASSERT and clause_result.polarity == DENY
        if clause_result.confidence > confidence and not keeps_kind:
            kind, confidence = clause_result.kind, clause_result.confidence
        if base.polarity == DENY and clause_result.polarity == ASSERT:
            polarity = ASSERT  # "X, never Y" asserts X; the "never Y" stays in the words
        reasons += [r for r in clause_result.reasons if r not in reasons]
    if "clauses.merged" not in reasons:
        reasons.append("clauses.merged")
    return replace(
        base,
        statement=statement,
        kind=kind,
        confidence=confidence,
        polarity=polarity,
        reasons=tuple(reasons),
        user_global=base.user_global
        or bool(clause_result is not None and clause_result.user_global),
    )


def _later(text: str, glue: str) -> str:
    return text[0].upper() + text[1:] if glue == " " and text[:1].islower() else text


def _end_sentence(text: str, glue: str) -> str:
    text = text.rstrip()
    if glue == " " and text[-1:] not in ".!?":
        return text + "."
    return text.rstrip(",;") if glue != " " else text


def _as_typed(sentence: str, raw: str, span: tuple[int, int] | None) -> str:
    """The sentence with its first letter as the person typed it (the splitter capitalises)."""
    if span is None or not sentence or not raw[span[0] : span[0] + 1].islower():
        return sentence
    return sentence[0].lower() + sentence[1:]


def _locate(flat: str, sentences: list[str]) -> list[tuple[int, int] | None]:
    """Where each sentence lies in the flattened, case-folded message (None: not found)."""
    spans: list[tuple[int, int] | None] = []
    cursor = 0
    for sentence in sentences:
        needle = " ".join(sentence.split()).casefold()
        at = flat.find(needle, cursor)
        if at < 0:
            spans.append(None)
            continue
        spans.append((at, at + len(needle)))
        cursor = at + len(needle)
    return spans


def _joined_in_text(flat: str, left: tuple[int, int] | None, right: tuple[int, int] | None) -> bool:
    """Are two consecutive sentences clauses of one sentence of the message? Only , ; : — or a
    connective between them, no sentence end and no line break."""
    if left is None or right is None or right[0] < left[1]:
        return False
    if flat[left[1] - 1 : left[1]] in (".", "!", "?"):
        return False
    gap = flat[left[1] : right[0]]
    return not _SENTENCE_GAP.search(gap) and len(gap) <= 24


def _words(statement: str) -> set[str]:
    return {w.strip("./-") for w in _WORD.findall(statement.casefold())} - _STOP


def _is_rule(item: Any) -> bool:
    return any(r.startswith(("durable.", "constraint.", "correction.")) for r in item.reasons)


def _rules_over_tasks(found: list[Any]) -> list[Any]:
    """A task clause ("Rename utils.py to helpers.py") beside a rule about the same object
    ("helpers modules always go under src/lib") is the task of this turn, not a memory."""
    if len(found) < 2:
        return found
    rules = [item for item in found if _is_rule(item)]
    if not rules:
        return found
    kept = []
    for item in found:
        if not _is_rule(item) and _TASK_VERB.match(item.statement):
            words = _words(item.statement)
            if any(words & _words(rule.statement) for rule in rules):
                continue
        kept.append(item)
    return kept
