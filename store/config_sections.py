"""The typed configuration: one pydantic model per file or section memvet validates strictly —
`[daemon]` of config.toml (`DaemonSettings`) and policy.toml (`PolicyFile`) — and
`effective_config`, what `memvet doctor --config` prints. Errors: config_file.py's one format.

The lenient sections keep their own readers, each defined once: `[hook]` (hook_reply.py, read
by the hook without pydantic), `[review]` (review.py), `[mcp]` (`mcp_writeback` below); a bad
value there falls back to the default, because a hook or a read must never fail on it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any

from memvet.store.config_file import (
    config_error,
    parse_toml,
    read_toml,
    table,
    unknown_key_error,
    validated,
)
from memvet.store.vocabulary import SOURCE_TYPES, SourceType
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
MODES = ("off", "observe", "review", "selective")
ACTIONS = ("queue", "auto_commit", "drop")
OPERATIONS = ("add", "deny", "supersede")
AUTO_SOURCES = (SourceType.EXPLICIT_USER,)  # invariant 1: only what the user typed may skip review
BUNDLED = "the bundled policy.toml"
POLICY_KEYS = ("version", "mode", "selective_threshold", "actions")


def _positive(value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError("a positive number")
    return value


PositiveInt = Annotated[int, BeforeValidator(lambda v: int(_positive(v)))]
PositiveFloat = Annotated[float, BeforeValidator(lambda v: float(_positive(v)))]


class DaemonSettings(BaseModel):
    """`[daemon]` of MEMVET_HOME/config.toml. Only the daemon's composition root reads the file;
    everything else receives one explicitly, so tests build one in code."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    extra_roots: tuple[Any, ...] = Field((), description="a list")  # strings or {host, path}
    debounce_ms: PositiveInt = 150  # a burst of writes to one file becomes one batch
    batch_lines: PositiveInt = 5000  # lines per transaction (checkpoint + candidates)
    batch_bytes: PositiveInt = 8 * 2**20
    max_line_bytes: PositiveInt = 8 * 2**20  # longer lines are skipped and counted, never loaded
    rescan_interval: PositiveInt = 300  # seconds; catches anything a file event missed
    stale_lease_interval: PositiveInt = 60
    expire_interval: PositiveInt = 3600
    candidate_max_age_days: PositiveFloat = 30.0
    retire_interval: PositiveInt = 3600
    decay_interval: PositiveInt = 86400
    decay_half_life_days: PositiveFloat = 90.0
    audit_verify_interval: PositiveInt = 86400
    optimize_interval: PositiveInt = 86400  # refresh the query planner's statistics
    review_interval: PositiveInt = 86400  # count memories due for a "still true?" look
    reredact_interval: PositiveInt = 3600  # re-redact stored text if the rules changed (issue 14)
    reindex_interval: PositiveInt = 3600  # re-index memories if the term vocabulary changed
    log_level: str = "INFO"
    unknown_keys: tuple[str, ...] = Field((), exclude=True)  # other components share the file

    @field_validator("extra_roots", mode="before")
    @classmethod
    def _a_list(cls, value: object) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise ValueError("a list")
        return tuple(value)

    @field_validator("log_level", mode="before")
    @classmethod
    def _a_level(cls, value: object) -> str:
        if str(value).upper() not in LOG_LEVELS:
            raise ValueError("DEBUG, INFO, WARNING or ERROR")
        return str(value).upper()

    def interval_of(self, job_id: str) -> int:
        return {
            "sweep.stale_leases": self.stale_lease_interval,
            "sweep.expire_candidates": self.expire_interval,
            "sweep.retire_memories": self.retire_interval,
            "sweep.decay_confidence": self.decay_interval,
            "sweep.verify_audit": self.audit_verify_interval,
            "sweep.rescan": self.rescan_interval,
            "sweep.optimize_store": self.optimize_interval,
            "sweep.review_flags": self.review_interval,
            "sweep.reredact": self.reredact_interval,
            "sweep.reindex_terms": self.reindex_interval,
        }[job_id]


def daemon_settings(config_path: Path) -> DaemonSettings:
    """`[daemon]` of config.toml: defaults when the file is missing, a ConfigError naming the
    key for a bad value; keys it does not know are kept in `unknown_keys`."""
    section = table(read_toml(config_path), "daemon", config_path)
    unknown = tuple(
        k for k in section if k not in DaemonSettings.model_fields or k == "unknown_keys"
    )
    known = {k: v for k, v in section.items() if k not in unknown}
    settings = validated(DaemonSettings, known, config_path, prefix="daemon.")
    return settings.model_copy(update={"unknown_keys": unknown}) if unknown else settings


