"""`memvet status [--json]` and `memvet doctor`: what is wired into each host and whether it runs
this installation, the daemon and its service, the store's key provider and queue, recent hook
failures. Both commands only read; a missing store is reported with how to create one.

`collect()` gathers the facts (the hosts' in status_hosts.py); `checks()` turns them into
ok/warn/fail lines (status_checks.py), each with its fix.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memvet.install.status_hosts import claude_facts, codex_facts
from memvet.store.hosts import CLAUDE_CODE, CODEX, REGISTRY
from memvet.store.liveness import PID_UNKNOWN, daemon_pid, read_pid
from memvet.store.paths import db_path, log_dir, run_dir

QUIET_OUTCOMES = ("context", "empty")  # hook.log outcomes that are not failures
RECENT_HOOK_LINES = 50


def _daemon() -> dict[str, Any]:
    run = run_dir()
    running = daemon_pid(run)  # the daemon's flock, not the pid file: a stale one says nothing
    alive = running is not None
    pid = running if alive and running != PID_UNKNOWN else read_pid(run)
    sock = run / "daemon.sock"
    answering = False
    if sock.exists():
        import socket

        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(0.5)
        try:
            probe.connect(str(sock))
            answering = True
        except OSError:
            pass
        finally:
            probe.close()
    try:  # the daemon's roots by keyed id (daemon/service.py write_stats): never paths
        stats = json.loads((run / "daemon-stats.json").read_text())
        roots, counts = stats.get("roots", []), stats.get("stats", {})
        skipped, by_host = counts.get("skipped", {}), counts.get("unknown_types", {})
    except (OSError, ValueError, AttributeError):
        roots, skipped, by_host = [], {}, {}
    unknown = skipped.get("unknown_type", 0) if isinstance(skipped, dict) else 0
    return {
        "pid": pid,
        "running": alive,
        "context_server": answering,
        "socket": str(sock),
        "roots": roots if isinstance(roots, list) else [],
        "unknown_type_lines": unknown if isinstance(unknown, int) else 0,
        "unknown_types": _by_host_version(by_host),
    }


def _by_host_version(doc: Any) -> dict[str, dict[str, int]]:
    """The daemon's unknown-type line counts, {host: {host version: lines}}, shape-checked."""
    if not isinstance(doc, dict):
        return {}
    return {
        str(host): {str(v): n for v, n in versions.items() if isinstance(n, int)}
        for host, versions in doc.items()
        if isinstance(versions, dict)
    }


def _service() -> dict[str, Any]:
    from memvet.install.service_files import plist_path, unit_path

    path = plist_path() if sys.platform == "darwin" else unit_path()
    return {
        "kind": "launchd" if sys.platform == "darwin" else "systemd",
        "path": str(path),
        "installed": path.exists(),
    }


def _store(integrity: str | None = None) -> dict[str, Any]:
    """integrity: "quick" or "deep" (doctor): also SQLite's check of the file and every row's
    MAC and ciphertexts."""
    path = db_path()
    if not path.exists():
        return {"exists": False, "path": str(path)}
    if integrity is None and (fast := _store_read_only(path)) is not None:
        return fast
    from memvet.store import MemvetError, NoStoreError, iso, open_store

    try:
        store = open_store(schema="never")
        try:
            status = store.status()
            scan = store.integrity_scan(deep=integrity == "deep") if integrity else None
            shell_roots = _shell_root_ids(store)
        finally:
            store.close()
    except NoStoreError:  # an empty file an older memvet left behind
        return {"exists": False, "path": str(path)}
    except MemvetError as exc:
        return {
            "exists": True,
            "path": str(path),
            "available": False,
            "error": {"code": exc.code, "message": exc.message},
        }
    return {
        "exists": True,
        "path": str(path),
        "available": True,
        "schema_version": status.schema_version,
        "key_provider": status.key_provider,
        "queue": status.counts,
        "memories": status.memory_counts,
        "files_tracked": status.files_tracked,
        "last_ingest_at": iso(status.last_ingest_at),
        "sweeps": status.sweeps,
        "shell_roots": shell_roots,
        **({"integrity": scan} if scan is not None else {}),
    }


