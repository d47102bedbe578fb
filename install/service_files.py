"""Where the service files live, importable without the service modules (plistlib, subprocess):
`memvet status` reports whether the unit or plist is installed on every run."""

from __future__ import annotations

import os
from pathlib import Path

LABEL = "dev.memvet.daemon"  # launchd
UNIT_NAME = "memvet-daemon.service"  # systemd --user


def plist_path() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def unit_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user" / UNIT_NAME
