"""A team workspace is its git remote, normalised, not a local path: two clones of one
repository on two machines are the same team workspace. Read from .git/config (no `git`
subprocess), the remote `origin` first, else the first remote."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:org/repo.git


def normalise_remote(url: str) -> str:
    """host/path, lower-case host, no scheme, user, port-less ssh prefix, `.git` or slash:
    `git@GitHub.com:Org/App.git`, `https://github.com/Org/App` → `github.com/Org/App`."""
    url = url.strip()
    if "://" in url:
        rest = url.split("://", 1)[1]
        rest = rest.rsplit("@", 1)[-1] if "@" in rest.split("/", 1)[0] else rest
        host, _, path = rest.partition("/")
        host = host.split(":", 1)[0]  # a port says nothing about which repository it is
    else:
        match = _SCP.match(url)
        if not match:
            return url.rstrip("/").removesuffix(".git")
        host, path = match.groups()
    path = path.strip("/").removesuffix(".git").strip("/")
    return f"{host.lower()}/{path}"


def _git_dir(root: Path) -> Path | None:
    dot = root / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():  # a worktree or submodule: "gitdir: PATH"
        text = dot.read_text(errors="replace").strip()
        if text.startswith("gitdir:"):
            gitdir = Path(text[7:].strip())
            gitdir = gitdir if gitdir.is_absolute() else (root / gitdir)
            common = gitdir / "commondir"
            if common.is_file():
                gitdir = gitdir / common.read_text().strip()
            return gitdir
    return None


def remote_of(workspace: str | None) -> str | None:
    """The normalised remote of a workspace folder (a git root), or None without one."""
    if not workspace:
        return None
    git_dir = _git_dir(Path(workspace))
    if git_dir is None or not (git_dir / "config").is_file():
        return None
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read(git_dir / "config", encoding="utf-8")
    except configparser.Error:
        return None
    remotes = [
        s for s in parser.sections() if s.startswith('remote "') and parser.has_option(s, "url")
    ]
    remotes.sort(key=lambda s: s != 'remote "origin"')
    return normalise_remote(parser.get(remotes[0], "url")) if remotes else None