def _store_read_only(path: Path) -> dict[str, Any] | None:
    """status's store facts through the read layer (sqlite3, no ORM: issue 15); None when it
    cannot serve, and the Store's path then reports why."""
    from memvet.store.read_layer import open_reader

    reader = open_reader()
    if reader is None:
        return None
    try:
        counts, roots = reader.counts(), _shell_root_ids(reader)
    finally:
        reader.close()
    return {"exists": True, "path": str(path), "available": True, **counts, "shell_roots": roots}


def _shell_root_ids(store: Any) -> dict[str, str]:
    """The keyed ids of the transcript roots this shell's CLAUDE_CONFIG_DIR and CODEX_HOME
    resolve to, named as the daemon names its roots (Store.log_tag)."""
    from memvet.store.paths import host_folder

    roots = {name: host_folder(name) / entry.roots[0][0] for name, entry in REGISTRY.items()}
    return {host: store.log_tag(str(path)) for host, path in roots.items()}


def _hook_log() -> dict[str, Any]:
    try:
        lines = (log_dir() / "hook.log").read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return {"last": None, "recent_failures": {}}
    failures: dict[str, int] = {}
    for line in lines[-RECENT_HOOK_LINES:]:
        outcome = next((w[8:] for w in line.split() if w.startswith("outcome=")), "")
        if outcome and outcome not in QUIET_OUTCOMES:
            failures[outcome] = failures.get(outcome, 0) + 1
    return {"last": lines[-1] if lines else None, "recent_failures": failures}


def collect(integrity: str | None = None) -> dict[str, Any]:
    report = {
        "hosts": {CLAUDE_CODE: claude_facts(), CODEX: codex_facts()},
        "daemon": _daemon(),
        "service": _service(),
        "store": _store(integrity),
        "hook": _hook_log(),
    }
    report["checks"] = checks(report)
    report["warnings"] = [c["message"] for c in report["checks"] if c["level"] != "ok"]
    return report


def checks(report: dict[str, Any]) -> list[dict[str, str]]:
    from memvet.install.status_checks import all_checks

    return all_checks(report)


def status_command(args: argparse.Namespace) -> int:
    from memvet.store.console import emit

    report = collect()

    def human() -> None:
        store = report["store"]
        if store.get("available"):
            print(
                f"store      {store['path']} (schema {store['schema_version']}, key: "
                f"{store['key_provider']})"
            )
            print(f"memories   {_counts(store['memories'])}")
            print(f"queue      {_counts(store['queue'])}")
            print(f"last ingest {store['last_ingest_at'] or 'never'}")
        daemon = report["daemon"]
        state = f"running (pid {daemon['pid']})" if daemon["running"] else "not running"
        server = ", context server answering" if daemon["context_server"] else ""
        print(
            f"daemon     {state}{server}; service "
            f"{'installed' if report['service']['installed'] else 'not installed'}"
        )
        for host, facts in report["hosts"].items():
            hooks = ", ".join(sorted(facts["hooks"])) or "no hooks"
            print(f"{host:10} {hooks}; MCP {'wired' if facts['mcp'] else 'not wired'}")
        for check in report["checks"]:
            if check["level"] != "ok":
                print(f"{check['level']}: {check['message']}")

    emit(args, report, human)
    return 1 if _any_failure(report) else 0  # a `fail:` line is never a success


def _any_failure(report: dict[str, Any]) -> bool:
    return any(c["level"] == "fail" for c in report["checks"])


def doctor_command(args: argparse.Namespace) -> int:
    from memvet.store.console import emit

    if getattr(args, "config", False):
        from memvet.install.config_report import config_command

        return config_command(args)
    report = collect("deep" if getattr(args, "deep", False) else "quick")
    failed = _any_failure(report)

    def human() -> None:
        for check in report["checks"]:
            fix = f"\n      fix: {check['fix']}" if check.get("fix") else ""
            print(f"{check['level']:4}  {check['message']}{fix}")

    emit(args, {"checks": report["checks"], "ok": not failed}, human)
    return 1 if failed else 0


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none"
