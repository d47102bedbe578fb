"""The workspace of a directory: the git root above it, or the directory itself when there is
none. Pure filesystem checks (no `git` subprocess) with a cache, so the hook path and the daemon
(which needs one per candidate) can afford it. Every component resolves scope with this one
function, so a memory written from a transcript is found again by a hook in the same folder."""

from __future__ import annotations

import os
from functools import lru_cache


@lru_cache(maxsize=4096)
def resolve_workspace(cwd: str) -> str:
    """The nearest folder at or above `cwd` holding `.git` (a folder, or a file for worktrees and
    submodules). A cwd that is not a folder here (a copied transcript, a deleted checkout,
    another machine's path) is kept as written, only normalised when absolute."""
    if not cwd:
        return cwd
    expanded = os.path.expanduser(cwd)
    if not os.path.isdir(expanded):
        return os.path.normpath(expanded) if os.path.isabs(expanded) else cwd
    path = os.path.abspath(expanded)
    probe = path
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return path
        probe = parent
