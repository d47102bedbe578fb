"""Where Claude Code keeps the files memvet edits, importable without the setup machinery:
`memvet status` reads them on every run (host-formats.md §2.1, §2.5)."""

from __future__ import annotations

import os
from pathlib import Path

from memvet.store.paths import claude_config_dir


def settings_path() -> Path:
    return claude_config_dir() / "settings.json"


def user_state_path() -> Path:
    """Where Claude Code keeps user-scope MCP servers: `~/.claude.json`, or inside
    CLAUDE_CONFIG_DIR when that is set (Claude Code moves the file there)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() / ".claude.json" if env else Path.home() / ".claude.json"
