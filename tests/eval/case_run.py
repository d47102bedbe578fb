"""What one replayed gold case records: the clock the store runs on, the drafts the pipeline
produced (located at their turns), the mapping from gold ids to memvet ids, and the answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


class SimClock:
    """The store's clock: the harness moves it to each event's time (never backwards)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def move(self, to: datetime) -> None:
        self.now = max(self.now, to)


@dataclass
class DraftSeen:
    """One draft the pipeline produced, located in the case's terms."""

    ref: str
    kind: str
    polarity: str
    source_type: str
    confidence: float
    auto_commit: bool  # what `mode = "selective"` would commit without a person
    texts: tuple[str, ...]  # statement, excerpt, hint: checked for pasted secrets


@dataclass
class CaseRun:
    case: dict  # paths remapped under the case's folder
    mode: str
    result: dict[str, Any] = field(default_factory=dict)
    memory_of: dict[str, str] = field(default_factory=dict)  # gold id -> memvet memory id
    candidate_of: dict[str, str] = field(default_factory=dict)  # gold id -> candidate id
    drafts: list[DraftSeen] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why something could not be played
    link_checks: list[tuple[str, bool]] = field(default_factory=list)  # (gold id, suggestion ok)
    kind_checks: list[tuple[str, bool]] = field(default_factory=list)  # (gold id, kind ok)
    polarity_checks: list[tuple[str, bool]] = field(default_factory=list)
    leaks: int = 0
    asked_at: str = ""
    seconds: float = 0.0

    def served_gold(self) -> list[str]:
        if self.result.get("state", "UNKNOWN") == "UNKNOWN":
            return []
        gold_of = {v: k for k, v in self.memory_of.items()}
        return [gold_of.get(m["id"], m["id"]) for m in self.result.get("memories", [])]


class Recording:
    """Wraps the daemon's FilePipeline to see each draft before admission."""

    def __init__(self, inner: Any, sink: list[tuple[str, Any]], path: str) -> None:
        self.inner, self.sink, self.path = inner, sink, path

    def feed(self, line: bytes, line_no: int) -> list[Any]:
        drafts = self.inner.feed(line, line_no)
        self.sink.extend((self.path, d) for d in drafts)
        return drafts

    @property
    def state(self) -> Any:
        return self.inner.state

    @property
    def stats(self) -> Any:
        return self.inner.stats
