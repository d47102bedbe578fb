"""How memvet names itself in host files and recognises its own entries there later: the
command a host runs, the hook marker, the MCP entry test. Import-light (no setup machinery):
`memvet status` reads host files with it on every run."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys

# A hook entry is memvet's when its command runs `memvet hook <host> …` (or the module form).
# Hosts forbid or may reject extra keys in hook entries, so the command string is the marker.
_HOOK_MARKER = re.compile(
    r"(?:\bmemvet(?:\.exe)?|memvet\.install\.launcher)['\"]?\s+hook\s+(?P<host>[a-z-]+)"
    r"(?:\s+(?P<event>[a-z-]+))?"
)
# A command we run from a host file: the console script, or `python -m` when there is none.
_MODULE_FORM = ["-m", "memvet.install.launcher"]


def memvet_argv() -> list[str]:
    """The absolute command that runs this memvet, for hosts that start it without our PATH."""
    bin_dir = os.path.dirname(os.path.abspath(sys.executable))
    found = shutil.which("memvet", path=bin_dir) or shutil.which("memvet")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), *_MODULE_FORM]


def pinned_env() -> dict[str, str]:
    """MEMVET_HOME as set now, so hooks, MCP server and daemon all open the same store."""
    home = os.environ.get("MEMVET_HOME")
    return {"MEMVET_HOME": os.path.abspath(os.path.expanduser(home))} if home else {}


def hook_command(host: str, event: str) -> str:
    """A shell command line (both hosts run hook commands through a shell)."""
    env = "".join(f"{k}={shlex.quote(v)} " for k, v in pinned_env().items())
    return env + shlex.join([*memvet_argv(), "hook", host, event])


def is_memvet_hook(command: object, host: str, event: str | None = None) -> bool:
    """`event` (e.g. "session-start") narrows the match; None matches any of the host's."""
    if not isinstance(command, str):
        return False
    match = _HOOK_MARKER.search(command)
    if not match or match.group("host") != host:
        return False
    return event is None or match.group("event") == event


def looks_like_memvet_command(command: object, args: object) -> bool:
    """An MCP entry that starts memvet (any install path), so uninstall never drops a stranger."""
    if not isinstance(command, str):
        return False
    name = os.path.basename(command)
    argv = args if isinstance(args, list) else []
    return name in ("memvet", "memvet.exe") or "memvet.install.launcher" in argv


def event_slug(event: str) -> str:
    """SessionStart -> session-start: the argument `memvet hook` takes."""
    return "".join("-" + c.lower() if c.isupper() else c for c in event).lstrip("-")
