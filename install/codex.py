"""`memvet setup codex`: hooks in `$CODEX_HOME/hooks.json`, the MCP server and any `[features]`
switch that keeps hooks off in `$CODEX_HOME/config.toml` (host-formats.md §4.1, §4.3)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from memvet.install import setup_record
from memvet.install.codex_trust import TRUST_MESSAGE
from memvet.install.hook_settings import WantedHook, install_hooks
from memvet.install.host_files import codex_config_path, codex_hooks_path, codex_rejected_root_keys
from memvet.install.host_setup import SetupOptions, context_hooks, remove_json_hooks
from memvet.install.memvet_entries import memvet_argv, pinned_env
from memvet.install.setup_common import ConfigFileError, FileEdit, Planned, load_json
from memvet.store import hosts

HOST = hosts.CODEX
# Codex drops an MCP server that has not answered `initialize` within `startup_timeout_sec`
# (default 10 s). `memvet mcp` needs ≈ 2.5 s on a quiet machine (the SDK's import) and took 14 s
# on a loaded 2-core one; a later answer costs nothing, as Codex does not wait for its servers.
MCP_STARTUP_TIMEOUT_S = 30


def wanted_hooks() -> list[WantedHook]:
    return context_hooks(HOST)


def mcp_entry() -> dict[str, Any]:
    argv = memvet_argv()
    entry: dict[str, Any] = {
        "command": argv[0],
        "args": [*argv[1:], "mcp"],
        "startup_timeout_sec": MCP_STARTUP_TIMEOUT_S,
    }
    if pinned_env():
        entry["env"] = pinned_env()
    return entry


def files() -> tuple[Path, Path]:
    return codex_hooks_path(), codex_config_path()  # config.toml: MCP servers and [features]


def after_setup(options: SetupOptions, edits: list[FileEdit]) -> None:
    """Nothing to do after the files are written: Codex reads them at its next start."""


def messages(uninstall: bool, files: list[dict[str, Any]]) -> list[str]:
    if not any(f["action"] != "unchanged" for f in files):
        return []
    hooks_changed = files[0]["action"] != "unchanged"
    if uninstall:
        return ["memvet's hooks and MCP server are removed from Codex."]
    out = ["Codex loads the hooks and the MCP server in new sessions."]
    if hooks_changed:
        out.append(TRUST_MESSAGE)
    return out


def add_hooks(text: str | None, path: Path, options: SetupOptions) -> Planned:
    """`options.fix`: move root keys Codex rejects out of hooks.json (the backup keeps them)."""
    doc = load_json(text or "{}\n", path)
    extra = codex_rejected_root_keys(doc.data)
    if extra and not options.fix:
        raise ConfigFileError(
            f'{path}: Codex refuses a hooks.json with root keys other than "hooks" and '
            f'"description" and then runs none of its hooks; this one has {", ".join(extra)}. '
            "Remove them, or run `memvet setup codex --fix` to move them out (the backup keeps "
            "them).",
            path=str(path),
        )
    for key in extra:
        doc.remove((key,))
    created = install_hooks(doc, HOST, wanted_hooks(), str(path))
    notes = (
        [
            f"{path}: moved root key(s) {', '.join(extra)} out (Codex rejects them); the "
            "backup beside the file keeps them."
        ]
        if extra
        else []
    )
    return Planned(doc.result(), notes, created)


def add_mcp(text: str | None, path: Path) -> Planned:
    """config.toml: memvet's MCP server, and hooks switched on where a `[features]` switch
    keeps them off (codex_toml.add)."""
    from memvet.install import codex_toml  # tomlkit: only for an edit, never for `status`

    new, notes = codex_toml.add(text or "", path, mcp_entry())
    if _has_inline_hooks(new):
        notes.append(
            f"{path} also defines hooks inline ([hooks]); Codex merges both forms and "
            "warns at start. memvet's live in hooks.json."
        )
    return Planned(new, notes)


def remove_hooks(text: str | None, path: Path) -> Planned:
    return remove_json_hooks(text, path, HOST)


def remove_mcp(text: str | None, path: Path) -> Planned:
    if text is None:
        return Planned(None)
    from memvet.install import codex_toml

    new, notes = codex_toml.remove(text, path)
    record = setup_record.lookup(path)
    if new != text and not new.strip() and (record is None or record.file):
        return Planned(None, notes)  # only memvet's table was left: setup created the file
    return Planned(new, notes)


def _has_inline_hooks(text: str) -> bool:
    hooks = tomllib.loads(text).get("hooks")
    return isinstance(hooks, dict) and any(key != "state" for key in hooks)
