"""What `memvet setup` created in each host file (MEMVET_HOME/setup-record.json).

Uninstall removes memvet's entries, then the containers that only held them — but a
`"hooks": {}` the user had before setup must survive. JSON has no comments to mark it, so
setup records the containers (and files) it created here. Without a record (another
MEMVET_HOME, a lost file) uninstall falls back to removing what became empty.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from memvet.install.setup_common import FileEdit, atomic_write, read_text
from memvet.store.paths import ensure_private_dir, memvet_home


@dataclass(frozen=True)
class SetupRecord:
    file: bool  # memvet created the file itself
    containers: frozenset[tuple[str, ...]]


def lookup(path: Path) -> SetupRecord | None:
    """What `setup` created in this file; None when unknown (then empty containers and files
    left after removing memvet's entries are assumed to be memvet's)."""
    entry = _read_records().get(str(path))
    if not isinstance(entry, dict):
        return None
    return SetupRecord(
        bool(entry.get("file")), frozenset(tuple(c) for c in entry.get("containers", []))
    )


def may_drop(record: SetupRecord | None, container: tuple[str, ...]) -> bool:
    return record is None or container in record.containers


def _records_path() -> Path:
    return memvet_home() / "setup-record.json"


def _read_records() -> dict[str, object]:
    try:
        data = json.loads(_records_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def update(edits: list[FileEdit], uninstall: bool) -> None:
    """After writing: remember what setup created; forget it once uninstall has run."""
    for edit in edits:
        if edit.action != "unchanged":
            _update_one(edit, uninstall)


def _update_one(edit: FileEdit, uninstall: bool) -> None:
    records = _read_records()
    key = str(edit.path)
    if uninstall:
        if records.pop(key, None) is None:
            return
    else:
        old = records.get(key)
        old = old if isinstance(old, dict) else {}
        containers = {tuple(c) for c in old.get("containers", [])} | set(edit.created)
        records[key] = {
            "file": bool(old.get("file")) or edit.before is None,
            "containers": sorted(list(c) for c in containers),
        }
    ensure_private_dir(memvet_home())
    atomic_write(
        _records_path(),
        json.dumps(records, indent=2) + "\n",
        0o600,
        expect=read_text(_records_path()),
    )
