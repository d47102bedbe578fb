"""The queue's filter line and sort orders.

A filter is typed after `/`: `host:codex kind:fact ws:/home/dana/src/app uv` (ws:global for
user-global candidates); whatever is not a `key:value` token is text to find in the statement.
"""

from __future__ import annotations

from dataclasses import dataclass

from memvet.store import KINDS, Candidate, QueueFilter
from memvet.store.vocabulary import OPEN_STATUSES, Kind

QUEUE_STATUSES = OPEN_STATUSES  # reserved: held by someone, shown as such


@dataclass(frozen=True)
class QuerySpec:
    hosts: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    workspace: str | None = None
    global_only: bool = False
    text: str = ""

    def to_filter(self, statuses: tuple[str, ...] = QUEUE_STATUSES) -> QueueFilter:
        return QueueFilter(
            statuses=statuses,
            hosts=self.hosts,
            kinds=self.kinds,
            workspace=self.workspace,
            global_only=self.global_only,
            text=self.text or None,
        )

    def matches(self, candidate: Candidate, statuses: tuple[str, ...] = QUEUE_STATUSES) -> bool:
        """The same test as the store's, for a single record the change feed brought in."""
        if candidate.status not in statuses:
            return False
        if self.hosts and candidate.host not in self.hosts:
            return False
        if self.kinds and candidate.kind not in self.kinds:
            return False
        if self.global_only and candidate.scope.workspace is not None:
            return False
        if self.workspace is not None and candidate.scope.workspace != self.workspace:
            return False
        return not self.text or self.text.casefold() in candidate.statement.casefold()

    @property
    def active(self) -> bool:
        return self != QuerySpec()

    def describe(self) -> str:
        parts = [f"host:{h}" for h in self.hosts] + [f"kind:{k}" for k in self.kinds]
        if self.global_only:
            parts.append("ws:global")
        elif self.workspace is not None:
            parts.append(f"ws:{self.workspace}")
        if self.text:
            parts.append(self.text)
        return " ".join(parts)


def parse_query(line: str) -> QuerySpec:
    """Raises ValueError with a message fit for the screen when a token makes no sense."""
    hosts: list[str] = []
    kinds: list[str] = []
    workspace, global_only, words = None, False, []
    for token in line.split():
        key, sep, value = token.partition(":")
        key = key.lower()
        if not sep or key not in ("host", "kind", "ws", "workspace"):
            words.append(token)
            continue
        if not value:
            raise ValueError(f"{key}: needs a value, e.g. {key}:{_example(key)}")
        if key == "host":
            hosts.append(value)
        elif key == "kind":
            matches = [k for k in KINDS if k.startswith(value.lower())]
            if len(matches) != 1:
                raise ValueError(f"unknown kind {value!r}: one of {', '.join(KINDS)}")
            kinds.append(matches[0])
        elif value.lower() == "global":
            global_only = True
        else:
            workspace = value
    return QuerySpec(tuple(hosts), tuple(kinds), workspace, global_only, " ".join(words))


def _example(key: str) -> str:
    return {"host": "codex", "kind": Kind.FACT}.get(key, "/home/dana/src/app")


@dataclass(frozen=True)
class SortOrder:
    label: str
    column: str  # the QueueTable column that shows the arrow
    store_sort: str  # list_candidates(sort=...)
    newest_first: bool

    def after(self, candidate: Candidate) -> tuple:
        """The keyset position of a row, as list_candidates(after=...) takes it."""
        if self.store_sort == "created":
            return (candidate.created_at, candidate.id)
        value = {
            "confidence": candidate.confidence,
            "evidence": candidate.evidence_count,
            "kind": candidate.kind,
            "host": candidate.host or "",
        }[self.store_sort]
        return (value, candidate.created_at, candidate.id)

    def key(self, candidate: Candidate) -> tuple:
        """A sort key that orders rows the way the store pages them."""
        return self.after(candidate)


SORT_ORDERS = (
    SortOrder("oldest first", "age", "created", False),
    SortOrder("newest first", "age", "created", True),
    SortOrder("confidence, highest first", "confidence", "confidence", True),
    SortOrder("evidence, most first", "evidence", "evidence", True),
    SortOrder("kind", "kind", "kind", False),
    SortOrder("host", "host", "host", False),
)


def sort_for_column(column: str, current: SortOrder) -> SortOrder | None:
    """Clicking a header: that column's order, or its reverse when it is already the order."""
    options = [s for s in SORT_ORDERS if s.column == column]
    if not options:
        return None
    if current not in options:
        return options[0]
    if len(options) > 1:
        return options[(options.index(current) + 1) % len(options)]
    return SortOrder(
        current.label + ", reversed", current.column, current.store_sort, not current.newest_first
    )
