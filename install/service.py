"""`memvet service`: choose the platform's service manager, then run one action. Unit files
are rendered by pure functions (systemd.py, launchd.py); every command goes through one `run`
(`system_runner`), which the managers take as an argument.

MEMVET_SERVICE_PLATFORM=systemd|launchd|none forces the platform (tests; a machine whose
detection is wrong). Tests answer `systemctl`/`launchctl` with a stand-in first on PATH
(tests/stubs/service_manager.py), so nothing here knows about them.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memvet.store.console import emit
from memvet.store.errors import MemvetError, UsageError

Runner = Callable[[list[str]], subprocess.CompletedProcess]
PLATFORM_ENV = "MEMVET_SERVICE_PLATFORM"
NO_MANAGER = (
    "no systemd user instance or launchd here: run `memvet daemon run` under "
    "your own supervisor instead"
)


class ServiceCommandError(MemvetError):
    code = "service_command_failed"
    exit_code = 1


class Commands:
    """Runs commands through the injected runner, keeps the list, and fails loudly."""

    def __init__(self, run: Runner) -> None:
        self.run = run
        self.log: list[list[str]] = []

    def __call__(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
        self.log.append(argv)
        done = self.run(argv)
        if check and done.returncode != 0:
            why = (done.stderr or done.stdout or "").strip() or "no output"
            raise ServiceCommandError(
                f"`{shlex.join(argv)}` failed (exit {done.returncode}): {why}",
                command=shlex.join(argv),
                returncode=done.returncode,
                stderr=(done.stderr or "").strip(),
            )
        return done


def daemon_argv() -> list[str]:
    """What the service runs: this interpreter, absolute, so no PATH or shell is involved."""
    return [os.path.abspath(sys.executable), "-m", "memvet.install.launcher", "daemon", "run"]


def detect_platform() -> str:
    forced = os.environ.get(PLATFORM_ENV)
    if forced:
        if forced not in ("systemd", "launchd", "none"):
            raise UsageError(f"{PLATFORM_ENV} must be systemd, launchd or none, not {forced!r}")
        return forced
    if sys.platform == "darwin":
        return "launchd"
    # sd_booted(): systemd is PID 1 exactly when this folder exists.
    if Path("/run/systemd/system").is_dir() and shutil.which("systemctl"):
        return "systemd"
    return "none"


def system_runner(argv: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except FileNotFoundError:
        return subprocess.CompletedProcess(argv, 127, "", f"{argv[0]}: command not found")
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, "", f"{argv[0]}: no answer in 60 s")


def manager(platform: str, run: Runner) -> Any:
    if platform == "systemd":
        from memvet.install.systemd import Systemd

        return Systemd(run)
    if platform == "launchd":
        from memvet.install.launchd import Launchd

        return Launchd(run)
    return None


def handle(args: argparse.Namespace) -> int:
    platform = detect_platform()
    backend = manager(platform, system_runner)
    if args.action == "status":
        report = {
            "platform": platform,
            "installed": False,
            "unit_path": None,
            "active": None,
            "detail": NO_MANAGER,
        }
        if backend is not None:
            report = {"platform": platform, **backend.status()}
        emit(args, report, lambda: _print_status(report))
        return 0
    if backend is None:
        raise MemvetError(NO_MANAGER, code="no_service_manager")
    result = getattr(backend, args.action)()
    report = {"platform": platform, "action": args.action, **result}
    emit(args, report, lambda: _print_result(report))
    return 0


def _print_status(report: dict[str, Any]) -> None:
    state = {True: "running", False: "not running", None: "unknown"}[report["active"]]
    where = report["unit_path"] or "-"
    print(
        f"service ({report['platform']}): {'installed' if report['installed'] else 'not installed'}, {state}"
    )
    print(f"  unit:   {where}")
    print(f"  detail: {report['detail']}")


def _print_result(report: dict[str, Any]) -> None:
    for argv in report["commands"]:
        print(f"  $ {shlex.join(argv)}")
    for message in report["messages"]:
        print(message)
