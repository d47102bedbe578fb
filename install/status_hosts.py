"""`memvet status`/`doctor`'s facts about each host: what memvet wired into its settings (hooks,
MCP server, the native-memory gate) and whether each entry runs this installation. Only reads.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from memvet.store.hosts import CLAUDE_CODE, CODEX

HOOK_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit"}


def load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"__unreadable__": True}


def load_toml(path: Path) -> Any:
    import tomllib

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError):
        return {"__unreadable__": True}


def _program(argv: list[str]) -> str | None:
    """The executable of a command line, past any leading VAR=value assignments."""
    for word in argv:
        if "=" in word and not word.startswith(("/", ".")) and word.split("=", 1)[0].isidentifier():
            continue
        return word
    return None


def _command_facts(argv: list[str]) -> dict[str, Any]:
    """Does the program exist, and is it this installation's memvet (or its python -m form)?"""
    from memvet.install.memvet_entries import memvet_argv

    program = _program(argv)
    found = (shutil.which(program) if os.sep not in program else program) if program else None
    exists = bool(found and os.path.isfile(found) and os.access(found, os.X_OK))
    here = memvet_argv()
    same = exists and found is not None and os.path.realpath(found) == os.path.realpath(here[0])
    if exists and found is not None and "memvet.install.launcher" in argv:
        same = os.path.realpath(found) == os.path.realpath(sys.executable)
    pinned = next((w.split("=", 1)[1] for w in argv if w.startswith("MEMVET_HOME=")), None)
    return {
        "command": program,
        "exists": exists,
        "this_installation": bool(same),
        "memvet_home": pinned,
    }


def _hooks(doc: Any, host: str) -> dict[str, Any]:
    from memvet.install.memvet_entries import is_memvet_hook

    events: dict[str, Any] = {}
    groups_by_event = doc.get("hooks") if isinstance(doc, dict) else None
    for event, slug in HOOK_EVENTS.items():
        groups = groups_by_event.get(event) if isinstance(groups_by_event, dict) else None
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if is_memvet_hook(command, host, slug):
                    try:
                        events[slug] = _command_facts(shlex.split(command))
                    except ValueError:
                        events[slug] = {
                            "command": None,
                            "exists": False,
                            "this_installation": False,
                            "memvet_home": None,
                        }
    return events


def _mcp(servers: Any) -> dict[str, Any] | None:
    from memvet.install.memvet_entries import looks_like_memvet_command

    for name, entry in servers.items() if isinstance(servers, dict) else []:
        if not isinstance(entry, dict):
            continue
        args = entry.get("args")
        args = args if isinstance(args, list) else []
        if looks_like_memvet_command(entry.get("command"), args) and "mcp" in args:
            env = entry.get("env")
            env = env if isinstance(env, dict) else {}
            facts = _command_facts([str(entry.get("command")), *map(str, args)])
            return {**facts, "name": name, "memvet_home": env.get("MEMVET_HOME")}
    return None


def claude_facts() -> dict[str, Any]:
    from memvet.install.host_files import settings_path, user_state_path

    settings, state = settings_path(), user_state_path()
    # Only the file Claude Code reads: with CLAUDE_CONFIG_DIR set, ~/.claude.json is ignored.
    doc = load_json(state)
    mcp = _mcp(doc.get("mcpServers") if isinstance(doc, dict) else None)
    doc = load_json(settings)
    return {
        "settings": str(settings),
        "state": str(state),
        "hooks": _hooks(doc, CLAUDE_CODE),
        "mcp": mcp,
        "native_memory": _native_memory(doc),
        "unreadable": [
            str(p) for p, d in ((settings, doc),) if isinstance(d, dict) and d.get("__unreadable__")
        ],
    }


def _native_memory(user_settings: Any) -> dict[str, Any]:
    """Claude Code's auto memory as this folder's project sees it: memvet's gate hook, the user's
    switch-off variable, and project settings that turn the feature back on."""
    from memvet.install.memvet_entries import is_memvet_hook
    from memvet.store.workspace import resolve_workspace

    hooks = user_settings.get("hooks") if isinstance(user_settings, dict) else None
    groups = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    gated = any(
        is_memvet_hook(h.get("command"), CLAUDE_CODE, "pre-tool-use")
        for g in (groups if isinstance(groups, list) else [])
        if isinstance(g, dict)
        for h in (g.get("hooks") or [])
        if isinstance(h, dict)
    )
    env = user_settings.get("env") if isinstance(user_settings, dict) else None
    project = Path(resolve_workspace(os.getcwd())) / ".claude"
    enabling = [
        str(p)
        for p in (project / "settings.json", project / "settings.local.json")
        if isinstance(d := load_json(p), dict) and d.get("autoMemoryEnabled") is True
    ]
    return {
        "gate": gated,
        "disabled_by_env": isinstance(env, dict)
        and env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY") == "1",
        "project_enables": enabling,
    }


def codex_facts() -> dict[str, Any]:
    from memvet.install.codex_trust import TRUST_MESSAGE, trust_states
    from memvet.install.host_files import (
        codex_config_path,
        codex_hooks_path,
        codex_rejected_root_keys,
    )

    hooks_doc, config = load_json(codex_hooks_path()), load_toml(codex_config_path())
    hooks = _hooks(hooks_doc, CODEX)
    if isinstance(config, dict):
        hooks = {**_hooks(config, CODEX), **hooks}  # inline [[hooks.*]] tables count too
    features = config.get("features", {}) if isinstance(config, dict) else {}
    disabled = isinstance(features, dict) and (
        features.get("hooks") is False or features.get("codex_hooks") is False
    )
    return {
        "hooks_file": str(codex_hooks_path()),
        "config": str(codex_config_path()),
        "hooks": hooks,
        "hooks_disabled": disabled,
        "rejected_root_keys": codex_rejected_root_keys(hooks_doc),
        "trust": trust_states(hooks_doc, config, str(codex_hooks_path())),
        "mcp": _mcp(config.get("mcp_servers") if isinstance(config, dict) else None),
        "trust_reminder": TRUST_MESSAGE if hooks else None,
    }
