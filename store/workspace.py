"""The workspace of a directory: the git root above it, or the directory itself when there is
none. Pure filesystem checks (no `git` subprocess), so the hook path can afford it."""

from __future__ import annotations

import os
from functools import lru_cache


@lru_cache(maxsize=1024)
def resolve_workspace(cwd: str) -> str:
    """The nearest folder at or above `cwd` that holds `.git` (a folder, or a file for worktrees
    and submodules). A cwd that does not exist here is taken as it is."""
    path = os.path.abspath(os.path.expanduser(cwd))
    if not os.path.isdir(path):
        return path
    probe = path
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return path
        probe = parent
