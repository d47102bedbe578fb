"""The daemon's settings: the `[daemon]` table of `MEMVET_HOME/config.toml`, with defaults.

The model (`DaemonSettings`) and its reading are store/config_sections.py's, so `memvet doctor
--config` shows the same values; only the composition root (commands.py) reads the file, and
everything else receives a `DaemonSettings` explicitly, so tests build one in code.
"""

from __future__ import annotations

import logging
from pathlib import Path

from memvet.store.config_file import ConfigError as ConfigError
from memvet.store.config_sections import DaemonSettings as DaemonSettings
from memvet.store.config_sections import daemon_settings

log = logging.getLogger("memvet.daemon")


def load_settings(config_path: Path) -> DaemonSettings:
    """Read `[daemon]` from config.toml. A missing file means defaults; a bad value is an error
    naming the file, the key and what it expects. Unknown keys are kept (other components share
    the file) and logged."""
    settings = daemon_settings(config_path)
    if settings.unknown_keys:
        log.warning(
            "config: unknown [daemon] keys ignored: %s", ", ".join(sorted(settings.unknown_keys))
        )
    return settings
