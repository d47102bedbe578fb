"""The daemon as a launchd agent (`~/Library/LaunchAgents/dev.memvet.daemon.plist`).

Loaded at once with `launchctl bootstrap`, as Homebrew does (aesthetics.md §2.4); writing the
plist alone would start the daemon only at the next login (maestral's defect).
"""

from __future__ import annotations

import os
import plistlib
from pathlib import Path
from typing import Any

from memvet.install.host_folders import service_env
from memvet.install.service import Commands, Runner, ServiceCommandError, daemon_argv
from memvet.install.service_files import LABEL, plist_path
from memvet.install.setup_common import atomic_write, read_text


def logs_dir() -> Path:
    return Path.home() / "Library" / "Logs" / "memvet"


def render_plist(argv: list[str], env: dict[str, str], logs: Path) -> bytes:
    agent: dict[str, Any] = {
        "Label": LABEL,
        "ProgramArguments": list(argv),
        "RunAtLoad": True,
        # Restart after a crash, but not after a clean stop (`memvet service stop`, logout).
        "KeepAlive": {"SuccessfulExit": False},
        "StandardOutPath": str(logs / "daemon.out.log"),
        "StandardErrorPath": str(logs / "daemon.err.log"),
    }
    if env:
        agent["EnvironmentVariables"] = dict(env)
    return plistlib.dumps(agent, sort_keys=False)


def domain(
    uid: int | None = None, env: dict[str, str] | None = None, console_uid: int | None = None
) -> str:
    """`gui/<uid>` normally; `user/<uid>` over SSH when someone else owns the console."""
    uid = os.getuid() if uid is None else uid
    env = dict(os.environ) if env is None else env
    if console_uid is None:
        try:
            console_uid = os.stat("/dev/console").st_uid
        except OSError:
            console_uid = uid
    if env.get("SSH_CONNECTION") and console_uid != uid:
        return f"user/{uid}"
    return f"gui/{uid}"


class Launchd:
    def __init__(self, run: Runner, path: Path | None = None, dom: str | None = None) -> None:
        self.run = run
        self.path = path or plist_path()
        self.domain = dom or domain()
        self.target = f"{self.domain}/{LABEL}"

    def loaded(self) -> bool:
        return self.run(["launchctl", "print", self.target]).returncode == 0

    def install(self) -> dict[str, Any]:
        cmds = Commands(self.run)
        text = render_plist(daemon_argv(), service_env(), logs_dir()).decode("utf-8")
        previous = read_text(self.path)
        loaded = self.loaded()
        if previous == text and loaded:
            return self._result(False, cmds, [f"Already installed and loaded: {self.path}"])
        logs_dir().mkdir(parents=True, exist_ok=True)
        if not atomic_write(self.path, text, 0o644, expect=previous):
            raise ServiceCommandError(f"{self.path} changed while memvet wrote it; try again")
        try:
            if loaded:  # launchd keeps the old definition until the job is booted out
                cmds(["launchctl", "bootout", self.target])
            cmds(["launchctl", "enable", self.target])
            cmds(["launchctl", "bootstrap", self.domain, str(self.path)])
        except ServiceCommandError:
            self._put_back(previous)
            raise
        verb = "Installed" if previous is None else "Reloaded"
        return self._result(
            True, cmds, [f"{verb} {self.path}; the daemon is running.", f"Logs: {logs_dir()}"]
        )

    def uninstall(self) -> dict[str, Any]:
        cmds = Commands(self.run)
        if not self.path.exists():
            return self._result(False, cmds, ["Not installed: nothing to remove."])
        if self.loaded():
            cmds(["launchctl", "bootout", self.target])
        self.path.unlink()
        return self._result(True, cmds, [f"Removed {self.path}; the daemon is stopped."])

    def start(self) -> dict[str, Any]:
        self._require_installed()
        cmds = Commands(self.run)
        if self.loaded():
            cmds(["launchctl", "kickstart", self.target])
        else:
            cmds(["launchctl", "bootstrap", self.domain, str(self.path)])
        return self._result(True, cmds, ["The daemon is running."])

    def stop(self) -> dict[str, Any]:
        self._require_installed()
        cmds = Commands(self.run)
        if not self.loaded():
            return self._result(False, cmds, ["The daemon is not loaded."])
        cmds(["launchctl", "bootout", self.target])
        return self._result(True, cmds, ["The daemon is stopped (it starts again at next login)."])

    def status(self) -> dict[str, Any]:
        installed = self.path.exists()
        report = {
            "installed": installed,
            "unit_path": str(self.path),
            "active": None,
            "detail": "not installed",
        }
        done = self.run(["launchctl", "print", self.target])
        if done.returncode == 0:
            fields = _print_fields(done.stdout or "")
            state = fields.get("state", "unknown")
            detail = f"state = {state}" + (f", pid = {fields['pid']}" if "pid" in fields else "")
            report.update(active=state == "running", detail=detail)
        elif installed:
            report.update(active=False, detail="not loaded")
        return report

    def _require_installed(self) -> None:
        if not self.path.exists():
            raise ServiceCommandError(
                "the service is not installed: run `memvet service install`", code="not_installed"
            )

    def _put_back(self, previous: str | None) -> None:
        if previous is None:
            self.path.unlink(missing_ok=True)
        else:
            atomic_write(self.path, previous, 0o644, expect=read_text(self.path))

    def _result(self, changed: bool, cmds: Commands, messages: list[str]) -> dict[str, Any]:
        return {
            "changed": changed,
            "unit_path": str(self.path),
            "commands": cmds.log,
            "messages": messages,
        }


def _print_fields(text: str) -> dict[str, str]:
    """`state = running` and `pid = 123` from `launchctl print` (top-level lines only)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("\t") and not line.startswith("\t\t") and " = " in line:
            key, _, value = line.strip().partition(" = ")
            fields.setdefault(key, value)
    return fields
