"""Recall's negative-evidence pass on slots (issue 13): two memories contradict each other only
when they are of one subject in one scope and claims.rivalry says their values clash — a negated
value is a rival, never support ("5433, not the default 5432" against "5432"). Word overlap alone
never makes a contradiction. Memories kept both (one compatible mark) are not rivals, unless one
denies what the other asserts: that cannot be made compatible.

recall.py keeps ranking and relevance; it asks this module whether two memories clash and what
the caller must decide."""

from __future__ import annotations

import re

from memvet.store.claims import Claim, claim_of, rivalry
from memvet.store.records import Memory
from memvet.store.relevance import ATTRIBUTE_TYPES
from memvet.store.slots import normalise_subject
from memvet.store.vocabulary import Polarity

# Attributes a question asks the value of, and the value type that states one (claims.Claim
# types, plus "host": a path or a name with a digit or a dot, "staging.tidepool.dev"): one table,
# relevance.py's, which also lets such a value count as speaking of its attribute.
MONTH_YEAR = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
    r"(?:19|20)\d\d\b",
    re.IGNORECASE,
)  # a date is no value of the slot


def _states(claim: Claim, wanted: str) -> bool:
    """Does the claim hold a value of this type? A name with a digit ("4411-2290-1187",
    "legacy-db-01") is a number's or a host's value too; a dotted name a host's."""
    words = claim.of_type("word")
    digits = any(any(c.isdigit() for c in v) for v in words)
    if wanted == "host":
        return bool(claim.of_type("path")) or digits or any("." in v for v in words)
    return bool(claim.of_type(wanted)) or (wanted == "number" and digits)


def unstated_attribute(absent_units: list[frozenset[str]], statement: str) -> str | None:
    """An attribute the question asks for that no memory in scope names, when the answer holds
    no value of its type either ("what is the cache host?" answered by a port is no answer;
    "what node version?" answered by "Node 20" is)."""
    wanted = {ATTRIBUTE_TYPES[t] for unit in absent_units for t in unit if t in ATTRIBUTE_TYPES}
    if not wanted:
        return None
    claim = claim_of(MONTH_YEAR.sub(" ", statement), Polarity.ASSERT, "")  # every value, none named
    return next((w for w in sorted(wanted) if not _states(claim, w)), None)


class SlotJudge:
    """Caches each memory's subject form and claim for one recall."""

    def __init__(self) -> None:
        self._claims: dict[str, Claim] = {}
        self._subjects: dict[str, str] = {}

    def subject(self, m: Memory) -> str:
        found = self._subjects.get(m.id)
        if found is None:
            found = self._subjects[m.id] = normalise_subject(m.subject)
        return found

    def claim(self, m: Memory) -> Claim:
        found = self._claims.get(m.id)
        if found is None:
            found = self._claims[m.id] = claim_of(m.statement, m.polarity, m.subject)
        return found

    def same_slot(self, a: Memory, b: Memory) -> bool:
        """One subject, and the same scope or one of them user-global (which the workspace's
        own memory then overrides, recall.py)."""
        near = a.scope.workspace == b.scope.workspace or None in (
            a.scope.workspace,
            b.scope.workspace,
        )
        return near and bool(self.subject(a)) and self.subject(a) == self.subject(b)

    def clash(self, a: Memory, b: Memory) -> str | None:
        """ "negation", "different_value" or None for two memories of one slot."""
        if not self.same_slot(a, b):
            return None
        relation = rivalry(self.claim(a), self.claim(b), a.kind, b.kind)
        if (
            relation == "different_value"
            and a.compatible_key
            and (a.compatible_key == b.compatible_key)
        ):
            return None  # the operator kept both: two answers that are both true
        return relation


def decide_which(best: Memory, rivals: list[Memory]) -> str:
    """The missing condition of a conflict, naming what the operator has to settle."""
    names = ", ".join(f'{m.id} "{m.statement[:60]}"' for m in [best, *rivals][:4])
    return f"decide which is current: {names}"
