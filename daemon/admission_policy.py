"""The admission policy: source type x operation -> queue | auto_commit | drop, and the writeback
mode (off, observe, review, selective). Defaults in `memvet.assets/policy.toml`; the user's
`MEMVET_HOME/policy.toml` overrides single keys. Both are validated; unknown keys are errors.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from memvet.daemon.hosts.provenance import is_unverified
from memvet.daemon.settings import ConfigError
from memvet.store import SOURCE_TYPES, CandidateDraft

MODES = ("off", "observe", "review", "selective")
ACTIONS = ("queue", "auto_commit", "drop")
OPERATIONS = ("add", "deny", "supersede")
AUTO_SOURCES = ("explicit_user",)  # invariant 1: only what the user typed may skip review

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
    return "deny" if draft.polarity == "deny" else "add"


def default_policy_text() -> str:
    return files("memvet.assets").joinpath("policy.toml").read_text(encoding="utf-8")


def load_policy(override: Path | None = None) -> Policy:
    """The bundled defaults, then the user's overrides (if the file exists)."""
    doc = _parse(default_policy_text(), "the bundled policy.toml")
    if override is not None and override.is_file():
        try:
            text = override.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{override}: cannot read it ({exc})") from None
        user = _parse(text, str(override))
        for key, value in user.items():
            if key == "actions":
                for source, ops in value.items():
                    doc["actions"].setdefault(source, {}).update(ops)
            else:
                doc[key] = value
    return _build(doc)


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML ({exc})") from None
    _validate(doc, where)
    return doc


def _validate(doc: dict[str, Any], where: str) -> None:
    unknown = set(doc) - {"version", "mode", "selective_threshold", "actions"}
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
            "version, mode, selective_threshold, actions"
        )
    if doc.get("version", 1) != 1:
        raise ConfigError(f"{where}: version must be 1")
    if "mode" in doc and doc["mode"] not in MODES:
        raise ConfigError(f"{where}: mode must be one of {', '.join(MODES)}, not {doc['mode']!r}")
    if "selective_threshold" in doc:
        value = doc["selective_threshold"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ConfigError(f"{where}: selective_threshold must be a number between 0 and 1")
    actions = doc.get("actions", {})
    if not isinstance(actions, dict):
        raise ConfigError(f"{where}: [actions] must be a table")
    for source, ops in actions.items():
        if source not in SOURCE_TYPES:
            raise ConfigError(
                f"{where}: unknown source type actions.{source}; one of {', '.join(SOURCE_TYPES)}"
            )
        if not isinstance(ops, dict):
            raise ConfigError(f"{where}: actions.{source} must be a table")
        for op, action in ops.items():
            if op not in OPERATIONS:
                raise ConfigError(
                    f"{where}: unknown operation actions.{source}.{op}; one of "
                    f"{', '.join(OPERATIONS)}"
                )
            if action not in ACTIONS:
                raise ConfigError(
                    f"{where}: actions.{source}.{op} must be one of "
                    f"{', '.join(ACTIONS)}, not {action!r}"
                )
            if action == "auto_commit" and source not in AUTO_SOURCES:
                raise ConfigError(
                    f"{where}: actions.{source}.{op} cannot be auto_commit: only "
                    "statements the user typed (explicit_user) may skip review"
                )


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
