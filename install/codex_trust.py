"""Whether Codex will run memvet's hooks: Codex runs a non-managed command hook only once the
user trusted it (`/hooks` in the TUI), and records that in config.toml as
`[hooks.state."<hooks.json path>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"` —
keyed by position, so a hook that moved (another group inserted before it) is untrusted again.
Checked with Codex 0.171's app server (`hooks/list`: `key`, `trustStatus`)."""

from __future__ import annotations

from typing import Any

from memvet.install.memvet_entries import event_slug, is_memvet_hook
from memvet.store.hosts import CODEX

TRUST_MESSAGE = (
    "Codex runs new or changed hooks only after you trust them: start Codex, open /hooks, "
    "review the two memvet hooks and trust them. Until then they are silently skipped."
)

TRUSTED, UNTRUSTED, UNKNOWN = "trusted", "untrusted", "unknown"


def hook_key(hooks_file: str, event: str, group: int, handler: int) -> str:
    return f"{hooks_file}:{event_slug(event).replace('-', '_')}:{group}:{handler}"


def trust_states(hooks_doc: Any, config_doc: Any, hooks_file: str) -> dict[str, str]:
    """Per memvet hook in hooks.json (by `memvet hook` event argument): trusted, untrusted, or
    unknown (config.toml unreadable)."""
    states: dict[str, str] = {}
    by_event = hooks_doc.get("hooks") if isinstance(hooks_doc, dict) else None
    if not isinstance(by_event, dict):
        return states
    readable = isinstance(config_doc, dict) and not config_doc.get("__unreadable__")
    hooks_table = config_doc.get("hooks") if readable else None
    records = hooks_table.get("state") if isinstance(hooks_table, dict) else None
    records = records if isinstance(records, dict) else {}
    for event, groups in by_event.items():
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
                command = handler.get("command") if isinstance(handler, dict) else None
                if not is_memvet_hook(command, CODEX, event_slug(event)):
                    continue
                record = records.get(hook_key(hooks_file, event, gi, hi))
                trusted = isinstance(record, dict) and bool(record.get("trusted_hash"))
                states[event_slug(event)] = (
                    UNKNOWN if not readable else (TRUSTED if trusted else UNTRUSTED)
                )
    return states
