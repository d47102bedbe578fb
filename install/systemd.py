"""The daemon as a systemd user service (`~/.config/systemd/user/memvet-daemon.service`).

Commands follow Homebrew's `brew services` (aesthetics.md §2.4): write the unit,
`daemon-reload`, `enable --now`; uninstall is `disable --now`, remove, `daemon-reload`.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any

from memvet.install.host_folders import service_env
from memvet.install.service import Commands, Runner, ServiceCommandError, daemon_argv
from memvet.install.service_files import UNIT_NAME, unit_path
from memvet.install.setup_common import atomic_write, read_text

HEADER = "# Written by `memvet service install`; `memvet service uninstall` removes it."
LINGER_HINT = (
    "On a machine without a desktop login (a server, a VM over SSH) the user manager stops at "
    "logout: run `loginctl enable-linger $USER` so the daemon starts at boot and keeps running."
)


def render_unit(argv: list[str], env: dict[str, str]) -> str:
    lines = [
        HEADER,
        "[Unit]",
        "Description=memvet daemon: queues candidate memories from coding-agent transcripts",
        "",
        "[Service]",
        "Type=exec",
        "ExecStart=" + " ".join(_quote(arg, dollar=True) for arg in argv),
        *(f"Environment={_quote(f'{key}={value}', dollar=False)}" for key, value in env.items()),
        "Restart=on-failure",
        "RestartSec=5",
        "",
        "[Install]",
        "WantedBy=default.target",
    ]
    return "\n".join(lines) + "\n"


def _quote(word: str, dollar: bool) -> str:
    """One word for a unit file: `%` is a specifier, `$` expands in ExecStart, spaces split."""
    word = word.replace("%", "%%")
    if dollar:
        word = word.replace("$", "$$")
    if word and not any(c in word for c in " \t\"'\\;"):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lingering(user: str | None = None) -> bool:
    try:
        user = user or getpass.getuser()
    except (KeyError, OSError):
        return False
    return Path("/var/lib/systemd/linger", user).exists()


class Systemd:
    def __init__(self, run: Runner, path: Path | None = None) -> None:
        self.run = run
        self.path = path or unit_path()

    def _systemctl(self, *words: str) -> list[str]:
        return ["systemctl", "--user", *words]

    def install(self) -> dict[str, Any]:
        cmds = Commands(self.run)
        text = render_unit(daemon_argv(), service_env())
        previous = read_text(self.path)
        messages = []
        if previous == text:
            cmds(self._systemctl("enable", "--now", UNIT_NAME))  # make sure it runs
            messages.append(f"Already installed: {self.path}")
        else:
            if not atomic_write(self.path, text, 0o644, expect=previous):
                raise ServiceCommandError(f"{self.path} changed while memvet wrote it; try again")
            try:
                cmds(self._systemctl("daemon-reload"))
                if previous is None:
                    cmds(self._systemctl("enable", "--now", UNIT_NAME))
                else:  # a running daemon keeps its old command line until restarted
                    cmds(self._systemctl("enable", UNIT_NAME))
                    cmds(self._systemctl("restart", UNIT_NAME))
            except ServiceCommandError:
                self._put_back(previous, cmds)
                raise
            messages.append(
                f"{'Updated' if previous else 'Installed'} {self.path}; the daemon is running."
            )
        if not lingering():
            messages.append(LINGER_HINT)
        return self._result(previous != text, cmds, messages)

    def uninstall(self) -> dict[str, Any]:
        cmds = Commands(self.run)
        if not self.path.exists():
            return self._result(False, cmds, ["Not installed: nothing to remove."])
        try:
            cmds(self._systemctl("disable", "--now", UNIT_NAME))
        except ServiceCommandError as exc:
            exc.message += f" (the unit is kept; delete {self.path} by hand if systemd is gone)"
            raise
        self.path.unlink()
        cmds(self._systemctl("daemon-reload"))
        return self._result(True, cmds, [f"Removed {self.path}; the daemon is stopped."])

    def start(self) -> dict[str, Any]:
        return self._simple("start", "The daemon is running.")

    def stop(self) -> dict[str, Any]:
        return self._simple("stop", "The daemon is stopped (it starts again at next login).")

    def status(self) -> dict[str, Any]:
        installed = self.path.exists()
        report = {
            "installed": installed,
            "unit_path": str(self.path),
            "active": None,
            "detail": "not installed",
        }
        if not installed:
            return report
        done = self.run(self._systemctl("is-active", UNIT_NAME))
        state = (done.stdout or "").strip()
        if done.returncode == 0:
            report.update(active=True, detail=state or "active")
        elif state:  # inactive, failed, activating…: systemd answered
            report.update(active=False, detail=state)
        else:
            report["detail"] = (done.stderr or "").strip() or f"systemctl exited {done.returncode}"
        return report

    def _simple(self, verb: str, message: str) -> dict[str, Any]:
        if not self.path.exists():
            raise ServiceCommandError(
                "the service is not installed: run `memvet service install`", code="not_installed"
            )
        cmds = Commands(self.run)
        cmds(self._systemctl(verb, UNIT_NAME))
        return self._result(True, cmds, [message])

    def _put_back(self, previous: str | None, cmds: Commands) -> None:
        """Leave no half-installed unit behind: the old unit again, or none."""
        if previous is None:
            self.path.unlink(missing_ok=True)
        else:
            atomic_write(self.path, previous, 0o644, expect=read_text(self.path))
        cmds(self._systemctl("daemon-reload"), check=False)

    def _result(self, changed: bool, cmds: Commands, messages: list[str]) -> dict[str, Any]:
        return {
            "changed": changed,
            "unit_path": str(self.path),
            "commands": cmds.log,
            "messages": messages,
        }
