"""The daemon's settings: the `[daemon]` table of `MEMVET_HOME/config.toml`, with defaults.

Only the composition root (commands.py) reads the file; everything else receives a
`DaemonSettings` explicitly, so tests build one in code.
"""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from memvet.store.errors import UsageError

log = logging.getLogger("memvet.daemon")


class ConfigError(UsageError):
    """A config or policy file memvet cannot use. Names the file and the key."""

    code = "config_invalid"


@dataclass(frozen=True)
class DaemonSettings:
    extra_roots: tuple[Any, ...] = ()  # strings or {host, path} tables; see roots.py
    debounce_ms: int = 150  # a burst of writes to one file becomes one batch
    batch_lines: int = 5000  # lines per transaction (checkpoint + candidates)
    batch_bytes: int = 8 * 2**20
    max_line_bytes: int = 8 * 2**20  # longer lines are skipped and counted, never loaded whole
    rescan_interval: int = 300  # seconds; catches anything a file event missed
    stale_lease_interval: int = 60
    expire_interval: int = 3600
    candidate_max_age_days: float = 30.0
    retire_interval: int = 3600
    decay_interval: int = 86400
    decay_half_life_days: float = 90.0
    audit_verify_interval: int = 86400
    optimize_interval: int = 86400  # refresh the query planner's statistics
    review_interval: int = 86400  # count memories due for a "still true?" look (review.py)
    reredact_interval: int = 3600  # re-redact stored text if the redaction rules changed (issue 14)
    log_level: str = "INFO"
    unknown_keys: tuple[str, ...] = field(default=(), compare=False)

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
        }[job_id]


_NUMERIC = {f.name for f in fields(DaemonSettings)} - {"extra_roots", "log_level", "unknown_keys"}


def load_settings(config_path: Path) -> DaemonSettings:
    """Read `[daemon]` from config.toml. A missing file means defaults; a bad value is an error
    naming the key. Unknown keys are kept (other components share the file) and logged."""
    if not config_path.is_file():
        return DaemonSettings()
    try:
        doc = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{config_path}: cannot read it as TOML ({exc})") from None
    table = doc.get("daemon", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{config_path}: [daemon] must be a table")
    values: dict[str, Any] = {}
    unknown = []
    for key, value in table.items():
        if key == "extra_roots":
            if not isinstance(value, list):
                raise ConfigError(f"{config_path}: daemon.extra_roots must be a list")
            values[key] = tuple(value)
        elif key == "log_level":
            if str(value).upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
                raise ConfigError(
                    f"{config_path}: daemon.log_level must be DEBUG, INFO, WARNING or ERROR"
                )
            values[key] = str(value).upper()
        elif key in _NUMERIC:
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"{config_path}: daemon.{key} must be a positive number")
            values[key] = type(getattr(DaemonSettings, key))(value)
        else:
            unknown.append(key)
    if unknown:
        log.warning("config: unknown [daemon] keys ignored: %s", ", ".join(sorted(unknown)))
    return DaemonSettings(**values, unknown_keys=tuple(unknown))
