"""Hook calls that come from a host's own memory jobs, which get nothing from memvet.

Codex's memory consolidation agent runs with its cwd in `$CODEX_HOME/memories*`, and Claude
Code's memory writers work in `projects/<slug>/memory/`; a background agent's hook payload
carries an `agent_id`. Served there, reviewed memories could be copied by a model into the
host's unreviewed store. Standard library only (the hook imports it before anything else).
"""

from __future__ import annotations

import os

CODEX_MEMORY_FOLDERS = ("memories", "memories_v2")


def _folder(env: str, default: str) -> str:
    value = os.environ.get(env)
    return os.path.realpath(os.path.expanduser(value if value else default))


def _under(path: str, root: str) -> str | None:
    """The part of `path` below `root`, or None when it is not inside."""
    prefix = root.rstrip(os.sep) + os.sep
    return path[len(prefix) :] if path.startswith(prefix) else None


def in_host_memory_folder(cwd: str) -> bool:
    real = os.path.realpath(cwd)
    codex_rest = _under(real, _folder("CODEX_HOME", "~/.codex"))
    if codex_rest is not None and codex_rest.split(os.sep, 1)[0] in CODEX_MEMORY_FOLDERS:
        return True
    claude_rest = _under(real, os.path.join(_folder("CLAUDE_CONFIG_DIR", "~/.claude"), "projects"))
    parts = claude_rest.split(os.sep) if claude_rest is not None else []
    return len(parts) >= 2 and parts[1] == "memory"


def host_job(payload: dict, process_cwd: str) -> bool:
    """Is this hook call a host's background agent or memory job?"""
    if payload.get("agent_id"):  # sub- and background agents; the main thread has none
        return True
    cwd = payload.get("cwd")
    return in_host_memory_folder(process_cwd) or (
        isinstance(cwd, str) and bool(cwd) and in_host_memory_folder(os.path.join(process_cwd, cwd))
    )
