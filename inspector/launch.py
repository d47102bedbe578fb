"""Starting things for `memvet inspect` and `memvet up`: the daemon in the background (through
the `memvet` launcher, never by importing it), the store without migrating it, the keymap."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memvet.store.paths import ensure_private_dir, log_dir, memvet_home, run_dir

DAEMON_COMMAND = ("-m", "memvet.install.launcher", "daemon", "run")
START_GRACE = 1.0  # seconds a new daemon must survive to count as started
SCHEMA_WAIT = 5.0  # seconds `up` waits for a daemon it just started to upgrade the store


@dataclass(frozen=True)
class DaemonStart:
    started: bool
    note: str | None = None
    pid: int | None = None


def running_daemon_pid() -> int | None:
    """The running daemon's pid (its flock answers, not the pid file: store/liveness.py)."""
    from memvet.store.liveness import daemon_pid

    return daemon_pid(run_dir())


def ensure_daemon(
    popen: Callable[..., subprocess.Popen] = subprocess.Popen, grace: float = START_GRACE
) -> DaemonStart:
    """Start `memvet daemon run` in its own session unless one is running already."""
    pid = running_daemon_pid()
    if pid is not None:
        return DaemonStart(False, None, pid)
    logs = ensure_private_dir(log_dir())
    out = logs / "daemon.out"
    with open(out, "ab") as log:
        try:
            proc = popen(
                [sys.executable, *DAEMON_COMMAND],
                start_new_session=True,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        except OSError as exc:
            return DaemonStart(
                False,
                f"Could not start the daemon ({exc}). The inspector "
                "works without it; new candidates appear once it runs.",
            )
    try:
        code = proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        return DaemonStart(True, f"Daemon started in the background (pid {proc.pid}).", proc.pid)
    return DaemonStart(
        False,
        f"The daemon did not start (exit {code}; see {out}). The "
        "inspector works without it: review what is queued; new "
        "candidates appear once the daemon runs.",
    )


def load_keymap(path: Path | None = None) -> dict[str, str]:
    """MEMVET_HOME/keymap.toml: `[keys]` binding-id = "key" (see the help screen for ids)."""
    path = path or memvet_home() / "keymap.toml"
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    keys = data.get("keys", {})
    return {str(k): str(v) for k, v in keys.items() if isinstance(v, str)}


def open_for_inspection(wait_for_store: bool = False):  # noqa: ANN201 - Store, imported lazily
    """The store as it is (schema="never"): a daemon `up` just started may still be upgrading
    it, so then a schema mismatch is retried for a few seconds."""
    from memvet.store import SchemaMismatchError, open_store

    deadline = time.monotonic() + (SCHEMA_WAIT if wait_for_store else 0)
    while True:
        try:
            return open_store(schema="never")
        except SchemaMismatchError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.25)


def run_inspector(
    *, theme: str | None = None, note: str | None = None, wait_for_store: bool = False
) -> int:
    from memvet.inspector.app import make_app
    from memvet.store import StoreUnavailableError

    theme = theme or os.environ.get("MEMVET_THEME") or "textual-dark"
    try:
        store = open_for_inspection(wait_for_store)
    except StoreUnavailableError as exc:
        if not sys.stdout.isatty():
            raise  # the CLI prints it with the fix and exits 3
        app = make_app(None, theme=theme, error=exc)
        app.run()
        return app.return_code if app.return_code is not None else exc.exit_code
    try:
        app = make_app(store, theme=theme, keymap=load_keymap(), note=note)
        app.run()
        return app.return_code or 0
    finally:
        store.close()
