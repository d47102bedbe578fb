"""Where transcripts live, and which files under a root are transcripts.

Claude Code: `$CLAUDE_CONFIG_DIR/projects/<project>/<session>.jsonl`, sub-agents in
`<project>/<session>/subagents/agent-*.jsonl` (2.1.2+) or `<project>/agent-*.jsonl` (older).
Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` and flat `archived_sessions/`.
Extra roots come from `[daemon] extra_roots` in config.toml. The host is known from the root.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvet.daemon.settings import ConfigError
from memvet.store import hosts
from memvet.store.paths import host_folder

MAX_EXTRA_DEPTH = 8


@dataclass(frozen=True)
class Root:
    """layout: claude-projects | codex-sessions | codex-archive | any (extra roots).
    host None (extra roots only): decided per file by its name."""

    path: str
    host: str | None
    layout: str

    @property
    def real(self) -> str:
        # Some platforms report events on the resolved path (macOS /tmp → /private/tmp).
        return os.path.realpath(self.path)

    def relative_parts(self, path: str) -> tuple[str, ...] | None:
        for base in (self.path, self.real):
            prefix = base.rstrip(os.sep) + os.sep
            if path.startswith(prefix):
                return tuple(path[len(prefix) :].split(os.sep))
        return None

    def accepts(self, path: str) -> bool:
        """Pure string matching: the watcher's handler calls it for every event (no I/O)."""
        parts = self.relative_parts(path)
        if not parts or not parts[-1].endswith(".jsonl") or "" in parts:
            return False
        name, depth = parts[-1], len(parts)
        if self.layout == "claude-projects":
            return depth == 2 or (
                depth == 4 and parts[2] == "subagents" and name.startswith("agent-")
            )
        if self.layout == "codex-sessions":
            return depth == 4 and name.startswith("rollout-")
        if self.layout == "codex-archive":
            return depth == 1 and name.startswith("rollout-")
        return depth <= MAX_EXTRA_DEPTH

    def host_of(self, path: str) -> str:
        if self.host is not None:
            return self.host
        return host_by_file_name(os.path.basename(path))

    @property
    def max_depth(self) -> int:
        return {"claude-projects": 4, "codex-sessions": 4, "codex-archive": 1}.get(
            self.layout, MAX_EXTRA_DEPTH
        )


def host_by_file_name(name: str) -> str:
    """In an extra root of any host: the host whose rollout prefix the name has, else the
    first host without one (Claude Code names sessions by uuid)."""
    entries = hosts.REGISTRY.values()
    for entry in entries:
        if entry.rollout_prefix and name.startswith(entry.rollout_prefix):
            return entry.name
    return next(entry.name for entry in entries if not entry.rollout_prefix)


def default_roots() -> list[Root]:
    return [
        Root(str(host_folder(entry.name) / folder), entry.name, layout)
        for entry in hosts.REGISTRY.values()
        for folder, layout in entry.roots
    ]


def extra_roots(entries: tuple[Any, ...] | list[Any]) -> list[Root]:
    """A string is a folder of transcripts of either host (told apart by file name); a table
    `{host = "codex", path = "..."}` pins the host."""
    roots = []
    for entry in entries:
        if isinstance(entry, str):
            host, path = None, entry
        elif isinstance(entry, dict) and set(entry) <= {"host", "path"} and "path" in entry:
            host, path = entry.get("host"), entry["path"]
            if host is not None and host not in hosts.names():
                raise ConfigError(
                    f"daemon.extra_roots: host must be one of {', '.join(hosts.names())}"
                )
        else:
            raise ConfigError(
                'daemon.extra_roots: each entry is a path or {host = "...", path = "..."}'
            )
        roots.append(Root(os.path.abspath(os.path.expanduser(str(path))), host, "any"))
    return roots


def all_roots(extra: tuple[Any, ...] | list[Any] = ()) -> list[Root]:
    return default_roots() + extra_roots(extra)


def root_of(path: str, roots: list[Root]) -> Root | None:
    for root in roots:
        if root.accepts(path):
            return root
    return None


def iter_transcripts(root: Root, under: str | None = None) -> Iterator[str]:
    """Every transcript below the root (or below `under`, a folder inside it). Follows folder
    symlinks but never visits one folder twice, so a symlink loop ends; unreadable folders are
    skipped."""
    start = under or root.path
    seen: set[tuple[int, int]] = set()
    stack = [start]
    while stack:
        folder = stack.pop()
        parts = root.relative_parts(folder + os.sep + "x")
        depth = len(parts) - 1 if parts else 0
        try:
            st = os.stat(folder)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                mode = entry.stat().st_mode  # follows symlinks; a dangling one raises
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                if depth + 1 < root.max_depth:
                    stack.append(entry.path)
            elif root.accepts(entry.path):
                yield entry.path


def watch_base(root: Root) -> Path | None:
    """The nearest folder that exists at or above the root, for a non-recursive watch that
    notices when the root itself appears (a host installed after memvet)."""
    path = Path(root.path)
    for candidate in (path, *path.parents):
        if candidate.is_dir():
            return candidate
    return None
