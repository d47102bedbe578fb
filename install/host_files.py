"""Where each host keeps the files memvet edits, importable without the setup machinery:
`memvet status` reads them on every run (host-formats.md §2.1, §2.5, §4.1, §4.3)."""

from __future__ import annotations

import os
from pathlib import Path

from memvet.store.paths import claude_config_dir, codex_home

# Newer Codex rejects a hooks.json whose root has any other key (host-formats.md §4.3).
CODEX_ALLOWED_ROOT_KEYS = {"hooks", "description"}


def settings_path() -> Path:
    return claude_config_dir() / "settings.json"


def user_state_path() -> Path:
    """Where Claude Code keeps user-scope MCP servers: `~/.claude.json`, or inside
    CLAUDE_CONFIG_DIR when that is set (Claude Code moves the file there)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() / ".claude.json" if env else Path.home() / ".claude.json"


def codex_hooks_path() -> Path:
    return codex_home() / "hooks.json"


def codex_config_path() -> Path:
    return codex_home() / "config.toml"


def codex_rejected_root_keys(doc: object) -> list[str]:
    """Root keys for which Codex 0.171 refuses the whole file ("unknown field") and then runs
    none of its hooks."""
    return sorted(set(doc) - CODEX_ALLOWED_ROOT_KEYS) if isinstance(doc, dict) else []
