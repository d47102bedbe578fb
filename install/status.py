"""`memvet status [--json]` and `memvet doctor`: what is wired into each host and whether it runs
this installation, the daemon and its service, the store's key provider and queue, recent hook
failures. Both commands only read; a missing store is reported with how to create one.

`collect()` gathers the facts; `checks()` turns them into ok/warn/fail lines, each with its fix.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from memvet.store.paths import db_path, log_dir, run_dir

HOOK_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit"}
QUIET_OUTCOMES = ("context", "empty")  # hook.log outcomes that are not failures
RECENT_HOOK_LINES = 50


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"__unreadable__": True}


def _load_toml(path: Path) -> Any:
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
    from memvet.install.setup_common import memvet_argv

    program = _program(argv)
    found = program and (shutil.which(program) if os.sep not in program else program)
    exists = bool(found and os.path.isfile(found) and os.access(found, os.X_OK))
    here = memvet_argv()
    same = exists and os.path.realpath(found) == os.path.realpath(here[0])
    if exists and "memvet.install.launcher" in argv:
        same = os.path.realpath(found) == os.path.realpath(sys.executable)
    pinned = next((w.split("=", 1)[1] for w in argv if w.startswith("MEMVET_HOME=")), None)
    return {"command": program, "exists": exists, "this_installation": bool(same),
            "memvet_home": pinned}


def _hooks(doc: Any, host: str) -> dict[str, Any]:
    from memvet.install.setup_common import is_memvet_hook

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
                        events[slug] = {"command": None, "exists": False,
                                        "this_installation": False, "memvet_home": None}
    return events


def _mcp(servers: Any) -> dict[str, Any] | None:
    from memvet.install.setup_common import looks_like_memvet_command

    for name, entry in (servers.items() if isinstance(servers, dict) else []):
        if not isinstance(entry, dict):
            continue
        args = entry.get("args") if isinstance(entry.get("args"), list) else []
        if looks_like_memvet_command(entry.get("command"), args) and "mcp" in args:
            env = entry.get("env") if isinstance(entry.get("env"), dict) else {}
            facts = _command_facts([str(entry.get("command")), *map(str, args)])
            return {**facts, "name": name, "memvet_home": env.get("MEMVET_HOME")}
    return None


def _claude() -> dict[str, Any]:
    from memvet.install import claude_code

    settings, state = claude_code.settings_path(), claude_code.user_state_path()
    # Only the file Claude Code reads: with CLAUDE_CONFIG_DIR set, ~/.claude.json is ignored.
    doc = _load_json(state)
    mcp = _mcp(doc.get("mcpServers") if isinstance(doc, dict) else None)
    doc = _load_json(settings)
    return {"settings": str(settings), "state": str(state), "hooks": _hooks(doc, "claude-code"), "mcp": mcp,
            "native_memory": _native_memory(doc),
            "unreadable": [str(p) for p, d in ((settings, doc),) if isinstance(d, dict)
                           and d.get("__unreadable__")]}


def _native_memory(user_settings: Any) -> dict[str, Any]:
    """Claude Code's auto memory as this folder's project sees it: memvet's gate hook, the user's
    switch-off variable, and project settings that turn the feature back on."""
    from memvet.install.setup_common import is_memvet_hook
    from memvet.store.workspace import resolve_workspace

    hooks = user_settings.get("hooks") if isinstance(user_settings, dict) else None
    groups = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    gated = any(is_memvet_hook(h.get("command"), "claude-code", "pre-tool-use")
                for g in (groups if isinstance(groups, list) else []) if isinstance(g, dict)
                for h in (g.get("hooks") or []) if isinstance(h, dict))
    env = user_settings.get("env") if isinstance(user_settings, dict) else None
    project = Path(resolve_workspace(os.getcwd())) / ".claude"
    enabling = [str(p) for p in (project / "settings.json", project / "settings.local.json")
                if isinstance(d := _load_json(p), dict) and d.get("autoMemoryEnabled") is True]
    return {"gate": gated, "disabled_by_env": isinstance(env, dict) and
            env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY") == "1", "project_enables": enabling}


def _codex() -> dict[str, Any]:
    from memvet.install import codex
    from memvet.install.codex_trust import trust_states

    hooks_doc, config = _load_json(codex.hooks_path()), _load_toml(codex.config_path())
    hooks = _hooks(hooks_doc, "codex")
    if isinstance(config, dict):
        hooks = {**_hooks(config, "codex"), **hooks}  # inline [[hooks.*]] tables count too
    features = config.get("features", {}) if isinstance(config, dict) else {}
    disabled = isinstance(features, dict) and (features.get("hooks") is False
                                                or features.get("codex_hooks") is False)
    return {"hooks_file": str(codex.hooks_path()), "config": str(codex.config_path()),
            "hooks": hooks, "hooks_disabled": disabled,
            "rejected_root_keys": codex.rejected_root_keys(hooks_doc),
            "trust": trust_states(hooks_doc, config, str(codex.hooks_path())),
            "mcp": _mcp(config.get("mcp_servers") if isinstance(config, dict) else None),
            "trust_reminder": codex.TRUST_MESSAGE if hooks else None}


def _daemon() -> dict[str, Any]:
    run = run_dir()
    try:
        pid: int | None = int((run / "daemon.pid").read_text().strip())
    except (OSError, ValueError):
        pid = None
    alive = False
    if pid:
        try:
            os.kill(pid, 0)
            alive = True
        except PermissionError:
            alive = True  # exists, owned by someone else
        except OSError:
            alive = False
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
        roots, skipped = stats.get("roots", []), stats.get("stats", {}).get("skipped", {})
    except (OSError, ValueError, AttributeError):
        roots, skipped = [], {}
    unknown = skipped.get("unknown_type", 0) if isinstance(skipped, dict) else 0
    return {"pid": pid, "running": alive, "context_server": answering, "socket": str(sock),
            "roots": roots if isinstance(roots, list) else [],
            "unknown_type_lines": unknown if isinstance(unknown, int) else 0}


def _service() -> dict[str, Any]:
    from memvet.install import launchd, systemd

    path = launchd.plist_path() if sys.platform == "darwin" else systemd.unit_path()
    return {"kind": "launchd" if sys.platform == "darwin" else "systemd", "path": str(path),
            "installed": path.exists()}


def _store(integrity: str | None = None) -> dict[str, Any]:
    """integrity: "quick" or "deep" (doctor): also SQLite's check of the file and every row's
    MAC and ciphertexts."""
    from memvet.store import MemvetError, NoStoreError, iso, open_store

    path = db_path()
    if not path.exists():
        return {"exists": False, "path": str(path)}
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
        return {"exists": True, "path": str(path), "available": False,
                "error": {"code": exc.code, "message": exc.message}}
    return {"exists": True, "path": str(path), "available": True,
            "schema_version": status.schema_version, "key_provider": status.key_provider,
            "queue": status.counts, "memories": status.memory_counts,
            "files_tracked": status.files_tracked, "last_ingest_at": iso(status.last_ingest_at),
            "sweeps": status.sweeps, "shell_roots": shell_roots,
            **({"integrity": scan} if scan is not None else {})}


def _shell_root_ids(store: Any) -> dict[str, str]:
    """The keyed ids of the transcript roots this shell's CLAUDE_CONFIG_DIR and CODEX_HOME
    resolve to, the way the daemon names its roots (daemon/ingestor.py file_id)."""
    from memvet.store.paths import claude_config_dir, codex_home

    roots = {"claude-code": claude_config_dir() / "projects", "codex": codex_home() / "sessions"}
    return {host: (store.cipher.blind_index("log", str(path)) or "")[:12]
            for host, path in roots.items()}


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
    report = {"hosts": {"claude-code": _claude(), "codex": _codex()}, "daemon": _daemon(),
              "service": _service(), "store": _store(integrity), "hook": _hook_log()}
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
            print(f"store      {store['path']} (schema {store['schema_version']}, key: "
                  f"{store['key_provider']})")
            print(f"memories   {_counts(store['memories'])}")
            print(f"queue      {_counts(store['queue'])}")
            print(f"last ingest {store['last_ingest_at'] or 'never'}")
        daemon = report["daemon"]
        state = f"running (pid {daemon['pid']})" if daemon["running"] else "not running"
        server = ", context server answering" if daemon["context_server"] else ""
        print(f"daemon     {state}{server}; service "
              f"{'installed' if report['service']['installed'] else 'not installed'}")
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
