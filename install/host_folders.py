"""The host folders the daemon must watch, for the service: a service manager starts the daemon
without the user's shell, so CLAUDE_CONFIG_DIR and CODEX_HOME are pinned in the unit or plist —
as set when `service install` runs, else as recorded by `memvet setup` for that host (in
MEMVET_HOME/host-folders.json). Nothing is pinned for a host in its default folder."""

from __future__ import annotations

import json
import os

from memvet.install.memvet_entries import pinned_env
from memvet.store.hosts import REGISTRY
from memvet.store.paths import memvet_home

RECORD = "host-folders.json"


def _recorded() -> dict[str, str]:
    try:
        doc = json.loads((memvet_home() / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return (
        {k: v for k, v in doc.items() if k in REGISTRY and isinstance(v, str)}
        if isinstance(doc, dict)
        else {}
    )


def record(host: str) -> None:
    """At setup: the folder this host uses now (None: its default) for later service installs."""
    value = os.environ.get(REGISTRY[host].folder_variable)
    doc = _recorded()
    if value:
        doc[host] = os.path.abspath(os.path.expanduser(value))
    elif host in doc:
        del doc[host]
    else:
        return
    path = memvet_home() / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.replace(temp, path)


def service_env() -> dict[str, str]:
    env = pinned_env()
    recorded = _recorded()
    for host, entry in REGISTRY.items():
        variable = entry.folder_variable
        value = os.environ.get(variable) or recorded.get(host)
        if value:
            env[variable] = os.path.abspath(os.path.expanduser(value))
    return env
