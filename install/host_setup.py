"""What a host's setup module provides (`HostSetup`), and the parts every host's setup shares:
the context hooks and the pair of files (the hooks file, then the MCP registration file).

`memvet setup <host>` (setup_run.py) finds the module by the host's name in store/hosts.py:
`memvet.install.<name with _ for ->`. A new host is a new module implementing this protocol.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from memvet.install import setup_record
from memvet.install.hook_settings import WantedHook, uninstall_hooks
from memvet.install.json_edit import JsonText
from memvet.install.memvet_entries import hook_command
from memvet.install.setup_common import FileEdit, Planned, load_json
from memvet.install.setup_record import SetupRecord

SESSION_START_MATCHER = "startup|resume|clear|compact"
# Seconds. Both hosts wait far longer by default (Claude Code 30 s for prompts, Codex 600 s);
# memvet answers in well under one, and a stuck hook must not hold the session for long.
HOOK_TIMEOUT = 10

Restore = Callable[[JsonText, SetupRecord | None], bool]


@dataclass(frozen=True)
class SetupOptions:
    """fix: move what the host rejects out of its file (codex); native_memory: gate | off |
    leave, the host's own memory feature (claude-code)."""

    fix: bool = False
    native_memory: str = "gate"


class HostSetup(Protocol):
    """Each plan gets the file's text (None: no such file) and its path."""

    HOST: str

    def files(self) -> tuple[Path, Path]:
        """The hooks file, then the MCP registration file."""
        ...

    def add_hooks(self, text: str | None, path: Path, options: SetupOptions) -> Planned: ...

    def add_mcp(self, text: str | None, path: Path) -> Planned: ...

    def remove_hooks(self, text: str | None, path: Path) -> Planned: ...

    def remove_mcp(self, text: str | None, path: Path) -> Planned: ...

    def messages(self, uninstall: bool, files: list[dict[str, Any]]) -> list[str]: ...

    def after_setup(self, options: SetupOptions, edits: list[FileEdit]) -> None: ...


def setup_module(host: str) -> HostSetup:
    module: Any = importlib.import_module(f"memvet.install.{host.replace('-', '_')}")
    return module


def context_hooks(host: str) -> list[WantedHook]:
    """The hooks that hand approved memories to the agent, the same on every host."""
    return [
        WantedHook(
            "SessionStart", SESSION_START_MATCHER, hook_command(host, "session-start"), HOOK_TIMEOUT
        ),
        WantedHook(
            "UserPromptSubmit", None, hook_command(host, "user-prompt-submit"), HOOK_TIMEOUT
        ),
    ]


def edits_for(setup: HostSetup, uninstall: bool, options: SetupOptions) -> list[FileEdit]:
    """The hooks file first (messages read files[0] to tell whether the hooks changed), then the
    MCP file, created private: it may hold other tools' tokens."""
    hooks_file, mcp_file = setup.files()
    if uninstall:
        return [
            FileEdit(hooks_file, lambda text: setup.remove_hooks(text, hooks_file)),
            FileEdit(mcp_file, lambda text: setup.remove_mcp(text, mcp_file)),
        ]
    return [
        FileEdit(hooks_file, lambda text: setup.add_hooks(text, hooks_file, options)),
        FileEdit(mcp_file, lambda text: setup.add_mcp(text, mcp_file), new_mode=0o600),
    ]


def remove_json_hooks(
    text: str | None, path: Path, host: str, restore: Restore | None = None
) -> Planned:
    """Uninstall from a host's JSON hooks file: memvet's hooks out, and what `restore` puts
    back (the host's own settings memvet changed); the file goes when setup created it."""
    if text is None:
        return Planned(None)
    doc = load_json(text, path)
    record = setup_record.lookup(path)
    restored = restore(doc, record) if restore is not None else False
    if not uninstall_hooks(doc, host, record) and not restored:
        return Planned(text)
    return Planned(finished_text(doc, record))


def finished_text(doc: JsonText, record: SetupRecord | None) -> str | None:
    """The new text; None (remove the file) when setup created it and only `{}` is left."""
    if not doc.data and (record is None or record.file):
        return None
    return doc.result()
