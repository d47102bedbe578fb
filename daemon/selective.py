"""Selective mode's gate in front of a file's pipeline: every line also goes through the
host's structural checks (hosts/provenance.py), and a draft from a line that fails them carries
an `unverified:<reason>` reason, which the admission policy never auto-commits."""

from __future__ import annotations

from typing import Any

from memvet.daemon.hosts.provenance import CHECKS
from memvet.store import CandidateDraft


class VettedPipeline:
    def __init__(self, inner: Any, host: str, state: dict[str, Any] | None) -> None:
        self.inner = inner
        saved = state.get("provenance") if isinstance(state, dict) else None
        self.check = CHECKS[host](saved)

    def feed(self, line: bytes, line_no: int) -> list[CandidateDraft]:
        drafts = self.inner.feed(line, line_no)
        try:
            return self.check.vet(line, drafts)
        except Exception:  # a check that fails verifies nothing: the drafts go to a person
            from memvet.daemon.hosts.provenance import unverified

            return unverified(drafts, "check_failed")

    def flush(self) -> list[CandidateDraft]:
        """Drafts held for a line still to come, released as unverified before a commit."""
        return self.check.flush()

    @property
    def state(self) -> dict[str, Any]:
        return {**self.inner.state, "provenance": self.check.state}

    @property
    def stats(self) -> Any:
        return self.inner.stats
