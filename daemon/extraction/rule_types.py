"""What the rule files load into: one `Rule`, the `Policy`, and the `Rules` of every section
(rules.py reads and checks the files). Their own module, so that filters.py and prefilter.py,
which rules.py calls while loading, name these types without importing the loader."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memvet.daemon.extraction.filters import FilterSet
from memvet.store.lazy_pattern import LazyPattern


@dataclass(frozen=True)
class Rule:
    name: str
    section: str
    pattern: re.Pattern[str] | LazyPattern  # LazyPattern: packaged rules compile on first use
    kind: str | None = None  # [[kind]]: the kind it suggests
    confidence: float = 0.0  # [[kind]]: base confidence
    boost: float = 0.0  # [[durable]], [[correction]]: added to the confidence
    durable: bool = False  # [[kind]]: the phrasing itself says it is lasting ("we decided")
    needs_durable: bool = False  # [[kind]]: only counts next to a durable marker
    unless_durable: bool = False  # [[reject]]: does not apply to lasting statements
    polarity: str | None = None  # [[kind]], [[polarity]]
    replace: str = ""  # [[strip]]
    hosts: tuple[str, ...] | None = None  # [[drop]], [[strip]]: None means every host
    standalone: bool = False  # [[correction]]: makes a candidate even when no kind rule fired
    keywords: tuple[str, ...] = ()  # cheap prefilter: only tried when the lowercased text has one
    # Declared (tests/tools/declare_rule_words.py writes them, tests/daemon/test_declared_words.py
    # proves them): every match has one of `words` as a whole word, else contains one of
    # `contains`; prefilter.py skips the regex on a sentence with none of them.
    words: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()
    over: tuple[str, ...] = ()  # [[kind_cue]]: the kinds it retypes (empty: every other kind)

    def search(self, text: str, lowered: str) -> re.Match[str] | None:
        if self.keywords and not any(k in lowered for k in self.keywords):
            return None
        return self.pattern.search(text)

    def applies_to(self, host: str | None) -> bool:
        return self.hosts is None or host is None or host in self.hosts


@dataclass(frozen=True)
class Policy:
    assistant_inference: bool = False  # may assistant text become (model_inference) drafts?
    assistant_confidence_factor: float = 0.7
    min_confidence: float = 0.55
    min_words: int = 3
    max_words: int = 60
    max_statement_chars: int = 400
    max_turn_chars: int = 20000  # longer prompts are cut before extraction (pasted files)
    redaction_penalty: float = 0.05  # a statement that had a secret in it is less useful
    # the kind of a correction no kind rule classified; a plain str, not Kind.PREFERENCE:
    # _policy checks a policy.toml value against the type of this default
    correction_kind: str = "preference"
    correction_confidence: float = 0.6
    learned_scorer: bool = (
        True  # the learned scorer (daemon/extraction/learned.py); false: rules alone
    )
    learn_from_reviewer: bool = (
        True  # false: approvals and rejections teach nothing (extraction/reviewer.py)
    )


@dataclass(frozen=True)
class Rules:
    policy: Policy
    filters: FilterSet
    durable: tuple[Rule, ...] = ()
    reject: tuple[Rule, ...] = ()
    kinds: tuple[Rule, ...] = ()
    scope: tuple[Rule, ...] = ()
    polarity: tuple[Rule, ...] = ()
    correction: tuple[Rule, ...] = ()
    skip_line: tuple[Rule, ...] = ()
    kind_cues: tuple[Rule, ...] = ()  # retype candidates (kind_cues.py), never make or drop one
    sources: tuple[str, ...] = field(default_factory=tuple)
