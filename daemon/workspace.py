"""The workspace a session belongs to: the git root above its cwd, or the cwd itself.

Pure filesystem checks (no `git` subprocess) with a cache, because every candidate needs one.
The cwd comes from a transcript and may not exist on this machine (a copied file, a deleted
checkout, another OS's path): then the string is used exactly as the host wrote it.
"""

from __future__ import annotations

import os
from functools import lru_cache


@lru_cache(maxsize=4096)
def resolve_workspace(cwd: str) -> str:
    """The nearest folder at or above `cwd` holding `.git` (a folder, or a file for worktrees and
    submodules); `cwd` itself when there is none or when it is not a folder here."""
    if not cwd or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        return cwd
    path = os.path.normpath(cwd)
    probe = path
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return path
        probe = parent
