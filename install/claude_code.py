"""`memvet setup claude-code`: hooks in `$CLAUDE_CONFIG_DIR/settings.json` and the user-scope
MCP server in `.claude.json` (host-formats.md §2.1, §2.5)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memvet.install.hook_settings import WantedHook, count_hooks, install_hooks, uninstall_hooks
from memvet.install.json_edit import JsonText
from memvet.install.setup_common import (
    ConfigFileError,
    FileEdit,
    hook_command,
    looks_like_memvet_command,
    memvet_argv,
    pinned_env,
)
from memvet.store.paths import claude_config_dir

HOST = "claude-code"
SESSION_START_MATCHER = "startup|resume|clear|compact"
# Seconds. Claude's own default for UserPromptSubmit is 30 s; memvet answers in well under
# one, and a stuck hook must not hold the session for long (on timeout the session goes on).
HOOK_TIMEOUT = 10


def settings_path() -> Path:
    return claude_config_dir() / "settings.json"


def user_state_path() -> Path:
    """Where Claude Code keeps user-scope MCP servers: `~/.claude.json`, or inside
    CLAUDE_CONFIG_DIR when that is set (Claude Code moves the file there)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() / ".claude.json" if env else Path.home() / ".claude.json"


def wanted_hooks() -> list[WantedHook]:
    return [
        WantedHook("SessionStart", SESSION_START_MATCHER, hook_command(HOST, "session-start"), HOOK_TIMEOUT),
        WantedHook("UserPromptSubmit", None, hook_command(HOST, "user-prompt-submit"), HOOK_TIMEOUT),
    ]


def mcp_entry() -> dict[str, Any]:
    argv = memvet_argv()
    entry: dict[str, Any] = {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"]}
    if pinned_env():
        entry["env"] = pinned_env()
    return entry


def edits(uninstall: bool) -> list[FileEdit]:
    settings, state = settings_path(), user_state_path()
    if uninstall:
        return [
            FileEdit(settings, lambda text: _remove_hooks(text, settings)),
            FileEdit(state, lambda text: _remove_mcp(text, state)),
        ]
    return [
        FileEdit(settings, lambda text: _add_hooks(text, settings)),
        # .claude.json also holds other tools' tokens and OAuth state: a new one is 0600.
        FileEdit(state, lambda text: _add_mcp(text, state), new_mode=0o600),
    ]


def messages(uninstall: bool, changed: bool) -> list[str]:
    if uninstall:
        return ["memvet's hooks and MCP server are removed from Claude Code."] if changed else []
    return [
        "Claude Code loads the hooks in new sessions; restart running sessions. "
        "`/mcp` in Claude Code lists the memvet server.",
    ]


def _add_hooks(text: str | None, path: Path) -> tuple[str | None, list[str]]:
    doc = load_json(text or "{}", path)
    install_hooks(doc, HOST, wanted_hooks(), str(path))
    notes = []
    if doc.get(("disableAllHooks",)) is True:
        notes.append(f'{path} has "disableAllHooks": true: Claude Code runs no hooks, memvet\'s '
                     "included, until you remove it (memvet leaves it as it is).")
    return _finish(doc, text), notes


def _remove_hooks(text: str | None, path: Path) -> tuple[str | None, list[str]]:
    if text is None:
        return None, []
    doc = load_json(text, path)
    if not uninstall_hooks(doc, HOST):
        return text, []
    return _finish(doc, text), []


def _add_mcp(text: str | None, path: Path) -> tuple[str | None, list[str]]:
    doc = load_json(text or "{}", path)
    servers = doc.get(("mcpServers",))
    if servers is None:
        doc.set_member((), "mcpServers", {})
    elif not isinstance(servers, dict):
        raise ConfigFileError(f'{path}: "mcpServers" is not an object; left alone', path=str(path))
    notes = []
    current = doc.get(("mcpServers", "memvet"))
    if current is not None and not _is_ours(current):
        notes.append(f"{path}: replaced an MCP server named \"memvet\" that did not run memvet.")
    if current != mcp_entry():
        doc.set_member(("mcpServers",), "memvet", mcp_entry())
    return _finish(doc, text), notes


def _remove_mcp(text: str | None, path: Path) -> tuple[str | None, list[str]]:
    if text is None:
        return None, []
    doc = load_json(text, path)
    current = doc.get(("mcpServers", "memvet"))
    if current is None:
        return text, []
    if not _is_ours(current):
        return text, [f'{path}: the MCP server "memvet" does not run memvet; left alone.']
    doc.remove(("mcpServers", "memvet"))
    if not doc.get(("mcpServers",)):
        doc.remove(("mcpServers",))
    return _finish(doc, text), []


def installed(path_settings: Path | None = None, path_state: Path | None = None) -> dict[str, bool]:
    """What of memvet is wired into Claude Code now (for status/doctor)."""
    out = {"hooks": False, "mcp": False}
    for key, path in (("hooks", path_settings or settings_path()), ("mcp", path_state or user_state_path())):
        try:
            text = path.read_text(encoding="utf-8")
            doc = JsonText(text)
        except (OSError, ValueError):
            continue
        if key == "hooks":
            out[key] = count_hooks(doc, HOST) > 0
        else:
            out[key] = _is_ours(doc.get(("mcpServers", "memvet")))
    return out


def load_json(text: str, path: Path) -> JsonText:
    try:
        doc = JsonText(text)
    except json.JSONDecodeError as exc:
        raise ConfigFileError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); left alone",
            path=str(path), line=exc.lineno, column=exc.colno,
        ) from exc
    if not isinstance(doc.data, dict):
        raise ConfigFileError(f"{path}: not a JSON object; left alone", path=str(path))
    return doc


def _finish(doc: JsonText, original: str | None) -> str | None:
    """The new text; None (remove the file) when only an empty object is left."""
    if not doc.data and (original is None or not json.loads(original)):
        return original  # nothing of ours was added or removed
    return doc.result() if doc.data else None


def _is_ours(entry: object) -> bool:
    return isinstance(entry, dict) and looks_like_memvet_command(entry.get("command"), entry.get("args"))
