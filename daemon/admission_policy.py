"""The admission policy: source type x operation -> queue | auto_commit | drop, and the writeback
mode (off, observe, review, selective). Defaults in `memvet.assets/policy.toml`; the user's
`MEMVET_HOME/policy.toml` overrides single keys. Both are validated; unknown keys are errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvet.daemon.hosts.provenance import is_unverified
from memvet.store import CandidateDraft
from memvet.store.config_sections import AUTO_SOURCES, MODES, default_policy_text, merged_policy
from memvet.store.vocabulary import Polarity

__all__ = ["MODES", "Policy", "default_policy_text", "load_policy", "operation_of"]

# What decide() returns: the three actions, plus "observe" (count only) and "off".
Decision = str


@dataclass(frozen=True)
class Policy:
    mode: str
    selective_threshold: float
    actions: dict[tuple[str, str], str]  # (source type, operation) -> action

    def decide(self, draft: CandidateDraft) -> Decision:
        if self.mode == "off":
            return "off"
        if self.mode == "observe":
            return "observe"
        action = self.actions.get((draft.source_type, operation_of(draft)), "queue")
        if action != "auto_commit":
            return action
        eligible = (
            self.mode == "selective"
            and draft.source_type in AUTO_SOURCES
            and draft.confidence >= self.selective_threshold
            and not is_unverified(draft)
        )  # failed the host's structural checks
        return "auto_commit" if eligible else "queue"


def operation_of(draft: CandidateDraft) -> str:
    if draft.supersedes_hint is not None:
        return "supersede"
    return "deny" if draft.polarity == Polarity.DENY else "add"  # operation names


def load_policy(override: Path | None = None) -> Policy:
    """The bundled defaults, then the user's overrides (if the file exists), each checked by
    store/config_sections.PolicyFile."""
    return _build(merged_policy(override))


def _build(doc: dict[str, Any]) -> Policy:
    actions = {
        (source, op): action
        for source, ops in doc.get("actions", {}).items()
        for op, action in ops.items()
    }
    return Policy(
        mode=doc.get("mode", "review"),
        selective_threshold=float(doc.get("selective_threshold", 0.9)),
        actions=actions,
    )
