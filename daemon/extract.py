"""From a prompt (already filtered and redacted) to candidate statements, with the declarative
rules of `assets/rules.toml`.

A prompt is split into sentences after code blocks and pasted output (logs, stack traces,
shell sessions, diffs, code lines) are set aside; each sentence is lightly normalised (bullets,
discourse openers like "Also," and a leading "please" go; the words stay the person's) and
scored. Questions, one-off task requests, temporary and hypothetical instructions and chit-chat
are never candidates. Precision over recall: the operator reviews every one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memvet.daemon.filters import mask_protected, unmask
from memvet.daemon.prefilter import prefilter_for
from memvet.daemon.rules import Rule, Rules

_FENCED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_BULLET = re.compile(r"^\s*(?:[-*•▪+]|\d{1,3}[.)]|[a-z][.)])\s+")
_SENTENCE_END = re.compile(
    r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Za-z0-9\ue000])|\s*;\s+|\s+[—–]\s+(?=[A-Z])"
    r"|,\s+(?=(?:and\s+|but\s+|so\s+)?(?:dont|don't|do not|never|always|please|pls)\b)"
    r"|,\s+(?=(?:the |our )?[\w./\-#]+(?: [\w./\-#]+)? (?:is|are|go|goes|runs?|lives?|uses?|needs?) (?!\w+ing\b))"
    r"|,\s+(?=we (?:dont|don't|do not|never|always|only)\b)"
    r"|,\s+(?:and\s+)?(?=[\w./\-]+ (?:has to|have to|must|needs to)\b)")
_ABBREVIATION = re.compile(r"(?i)(?:\b(?:e\.g|i\.e|etc|vs|approx|incl|cf|mr|mrs|ms|dr|no|fig)\.)$")
_OPENER = re.compile(
    r"^(?:(?:also|and|but|so|oh|btw|by the way|additionally|plus|firstly|secondly|thirdly|lastly|"
    r"finally|first|second|third|one more thing|another thing|last but not least|likewise|similarly|"
    r"in addition|moreover|furthermore|fyi|heads up|note|pls|ps|sorry|oops|whoops|my bad|no wait|wait|reminder|"
    r"yes|yep|yeah)"
    r"\b[,:;]?\s+|"
    r"(?:now|ok|okay|well|alright|right|anyway|great|good|perfect|excellent|cool|sure|yes|yeah|"
    r"hey|hi|hello)\b\s*[,:;!.\-—]+\s+)+", re.I)
_PLEASE = re.compile(r"^please,?\s+", re.I)
_SCOPE_PHRASE = re.compile(r"^\s*(?:in|for|across|on|at|everywhere|globally|here)\b[^,.;]{0,40}$", re.I)
_MARKER = "[REDACTED:"
# "moving away from SQLAlchemy for the async support": the hint is what precedes the reason.
_TRAILING_CLAUSE = re.compile(r"\s+(?:for|because|since|due to|as|so that|in order to|to|last|this|next)\s", re.I)


@dataclass(frozen=True)
class Extracted:
    statement: str
    kind: str
    confidence: float
    reasons: tuple[str, ...]  # names of the rules that fired
    polarity: str = "assert"
    user_global: bool = False
    supersedes_hint: str | None = None  # what a correction replaces ("" when not said)


class Extractor:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.policy = rules.policy
        self._prefilter = prefilter_for(rules)
        bits = self._prefilter.bits

        def pairs(section: tuple[Rule, ...]) -> tuple[tuple[int, Rule], ...]:
            return tuple((bits[id(rule)], rule) for rule in section)

        self._reject = pairs(tuple(r for r in rules.reject if not r.unless_durable))
        self._reject_unless_durable = pairs(tuple(r for r in rules.reject if r.unless_durable))
        self._durable, self._kinds = pairs(rules.durable), pairs(rules.kinds)
        self._correction, self._scope, self._polarity = pairs(rules.correction), pairs(rules.scope), pairs(rules.polarity)

    def extract(self, text: str) -> list[Extracted]:
        found: list[Extracted] = []
        seen: set[str] = set()
        revising = False  # "I want to update a previous instruction." said before the new rule
        for sentence in self.sentences(text):
            mask = self._prefilter.candidates(sentence, sentence.lower())
            result = self._classify(sentence, mask)
            if result is None:
                revising = revising or any(bit & mask and r.pattern.search(sentence) for bit, r in self._correction)
                continue
            if revising and result.supersedes_hint is None:
                result = replace(result, supersedes_hint="", reasons=(*result.reasons, "correction.context"))
            if result.statement.casefold() not in seen:
                seen.add(result.statement.casefold())
                found.append(result)
        return found

    # --- splitting -------------------------------------------------------------------------

    def sentences(self, text: str) -> list[str]:
        text = _FENCED.sub("\n", text[: self.policy.max_turn_chars])
        units: list[str] = []
        for line in text.splitlines():
            if not line.strip() or any(r.pattern.search(line) for r in self.rules.skip_line):
                if units and units[-1]:
                    units.append("")  # a paragraph break
                continue
            bullet = _BULLET.match(line) is not None
            line = _BULLET.sub("", line).strip()
            joins = (units and units[-1] and not bullet and line[:1].islower()
                     and units[-1][-1:] not in ".!?:;")
            if joins:
                units[-1] = f"{units[-1]} {line}"
            else:
                units.append(line)
        sentences = []
        for unit in filter(None, units):
            sentences.extend(s for s in (normalise(p) for p in _split_unit(unit)) if s)
        return sentences

    # --- scoring ---------------------------------------------------------------------------

    def classify(self, sentence: str) -> Extracted | None:
        return self._classify(sentence, self._prefilter.candidates(sentence, sentence.lower()))

    def _classify(self, sentence: str, mask: int) -> Extracted | None:
        """`mask`: the rules that may match (prefilter); the others cannot, so are not run."""
        policy = self.policy
        words = len(sentence.split())
        if words < policy.min_words or words > policy.max_words or len(sentence) > policy.max_statement_chars:
            return None
        if any(bit & mask and r.pattern.search(sentence) for bit, r in self._reject):
            return None
        durable = [r for bit, r in self._durable if bit & mask and r.pattern.search(sentence)]
        kinds = [r for bit, r in self._kinds if bit & mask and (durable or not r.needs_durable)
                 and r.pattern.search(sentence)]
        corrections = [(r, m) for bit, r in self._correction if bit & mask and (m := r.pattern.search(sentence))]
        if not kinds and not any(r.standalone for r, _ in corrections):
            return None
        lasting = bool(durable) or any(r.durable for r in kinds) or bool(corrections)
        if not lasting and any(bit & mask and r.pattern.search(sentence) for bit, r in self._reject_unless_durable):
            return None
        best = max(kinds, key=lambda r: r.confidence) if kinds else None
        kind = best.kind if best is not None and best.kind else policy.correction_kind
        confidence = best.confidence if best is not None else policy.correction_confidence
        confidence += min(0.15, sum(r.boost for r in durable))
        confidence += max((r.boost for r, _ in corrections), default=0.0)
        if _MARKER in sentence:
            confidence -= policy.redaction_penalty
        confidence = round(min(confidence, 0.95), 3)
        if confidence < policy.min_confidence:
            return None
        scope = [r for bit, r in self._scope if bit & mask and r.pattern.search(sentence)]
        denial = [r for bit, r in self._polarity if bit & mask and r.pattern.search(sentence)]
        polarity = "deny" if (best is not None and best.polarity == "deny") or denial else "assert"
        reasons = [best.name] if best is not None else []
        reasons += [r.name for r in (*durable, *(c for c, _ in corrections), *scope, *denial)]
        return Extracted(statement=sentence, kind=kind, confidence=confidence, reasons=tuple(reasons),
                         polarity=polarity, user_global=bool(scope),
                         supersedes_hint=_replaced(corrections) if corrections else None)


def _replaced(corrections: list[tuple[Rule, re.Match[str]]]) -> str:
    for _, match in corrections:
        old = match.groupdict().get("old")
        if old and old.strip():
            old = _TRAILING_CLAUSE.split(old, maxsplit=1)[0]
            return old.strip(" '\"`")[:120]
    return ""


def _split_unit(unit: str) -> list[str]:
    """Sentences of one paragraph; code spans, URLs and paths are never cut."""
    masked, slots = mask_protected(unit)
    pieces, start = [], 0
    for boundary in _SENTENCE_END.finditer(masked):
        head = masked[start:boundary.start()]
        if _ABBREVIATION.search(head):
            continue
        pieces.append(head)
        start = boundary.end()
    pieces.append(masked[start:])
    merged: list[str] = []
    for piece in pieces:  # "In all my projects, always …": a scope phrase belongs to what follows
        if merged and _SCOPE_PHRASE.match(merged[-1]):
            merged[-1] = f"{merged[-1].rstrip()}, {piece.lstrip()}"
        else:
            merged.append(piece)
    return [unmask(p, slots) for p in merged]


def normalise(sentence: str) -> str:
    """Light clean-up only: whitespace, bullets, an opening "Also,"/"Now," or "please"."""
    text = " ".join(sentence.split()).strip(" -—–")
    if text.startswith("(") and text.count("(") > text.count(")"):  # "(yes api is on 9090 now"
        text = text[1:]
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    text = _PLEASE.sub("", _OPENER.sub("", text)).strip(" -—–")
    text = _PLEASE.sub("", text)
    if not text:
        return ""
    return text[0].upper() + text[1:] if text[0].islower() else text
