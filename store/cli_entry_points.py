"""The `memvet.commands` entry points (console.py registers each component's commands with them),
read straight from the installed distributions' `entry_points.txt`.

`importlib.metadata` finds the same ones, but importing it pulls in email, zipfile, csv and
pathlib: a third of a read command's start-up. This reads what it reads, the way it reads it:
every `*.dist-info` / `*.egg-info` folder on sys.path, in path order, the first distribution of
a (normalised) name winning. Where that finds none (a zipped install, say), importlib.metadata
answers; tests/test_cli_conventions.py checks both give the same list.

`own_command_entry_points` reads memvet's own distribution only: the frame finds a built-in
command there without opening every installed package's file (~100 in a typical venv); the
full scan is for a command no built-in names (another distribution's) and for help.

`COMMANDS` names the entry point that registers each built-in command, so that one command
imports one component's CLI module, not all four (10-14 ms of a read command's start-up).
tests/test_command_map.py checks it against what every component registers.
"""

from __future__ import annotations

import os
import sys

GROUP = "memvet.commands"
OWN_DISTRIBUTION = "memvet"
COMMENTS = ("#", ";")
# Every built-in command, in the order `memvet --help` lists them: (the task it is listed under,
# the memvet.commands entry point that registers it). None: the frame's own (cli_conventions),
# registered with every parser. A command missing here still works (found by the scan) and is
# listed under "other".
COMMANDS: dict[str, tuple[str, str | None]] = {
    "up": ("review", "inspector"),
    "inspect": ("review", "inspector"),
    "queue": ("review", "store"),
    "propose": ("review", "store"),
    "rules": ("review", "daemon"),
    "memories": ("memories", "store"),
    "recall": ("memories", "install"),
    "audit": ("memories", "store"),
    "setup": ("hosts", "install"),
    "status": ("hosts", "install"),
    "doctor": ("hosts", "install"),
    "hook": ("hosts", "install"),
    "mcp": ("hosts", "install"),
    "daemon": ("daemon", "daemon"),
    "service": ("daemon", "install"),
    "extract": ("daemon", "daemon"),
    "key": ("keys and store", "store"),
    "migrate": ("keys and store", "store"),
    "paths": ("keys and store", None),
    "team": ("team", "store"),
    "sync": ("team", "store"),
    "completion": ("shell and trying out", None),
    "demo": ("shell and trying out", "install"),
}


def _normalised(folder: str) -> str:
    """A distribution's name from its metadata folder, as importlib.metadata normalises it."""
    name = folder.rsplit(".", 1)[0].split("-", 1)[0]
    return "_".join(filter(None, name.replace("-", "_").replace(".", "_").split("_"))).lower()


def _group(text: str, group: str) -> list[tuple[str, str]]:
    """(name, value) of one section of an entry_points.txt (an INI file)."""
    found, section = [], None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(COMMENTS):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group and "=" in line:
            name, value = line.split("=", 1)
            found.append((name.strip(), value.strip()))
    return found


def _scanned(group: str, only: str | None = None) -> list[tuple[str, str]]:
    """`only`: that one distribution's entry points (the first of its name on sys.path)."""
    found, seen = [], set()
    for entry in sys.path:
        try:
            folders = os.listdir(entry or ".")
        except OSError:  # missing, or a zip file: importlib.metadata covers those
            continue
        for folder in folders:
            if not folder.endswith((".dist-info", ".egg-info")):
                continue
            if only is not None and not folder.lower().startswith(only):
                continue  # cheap: the name is normalised only for candidates
            name = _normalised(folder)
            if name in seen or (only is not None and name != only):
                continue
            try:
                with open(os.path.join(entry or ".", folder, "entry_points.txt")) as handle:
                    text = handle.read()
            except OSError:  # no entry points; the name is still taken (as importlib's is)
                seen.add(name)
                continue
            seen.add(name)
            found += _group(text, group)
            if only is not None:  # the first of its name wins: the rest of the path is moot
                return found
    return found


def command_entry_points(group: str = GROUP) -> list[tuple[str, str]]:
    """(name, "module:attr") of the group's entry points, sorted by name."""
    found = _scanned(group)
    if not found:
        from importlib.metadata import entry_points

        found = [(ep.name, ep.value) for ep in entry_points(group=group)]
    return sorted(found, key=lambda pair: pair[0])


def own_command_entry_points(group: str = GROUP) -> list[tuple[str, str]]:
    """The group's entry points of memvet's own distribution, sorted by name; none where its
    metadata is not a folder on sys.path (the caller then falls back to the full scan)."""
    return sorted(_scanned(group, only=OWN_DISTRIBUTION), key=lambda pair: pair[0])


def component_entry_points(command: str, group: str = GROUP) -> list[tuple[str, str]] | None:
    """The one entry point of memvet's own that registers `command` (none for the frame's
    own commands); None when COMMANDS does not name it (another distribution's, or a typo)."""
    if command not in COMMANDS:
        return None
    component = COMMANDS[command][1]
    return [pair for pair in own_command_entry_points(group) if pair[0] == component]


def load(value: str) -> object:
    """What an entry point's "module:attr [extras]" names (EntryPoint.load)."""
    from importlib import import_module

    module, _, attr = value.split("[", 1)[0].strip().partition(":")
    found: object = import_module(module.strip())
    for part in filter(None, attr.strip().split(".")):
        found = getattr(found, part)
    return found
