"""`memvet service`: choose the platform's service manager and the command runner, then run
one action. Unit files are rendered by pure functions (systemd.py, launchd.py); every command
goes through an injected `run`, so tests record commands instead of touching the machine.

Test-only switches: MEMVET_SERVICE_PLATFORM=systemd|launchd|none forces the platform;
MEMVET_SERVICE_RUNNER=record:<file.jsonl> appends each command to that file instead of running
it (answering success, or the reply MEMVET_SERVICE_REPLIES=<file.json> gives for it).
"""

from __future__ import annotations

import argparse
import json
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
RUNNER_ENV = "MEMVET_SERVICE_RUNNER"
REPLIES_ENV = "MEMVET_SERVICE_REPLIES"
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


def recording_runner(log: Path, replies: Path | None) -> Runner:
    canned = json.loads(replies.read_text(encoding="utf-8")) if replies else []

    def run(argv: list[str]) -> subprocess.CompletedProcess:
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"argv": argv}) + "\n")
        line = shlex.join(argv)
        for reply in canned:
            if reply["match"] in line:
                return subprocess.CompletedProcess(
                    argv,
                    reply.get("returncode", 0),
                    reply.get("stdout", ""),
                    reply.get("stderr", ""),
                )
        return subprocess.CompletedProcess(argv, 0, "", "")

    return run


def make_runner() -> Runner:
    spec = os.environ.get(RUNNER_ENV, "")
    if not spec:
        return system_runner
    kind, _, target = spec.partition(":")
    if kind != "record" or not target:
        raise UsageError(f"{RUNNER_ENV} must be record:<file>, not {spec!r}")
    replies = os.environ.get(REPLIES_ENV)
    return recording_runner(Path(target), Path(replies) if replies else None)


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
    backend = manager(platform, make_runner())
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
