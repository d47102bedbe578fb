"""What every store record shares: the ISO time format, where a record applies (`Scope`) and
who reads (`Reader`), the evidence a record cites, and the marks on reasons and approvers.
records.py re-exports all of it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

ADOPTED = "adopted"  # the reason an adopted proposal carries (daemon/extraction/adoption.py)
EXCERPT_LIMIT = 280  # characters; evidence excerpts are cut to this before encryption
# Approvers that are not a person (selective mode's "policy:selective"): their memories are
# auto-admitted, never called reviewed. fast_read.AUTO_SQL is the twin of this test in SQL.
AUTO_APPROVER_PREFIX = "policy:"


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, as interfaces.md asks."""
    if value is None:
        return None
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class Scope:
    """Where a record applies. workspace None means user-global."""

    user: str
    workspace: str | None = None
    agent: str | None = None
    session: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return asdict(self)


@dataclass(frozen=True)
class Reader:
    """Who is reading: a user in a workspace (None: only user-global). all_scopes is the operator's view."""

    user: str
    workspace: str | None = None
    all_scopes: bool = False


@dataclass(frozen=True)
class Evidence:
    path: str
    line: int
    message_id: str | None
    timestamp: datetime | None
    excerpt: str
    session: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "message_id": self.message_id,
            "timestamp": iso(self.timestamp),
            "excerpt": self.excerpt,
            "session": self.session,
        }