def _an_action(value: object) -> str:
    if value not in ACTIONS:
        raise ValueError(f"one of {', '.join(ACTIONS)}, not {value!r}")
    return str(value)


class PolicyFile(BaseModel):
    """policy.toml, the bundled defaults or the user's overrides (only the keys it sets)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = Field(1, description="1")
    mode: str | None = None
    selective_threshold: float | None = None
    actions: dict[str, dict[str, Annotated[str, BeforeValidator(_an_action)]]] = Field(
        default_factory=dict, description="a table of source types"
    )

    @field_validator("version", mode="before")
    @classmethod
    def _one(cls, value: object) -> int:
        if value != 1 or isinstance(value, bool):
            raise ValueError("1")
        return 1

    @field_validator("mode", mode="before")
    @classmethod
    def _a_mode(cls, value: object) -> str:
        if value not in MODES:
            raise ValueError(f"one of {', '.join(MODES)}, not {value!r}")
        return str(value)

    @field_validator("selective_threshold", mode="before")
    @classmethod
    def _a_share(cls, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ValueError("a number between 0 and 1")
        return float(value)


def policy_file(doc: dict[str, Any], file: object) -> PolicyFile:
    """A parsed policy.toml checked: unknown keys, sources and operations are errors, and only
    explicit_user may be auto_commit."""
    if unknown := [k for k in doc if k not in POLICY_KEYS]:
        raise unknown_key_error(file, unknown, list(POLICY_KEYS))
    actions = doc.get("actions", {})
    if isinstance(actions, dict):
        for source, ops in actions.items():
            if source not in SOURCE_TYPES:
                raise unknown_key_error(
                    file, [f"actions.{source}"], list(SOURCE_TYPES), "source type"
                )
            if not isinstance(ops, dict):
                continue  # the model says what it expects
            if unknown := [f"actions.{source}.{op}" for op in ops if op not in OPERATIONS]:
                raise unknown_key_error(file, unknown, list(OPERATIONS), "operation")
    policy = validated(PolicyFile, doc, file)
    for source, ops in policy.actions.items():
        for op, action in ops.items():
            if action == "auto_commit" and source not in AUTO_SOURCES:
                raise config_error(
                    file,
                    f"actions.{source}.{op}",
                    "queue or drop: only statements the user typed (explicit_user) may skip review",
                )
    return policy


def default_policy_text() -> str:
    from importlib.resources import files  # the bundled defaults are a data file, not code

    return files("memvet.assets").joinpath("policy.toml").read_text(encoding="utf-8")


def merged_policy(override: Path | None = None) -> dict[str, Any]:
    """The bundled policy.toml, then the user's overrides (single keys) when the file exists."""
    doc = policy_file(parse_toml(default_policy_text(), BUNDLED), BUNDLED)
    merged = doc.model_dump()
    if override is not None and override.is_file():
        user = read_toml(override)
        policy_file(user, override)
        for key, value in user.items():
            if key == "actions":
                for source, ops in value.items():
                    merged["actions"].setdefault(source, {}).update(ops)
            else:
                merged[key] = value
    return merged


def mcp_writeback(config_path: Path) -> bool:
    """`[mcp] writeback = true` in config.toml; anything else (or a broken file) is read-only."""
    try:
        with open(config_path, "rb") as handle:
            section = tomllib.load(handle).get("mcp", {})
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return isinstance(section, dict) and section.get("writeback") is True


def effective_config(home: Path) -> dict[str, Any]:
    """Every setting as memvet would use it now, defaults filled in (`memvet doctor --config`)."""
    from memvet.store.hook_reply import hook_budgets
    from memvet.store.review import review_after

    config = home / "config.toml"
    daemon, budgets = daemon_settings(config), hook_budgets(str(home))
    return {
        "config_file": str(config),
        "config_file_exists": config.is_file(),
        "daemon": {**daemon.model_dump(mode="json"), "unknown_keys": list(daemon.unknown_keys)},
        "hook": {  # by the names config.toml gives them
            "session_start_tokens": budgets["session-start"],
            "prompt_tokens": budgets["user-prompt-submit"],
        },
        "review": {"after_days": review_after(home).days},
        "mcp": {"writeback": mcp_writeback(config)},
        "policy_file": str(home / "policy.toml"),
        "policy": merged_policy(home / "policy.toml"),
    }
