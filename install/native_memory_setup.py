"""`memvet setup claude-code --native-memory {gate,off,leave}`: what setup does about Claude
Code's own auto memory.

- gate (default): the PreToolUse hook of native_memory.py, and the memory files already there
  imported into the review queue once (tombstones apply; the files stay);
- off: `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1` in the user settings' `env` block — a project's
  checked-in `autoMemoryEnabled: true` overrides the user's `autoMemoryEnabled: false`, but not
  this variable. The value it replaced is recorded and put back on uninstall;
- leave: neither.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from memvet.install.json_edit import JsonText
from memvet.install.setup_record import SetupRecord, may_drop
from memvet.store.paths import memvet_home

MODES = ("gate", "off", "leave")
GATE_MATCHER = "Write|Edit|MultiEdit|Bash"
DISABLE_VAR = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
RECORD = "native-memory.json"
ABSENT = "__absent__"


def _record() -> dict[str, Any]:
    try:
        doc = json.loads((memvet_home() / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _save(doc: dict[str, Any]) -> None:
    path = memvet_home() / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    path.chmod(0o600)


def switch_off(doc: JsonText, created: list[tuple[str, ...]]) -> bool:
    """Set the variable (recording what it replaces); True when the text changed."""
    env = doc.get(("env",))
    if env is None:
        doc.set_member((), "env", {})
        created.append(("env",))
    elif not isinstance(env, dict):
        return False
    current = doc.get(("env", DISABLE_VAR))
    if current == "1":
        return False
    record = _record()
    if "env_previous" not in record:
        record["env_previous"] = ABSENT if current is None else current
        _save(record)
    doc.set_member(("env",), DISABLE_VAR, "1")
    return True


def restore(doc: JsonText, record: SetupRecord | None) -> bool:
    """Put back what `switch_off` replaced (uninstall, or setup in another mode)."""
    saved = _record()
    if "env_previous" not in saved or doc.get(("env", DISABLE_VAR)) != "1":
        return False
    previous = saved.pop("env_previous")
    if previous == ABSENT:
        doc.remove(("env", DISABLE_VAR))
        if not doc.get(("env",)) and may_drop(record, ("env",)):
            doc.remove(("env",))
    else:
        doc.replace(("env", DISABLE_VAR), previous)
    _save(saved)
    return True


def import_existing(claude_dir: Path) -> int:
    """Queue the memory files Claude Code already wrote, once each (by path and content
    hash); the index is not a memory. Returns how many entries were queued."""
    from memvet.install import native_memory as nm

    record = _record()
    seen = set(record.get("imported", []))
    queued = 0
    for path in sorted(claude_dir.glob("projects/*/memory/*.md")):
        if path.name == nm.INDEX:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        key = f"{path}:{hashlib.sha256(text.encode()).hexdigest()}"
        entry = nm.parse_entry(text)
        if key in seen or entry is None:
            continue
        nm.queue([entry], {"cwd": None}, str(path), actor="import")
        seen.add(key)
        queued += 1
    if queued:
        record["imported"] = sorted(seen)
        _save(record)
    return queued
