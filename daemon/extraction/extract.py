"""From a prompt (already filtered and redacted) to candidate statements, with the declarative
rules of `assets/rules.toml`.

A prompt is split into lightly normalised sentences (sentence_split.py), and each is scored.
Questions, one-off task requests, temporary and hypothetical instructions and chit-chat are never
candidates. Precision over recall: the operator reviews every one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

from memvet.daemon.extraction.casefold import folded
from memvet.daemon.extraction.clauses import ASSERT, DENY, merge_clauses
from memvet.daemon.extraction.prefilter import prefilter_for
from memvet.daemon.extraction.rules import Rule, Rules
from memvet.daemon.extraction.scope_cues import with_message_scope
from memvet.daemon.extraction.sentence_split import split_sentences
from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction import MARKER_PREFIX as _MARKER
from memvet.store.vocabulary import Polarity

# Reject rules whose clause governs the rest of its sentence ("According to the README, deploys go
# through X", "If we ever move to gRPC, we'd rewrite the adapters"): the clause after it is no rule.
_FRAMING = frozenset(
    {
        "reject.reported",
        "reject.reported-by",
        "reject.hypothetical",
        "reject.heading",
        "reject.until-event",
    }
)
# "no, Tests stays on pytest": a correcting "no" before a rule the anchored rules cannot see past;
# tried only when the whole sentence made no candidate ("No, use ruff instead." does).
_CORRECTING = LazyPattern(r"(?i)^(?:no|nope|nah|wrong)\b\s*[,:;!.\-\u2014\u2013]+\s+(?=\S)")
# "moving away from SQLAlchemy for the async support": the hint is what precedes the reason.
_TRAILING_CLAUSE = re.compile(
    r"\s+(?:for|because|since|due to|as|so that|in order to|to|last|this|next)\s", re.I
)


# A section of rules: their prefilter bits together, each bit's rule, and each bit's needed
# strings (prefilter.py `needed`: one of them is in the folded sentence, or the rule cannot match).
Section = tuple[int, dict[int, Rule], dict[int, tuple[str, ...]]]


@dataclass(frozen=True)
class Extracted:
    statement: str
    kind: str
    confidence: float
    reasons: tuple[str, ...]  # names of the rules that fired
    polarity: str = Polarity.ASSERT
    user_global: bool = False
    supersedes_hint: str | None = None  # what a correction replaces ("" when not said)


class Extractor:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.policy = rules.policy
        self._prefilter = prefilter_for(rules)
        self._skip_line = _any_of(tuple(r.pattern for r in rules.skip_line))
        bits = self._prefilter.bits

        needed = self._prefilter.needed

        def section(rules: Iterable[Rule]) -> Section:
            by_bit = {bits[id(rule)]: rule for rule in rules}
            return sum(by_bit), by_bit, {bit: needed[bit] for bit in by_bit if bit in needed}

        self._reject = section(r for r in rules.reject if not r.unless_durable)
        self._reject_unless_durable = section(r for r in rules.reject if r.unless_durable)
        self._durable, self._kinds = section(rules.durable), section(rules.kinds)
        self._needs_durable = sum(bit for bit, rule in self._kinds[1].items() if rule.needs_durable)
        self._correction, self._scope, self._polarity = (
            section(rules.correction),
            section(rules.scope),
            section(rules.polarity),
        )
        self._all_sections = (
            self._reject,
            self._reject_unless_durable,
            self._durable,
            self._kinds,
            self._correction,
            self._scope,
            self._polarity,
        )
        # The rules and the learned scorer read the same message: split and prefilter it once.
        self._last_text: str | None = None
        self._last_sentences: list[str] = []
        self._masks: dict[str, int] = {}
        # (section, its prefilter bits, sentence) -> hits: the scorer's second look asks again
        self._section_hits: dict[tuple[int, int, str], list[tuple[Rule, re.Match[str]]]] = {}
        self._rejected: dict[
            str, Rule
        ] = {}  # sentences of the current message a reject rule ruled out
        self._unvetted: set[str] = set()  # ... and those not yet asked (_rejected_by)

    def extract(self, text: str) -> list[Extracted]:
        found: list[Extracted] = []
        seen: set[str] = set()
        # "I want to update a previous instruction." said before the new rule: whether an earlier
        # sentence said so is only asked once a later one is a candidate (most prompts have none).
        revising, earlier = False, []
        self._rejected.clear()
        self._unvetted.clear()
        parts: list[tuple[str, Extracted | None]] = []  # every sentence: clauses of one rule merge
        for sentence in self.sentences(text):
            result = self._classify(sentence, None) if self._sized(sentence) else None
            if result is None and (opener := _CORRECTING.match(sentence)) is not None:
                # "nope - No network calls in unit tests, ever.": the rule after the "no"
                sentence = sentence[opener.end() :]
                result = self._classify(sentence, None) if self._sized(sentence) else None
            parts.append((sentence, result))
            if result is None:
                if not revising:
                    earlier.append(sentence)
                continue
            if not revising and earlier:
                revising = any(
                    _first(self._correction, self._mask(s), s) is not None for s in earlier
                )
                earlier.clear()
            if revising and result.supersedes_hint is None:
                result = replace(
                    result, supersedes_hint="", reasons=(*result.reasons, "correction.context")
                )
            parts[-1] = (sentence, result)
        if all(result is None for _, result in parts):
            return found  # most prompts: nothing to merge or scope
        rejected = {
            i: self._rejected_by(sentence)
            for i, (sentence, result) in enumerate(parts)
            if result is None
        }
        framing = {i for i, rule in rejected.items() if rule is not None and rule.name in _FRAMING}
        merged, others = merge_clauses(
            text,
            parts,
            self.policy.max_statement_chars,
            rejected={i for i, rule in rejected.items() if rule is not None},
            framing=framing,
        )
        for result in merged:
            if result.statement.casefold() not in seen:
                seen.add(result.statement.casefold())
                found.append(with_message_scope(result, others))
        return found

    # --- splitting -------------------------------------------------------------------------

    def sentences(self, text: str) -> list[str]:
        if text != self._last_text:
            sentences = split_sentences(text[: self.policy.max_turn_chars], self._skip_line)
            self._last_sentences, self._last_text = sentences, text
            self._masks.clear()
            self._section_hits.clear()
        return list(self._last_sentences)

    # --- scoring ---------------------------------------------------------------------------

    def classify(self, sentence: str) -> Extracted | None:
        return self._classify(sentence, None) if self._sized(sentence) else None

    def sized(self, sentence: str) -> bool:
        """Long enough to be a statement, short enough to be one."""
        policy = self.policy
        words = len(sentence.split())
        return (
            policy.min_words <= words <= policy.max_words
            and len(sentence) <= policy.max_statement_chars
        )

    _sized = sized

    # Reject rules first (True) or only once a kind or correction rule matched (False, the
    # default): the same candidates and the same vetoes, but most sentences no rule proposes are
    # never run through the reject rules (tests/tools/extraction_identity.py compares both).
    reject_first = False

    def _vetoed(self, sentence: str, mask: int) -> bool:
        if rejected := self._hits(self._reject, mask, sentence):  # the first in file order vetoes
            self._rejected[sentence] = rejected[0][0]  # merge_clauses glues nothing to it
            return True
        return False

    def _rejected_by(self, sentence: str) -> Rule | None:
        """The reject rule that vetoed a sentence of the current message (None: none did)."""
        if sentence in self._unvetted:
            self._unvetted.discard(sentence)
            self._vetoed(sentence, self._mask(sentence))
        return self._rejected.get(sentence)

    def _mask(self, sentence: str) -> int:
        """The rules that may match `sentence` (prefilter); the others cannot, so are not run.
        Remembered for the sentences of the last text (the scorer asks again)."""
        mask = self._masks.get(sentence)
        if mask is None:
            if len(self._masks) > 512:
                self._masks.clear()
                self._section_hits.clear()
            mask = self._masks[sentence] = self._prefilter.candidates(sentence, sentence.lower())
        return mask

    def worth_scoring(self, sentence: str) -> bool:
        """Does a durable, kind or correction rule match `sentence` (what a second look needs,
        learned.py)? The prefilter rules most sentences out before any rule runs; the hits found
        are remembered, so `rule_hits` does not run them again."""
        mask = self._mask(sentence)
        sections = (self._durable, self._kinds, self._correction)
        if not mask & (sections[0][0] | sections[1][0] | sections[2][0]):
            return False
        return any(self._hits(section, mask, sentence) for section in sections)

    def rule_hits(self, sentence: str) -> list[tuple[Rule, re.Match[str]]]:
        """Every rule of every section that matches `sentence`, reject rules too (the learned
        scorer reads them as features, not vetoes), with the same prefilter as `extract`."""
        mask = self._mask(sentence)
        hits = self._hits
        return [hit for section in self._all_sections for hit in hits(section, mask, sentence)]

    def _hits(self, section: Section, mask: int, sentence: str) -> list[tuple[Rule, re.Match[str]]]:
        """`_hits`, remembered for the sentences of the last text (never mutate the list)."""
        if not mask & section[0]:
            return []  # the prefilter rules out every rule of the section
        key = (id(section), mask & section[0], sentence)
        found = self._section_hits.get(key)
        if found is None:
            found = self._section_hits[key] = _hits(section, mask, sentence)
        return found

    def _classify(self, sentence: str, mask: int | None) -> Extracted | None:
        policy = self.policy
        mask = self._mask(sentence) if mask is None else mask
        hits = self._hits
        if self.reject_first and self._vetoed(sentence, mask):
            return None
        durable = [r for r, _ in hits(self._durable, mask, sentence)]
        kinds = [
            r
            for r, _ in hits(
                self._kinds, mask if durable else mask & ~self._needs_durable, sentence
            )
        ]
        corrections = hits(self._correction, mask, sentence)
        if not kinds and not any(r.standalone for r, _ in corrections):
            if not self.reject_first:
                self._unvetted.add(sentence)  # a veto changes nothing here: asked if needed
            return None
        if not self.reject_first and self._vetoed(sentence, mask):
            return None
        lasting = bool(durable) or any(r.durable for r in kinds) or bool(corrections)
        if not lasting and _first(self._reject_unless_durable, mask, sentence) is not None:
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
        scope = [r for r, _ in hits(self._scope, mask, sentence)]
        denial = [r for r, _ in hits(self._polarity, mask, sentence)]
        polarity = DENY if (best is not None and best.polarity == DENY) or denial else ASSERT
        reasons = [best.name] if best is not None else []
        reasons += [r.name for r in (*durable, *(c for c, _ in corrections), *scope, *denial)]
        return Extracted(
            statement=sentence,
            kind=kind,
            confidence=confidence,
            reasons=tuple(reasons),
            polarity=polarity,
            user_global=bool(scope),
            supersedes_hint=_replaced(corrections) if corrections else None,
        )


def _any_of(patterns: tuple[re.Pattern[str] | LazyPattern, ...]) -> Callable[[str], bool]:
    """Does any of `patterns` match? One alternation when they combine as they are (same
    flags, no groups), which asks the same question in one pass."""
    flags = {p.flags for p in patterns}
    if patterns and len(flags) == 1 and not any(p.groups for p in patterns):
        try:
            combined = re.compile("|".join(f"(?:{p.pattern})" for p in patterns), flags.pop())
        except re.error:
            pass
        else:
            return lambda line: combined.search(line) is not None
    return lambda line: any(p.search(line) for p in patterns)


def _allowed(section: Section, mask: int, sentence: str) -> Iterator[Rule]:
    """The section's rules (in file order) that the prefilter allows and whose needed strings
    (one of them) are in the folded sentence: only these can match, so only these are run."""
    todo, needed, lowered = mask & section[0], section[2], None
    while todo:
        bit = todo & -todo  # the lowest bit: rules are numbered in file order
        todo ^= bit
        if (strings := needed.get(bit)) is not None:
            lowered = folded(sentence) if lowered is None else lowered
            if not any(map(lowered.__contains__, strings)):
                continue
        yield section[1][bit]


def _hits(section: Section, mask: int, sentence: str) -> list[tuple[Rule, re.Match[str]]]:
    """The section's rules (in file order) that the prefilter allows and whose pattern matches."""
    return [
        (rule, found)
        for rule in _allowed(section, mask, sentence)
        if (found := rule.pattern.search(sentence))
    ]


def _first(section: Section, mask: int, sentence: str) -> Rule | None:
    return next((r for r in _allowed(section, mask, sentence) if r.pattern.search(sentence)), None)


def _replaced(corrections: list[tuple[Rule, re.Match[str]]]) -> str:
    for _, match in corrections:
        old = match.groupdict().get("old")
        if old and old.strip():
            old = _TRAILING_CLAUSE.split(old, maxsplit=1)[0]
            return old.strip(" '\"`")[:120]
    return ""
