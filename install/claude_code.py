"""`memvet setup claude-code`: hooks in `$CLAUDE_CONFIG_DIR/settings.json` and the user-scope
MCP server in `.claude.json` (host-formats.md §2.1, §2.5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memvet.install import native_memory_setup as nms
from memvet.install import setup_record
from memvet.install.hook_settings import (
    WantedHook,
    install_hooks,
    remove_event_hooks,
)
from memvet.install.host_files import settings_path, user_state_path
from memvet.install.host_setup import (
    HOOK_TIMEOUT,
    SetupOptions,
    context_hooks,
    finished_text,
    remove_json_hooks,
)
from memvet.install.memvet_entries import (
    hook_command,
    looks_like_memvet_command,
    memvet_argv,
    pinned_env,
)
from memvet.install.setup_common import ConfigFileError, FileEdit, Planned, load_json
from memvet.install.setup_record import may_drop
from memvet.store import hosts
from memvet.store.paths import claude_config_dir

HOST = hosts.CLAUDE_CODE


def wanted_hooks(native_memory: str = "gate") -> list[WantedHook]:
    hooks = context_hooks(HOST)
    if native_memory == "gate":  # auto memory writes become candidates (native_memory.py)
        hooks.append(
            WantedHook(
                "PreToolUse", nms.GATE_MATCHER, hook_command(HOST, "pre-tool-use"), HOOK_TIMEOUT
            )
        )
    return hooks


def mcp_entry() -> dict[str, Any]:
    argv = memvet_argv()
    entry: dict[str, Any] = {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"]}
    if pinned_env():
        entry["env"] = pinned_env()
    return entry


def files() -> tuple[Path, Path]:
    return settings_path(), user_state_path()  # .claude.json also holds OAuth state


def after_setup(options: SetupOptions, edits: list[FileEdit]) -> None:
    """With the gate on, the memory files Claude Code already wrote go to the review queue."""
    if options.native_memory != "gate":
        return
    imported = nms.import_existing(claude_config_dir())
    if imported:
        edits[0].notes.append(
            f"{imported} memory file(s) Claude Code had written "
            "are in memvet's review queue (`memvet queue list`)."
        )


def messages(uninstall: bool, files: list[dict[str, Any]]) -> list[str]:
    if not any(f["action"] != "unchanged" for f in files):
        return []
    if uninstall:
        return ["memvet's hooks and MCP server are removed from Claude Code."]
    return [
        "Claude Code loads the hooks in new sessions; restart running sessions. "
        "`/mcp` in Claude Code lists the memvet server.",
    ]


def add_hooks(text: str | None, path: Path, options: SetupOptions) -> Planned:
    native_memory = options.native_memory
    doc = load_json(text or "{}\n", path)
    created = install_hooks(doc, HOST, wanted_hooks(native_memory), str(path))
    notes = []
    if native_memory != "gate":
        remove_event_hooks(doc, HOST, "PreToolUse", setup_record.lookup(path))
    if native_memory == "off":
        if nms.switch_off(doc, created):
            notes.append(
                f"{path}: Claude Code's auto memory is off ({nms.DISABLE_VAR}=1 in "
                '"env"); uninstall puts back what was there.'
            )
    else:
        nms.restore(doc, setup_record.lookup(path))
    if doc.get(("disableAllHooks",)) is True:
        notes.append(
            f'{path} has "disableAllHooks": true: Claude Code runs no hooks, memvet\'s '
            "included, until you remove it (memvet leaves it as it is)."
        )
    return Planned(doc.result(), notes, created)


def add_mcp(text: str | None, path: Path) -> Planned:
    doc = load_json(text or "{}\n", path)
    created = []
    servers = doc.get(("mcpServers",))
    if servers is None:
        doc.set_member((), "mcpServers", {})
        created.append(("mcpServers",))
    elif not isinstance(servers, dict):
        raise ConfigFileError(f'{path}: "mcpServers" is not an object; left alone', path=str(path))
    notes = []
    current = doc.get(("mcpServers", "memvet"))
    if current is not None and not _is_ours(current):
        notes.append(f'{path}: replaced an MCP server named "memvet" that did not run memvet.')
    if current != mcp_entry():
        doc.set_member(("mcpServers",), "memvet", mcp_entry())
    return Planned(doc.result(), notes, created)


def remove_hooks(text: str | None, path: Path) -> Planned:
    """memvet's hooks out, and Claude Code's auto memory setting as it was before setup."""
    return remove_json_hooks(text, path, HOST, nms.restore)


def remove_mcp(text: str | None, path: Path) -> Planned:
    if text is None:
        return Planned(None)
    doc = load_json(text, path)
    current = doc.get(("mcpServers", "memvet"))
    if current is None:
        return Planned(text)
    if not _is_ours(current):
        return Planned(text, [f'{path}: the MCP server "memvet" does not run memvet; left alone.'])
    record = setup_record.lookup(path)
    doc.remove(("mcpServers", "memvet"))
    if not doc.get(("mcpServers",)) and may_drop(record, ("mcpServers",)):
        doc.remove(("mcpServers",))
    return Planned(finished_text(doc, record))


def _is_ours(entry: object) -> bool:
    return isinstance(entry, dict) and looks_like_memvet_command(
        entry.get("command"), entry.get("args")
    )
