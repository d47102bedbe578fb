"""memvet's entries in a hooks document: Claude Code's settings.json and Codex's hooks.json
share one shape, `{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command", ...}]}]}}`.

Entries are found by their command string (see memvet_entries.is_memvet_hook): neither host
documents tolerance for extra keys in a handler, and a rejected file would switch off every
hook the user has, not just ours. Everything that is not memvet's is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memvet.install.json_edit import JsonText
from memvet.install.memvet_entries import event_slug, is_memvet_hook
from memvet.install.setup_common import ConfigFileError
from memvet.install.setup_record import SetupRecord, may_drop


@dataclass(frozen=True)
class WantedHook:
    event: str  # host event name, e.g. "SessionStart"
    matcher: str | None
    command: str
    timeout: int

    def group(self) -> dict[str, Any]:
        handler = {"type": "command", "command": self.command, "timeout": self.timeout}
        group: dict[str, Any] = {"matcher": self.matcher} if self.matcher else {}
        group["hooks"] = [handler]
        return group


def install_hooks(
    doc: JsonText, host: str, wanted: list[WantedHook], where: str
) -> list[tuple[str, ...]]:
    """Add each wanted hook unless memvet already has one for that event; refresh a stale
    command (memvet moved) in place; drop duplicates of ours. Returns the containers created."""
    created: list[tuple[str, ...]] = []
    hooks = doc.get(("hooks",))
    if hooks is None:
        doc.set_member((), "hooks", {})
        created.append(("hooks",))
    elif not isinstance(hooks, dict):
        raise ConfigFileError(f'{where}: "hooks" is not an object; left alone', path=where)
    for want in wanted:
        groups = doc.get(("hooks", want.event))
        if groups is None:
            doc.set_member(("hooks",), want.event, [want.group()])
            created.append(("hooks", want.event))
            continue
        if not isinstance(groups, list):
            raise ConfigFileError(
                f'{where}: "hooks.{want.event}" is not a list; left alone', path=where
            )
        found = _ours(groups, host, event_slug(want.event))
        if not found:
            doc.append_item(("hooks", want.event), want.group())
            continue
        gi, hi = found[0]
        if groups[gi]["hooks"][hi].get("command") != want.command:
            doc.replace(("hooks", want.event, gi, "hooks", hi, "command"), want.command)
        for gi, hi in reversed(found[1:]):
            _remove_handler(doc, want.event, gi, hi)
    return created


def uninstall_hooks(doc: JsonText, host: str, record: SetupRecord | None) -> int:
    """Remove every memvet handler for `host`, and the containers setup created for them
    once they are empty (any emptied container when there is no record)."""
    hooks = doc.get(("hooks",))
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        found = _ours(groups, host, None)
        for gi, hi in reversed(found):
            _remove_handler(doc, event, gi, hi)
        removed += len(found)
        if found and not doc.get(("hooks", event)) and may_drop(record, ("hooks", event)):
            doc.remove(("hooks", event))
    if removed and not doc.get(("hooks",)) and may_drop(record, ("hooks",)):
        doc.remove(("hooks",))
    return removed


def remove_event_hooks(doc: JsonText, host: str, event: str, record: SetupRecord | None) -> int:
    """Remove memvet's handlers of one event (a gate switched off by a later setup)."""
    groups = doc.get(("hooks", event))
    if not isinstance(groups, list):
        return 0
    found = _ours(groups, host, event_slug(event))
    for gi, hi in reversed(found):
        _remove_handler(doc, event, gi, hi)
    if found and not doc.get(("hooks", event)) and may_drop(record, ("hooks", event)):
        doc.remove(("hooks", event))
    return len(found)


def _ours(groups: list[Any], host: str, slug: str | None) -> list[tuple[int, int]]:
    found = []
    for gi, group in enumerate(groups):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            continue
        for hi, handler in enumerate(handlers):
            command = handler.get("command") if isinstance(handler, dict) else None
            if is_memvet_hook(command, host, slug):
                found.append((gi, hi))
    return found


def _remove_handler(doc: JsonText, event: str, gi: int, hi: int) -> None:
    if len(doc.get(("hooks", event, gi, "hooks"))) == 1:
        doc.remove(("hooks", event, gi))  # the group held only ours
    else:
        doc.remove(("hooks", event, gi, "hooks", hi))
