"""`memvet doctor`'s judgement over status.collect()'s facts: one ok/warn/fail line per check,
each non-ok one with the command that fixes it. A `fail` means something memvet set up is
broken (a hook that runs a missing program, an unreadable store); a `warn` is a choice or a
degraded mode (no daemon: hooks read the store directly)."""

from __future__ import annotations

from typing import Any

from memvet.store.hosts import CLAUDE_CODE, CODEX, REGISTRY, names

SETUP = {name: f"memvet setup {name}" for name in names()}


def _check(name: str, level: str, message: str, fix: str = "") -> dict[str, str]:
    return {"name": name, "level": level, "message": message, "fix": fix}


def store_checks(store: dict[str, Any]) -> list[dict[str, str]]:
    if not store["exists"]:
        return [
            _check(
                "store",
                "warn",
                f"no store yet at {store['path']}",
                'the first command that needs one creates it: `memvet propose "…"`, '
                "`memvet demo`, or start the daemon with `memvet up`",
            )
        ]
    if not store["available"]:
        error = store["error"]
        return [
            _check(
                "store",
                "fail",
                f"the store cannot be opened ({error['code']}): {error['message']}",
                "see the message; `memvet key status` names the key provider",
            )
        ]
    out = [_check("store", "ok", f"store {store['path']} (schema {store['schema_version']})")]
    if "integrity" in store:
        out.extend(integrity_checks(store["integrity"]))
    if store["key_provider"] == "file":
        out.append(
            _check(
                "key",
                "warn",
                "the store's key is in a file (no usable OS keyring): "
                "anyone who can read your files can read the store",
                "keep MEMVET_HOME out of shared backups, or use a desktop keyring for new stores",
            )
        )
    else:
        out.append(_check("key", "ok", f"key held by the {store['key_provider']} provider"))
    stale = store["queue"].get("stale", 0)
    if stale:
        out.append(
            _check(
                "queue",
                "warn",
                f"{stale} stale approval reservation(s)",
                "settle each with `memvet queue recover ID --commit|--release|--reject`",
            )
        )
    else:
        out.append(
            _check("queue", "ok", f"{store['queue'].get('pending', 0)} pending candidate(s)")
        )
    return out


def integrity_checks(scan: dict[str, Any]) -> list[dict[str, str]]:
    """doctor's look at the file (SQLite's check) and at every record's authentication."""
    out = []
    if scan["sqlite"]:
        out.append(
            _check(
                "store.file",
                "fail",
                f"the database file is damaged (SQLite: {'; '.join(scan['sqlite'])[:200]})",
                "restore memvet.db from a "
                "backup (the key still opens it), or move it aside and run `memvet up`",
            )
        )
    else:
        out.append(_check("store.file", "ok", "the database file passed SQLite's check"))
    bad = scan["unreadable"]
    if bad["count"]:
        shown = ", ".join(bad["ids"][:10]) + (" …" if bad["count"] > 10 else "")
        out.append(
            _check(
                "store.records",
                "fail",
                f"{bad['count']} record(s) failed "
                f"authentication and are left out everywhere: {shown}",
                "`memvet audit verify` names the change; `memvet memories "
                "false-write ID` retires a memory for good, or restore memvet.db from "
                "a backup",
            )
        )
    else:
        out.append(_check("store.records", "ok", "every record passed authentication"))
    return out


def _wiring(host: str, what: str, facts: dict[str, Any] | None, home: str | None) -> dict[str, str]:
    name = f"{host}.{what}"
    if facts is None:
        return _check(name, "warn", f"{host}: {what} not wired", f"`{SETUP[host]}`")
    if not facts["exists"]:
        return _check(
            name,
            "fail",
            f"{host}: {what} runs {facts['command']}, which does not exist",
            f"rerun `{SETUP[host]}` from this installation",
        )
    if not facts["this_installation"]:
        return _check(
            name,
            "warn",
            f"{host}: {what} runs another memvet ({facts['command']})",
            f"rerun `{SETUP[host]}` to point it at this one",
        )
    if facts.get("memvet_home") and home and facts["memvet_home"] != home:
        return _check(
            name,
            "warn",
            f"{host}: {what} uses another MEMVET_HOME ({facts['memvet_home']})",
            f"rerun `{SETUP[host]}` with MEMVET_HOME set as you want it",
        )
    return _check(name, "ok", f"{host}: {what} wired to this installation")


def host_checks(hosts: dict[str, Any], home: str | None) -> list[dict[str, str]]:
    out = []
    for host, facts in hosts.items():
        for event in ("session-start", "user-prompt-submit"):
            out.append(_wiring(host, f"hook {event}", facts["hooks"].get(event), home))
        out.append(_wiring(host, "MCP server", facts["mcp"], home))
    out.append(_native_memory_check(hosts[CLAUDE_CODE].get("native_memory") or {}))
    codex = hosts[CODEX]
    if codex["hooks"] and codex["hooks_disabled"]:
        out.append(
            _check(
                "codex.features",
                "fail",
                f"codex: hooks are switched off in {codex['config']} ([features] hooks = false)",
                f"`{SETUP[CODEX]}`",
            )
        )
    if codex.get("rejected_root_keys"):
        out.append(
            _check(
                "codex.hooks_file",
                "fail",
                f"codex: {codex['hooks_file']} has root "
                f"key(s) {', '.join(codex['rejected_root_keys'])}: Codex refuses the "
                "file and runs none of its hooks",
                f"`{SETUP[CODEX]} --fix` moves them out (the backup keeps them)",
            )
        )
    if codex["trust_reminder"]:
        out.append(_trust_check(codex))
    return out


def _native_memory_check(facts: dict[str, Any]) -> dict[str, str]:
    """A project's checked-in `autoMemoryEnabled: true` overrides the user's false: without the
    gate or the switch-off variable, Claude Code writes memories nobody reviewed."""
    name = "claude-code.native_memory"
    if facts.get("gate"):
        return _check(name, "ok", "claude-code: auto memory writes go through memvet's review")
    if facts.get("disabled_by_env"):
        return _check(
            name, "ok", "claude-code: auto memory is off (CLAUDE_CODE_DISABLE_AUTO_MEMORY)"
        )
    if facts.get("project_enables"):
        return _check(
            name,
            "warn",
            "claude-code: this project's settings turn auto memory on "
            f"(autoMemoryEnabled: true in {', '.join(facts['project_enables'])}): it "
            "writes memories nobody reviewed",
            f"`{SETUP[CLAUDE_CODE]} --native-memory gate` (or `off`)",
        )
    return _check(name, "ok", "claude-code: auto memory left as the host has it")


def _trust_check(codex: dict[str, Any]) -> dict[str, str]:
    """Codex skips an untrusted hook without a word (`codex exec` too)."""
    states = codex.get("trust") or {}
    listed = ", ".join(f"{slug} {state}" for slug, state in sorted(states.items()))
    if states and all(state == "trusted" for state in states.values()):
        return _check("codex.trust", "ok", f"codex: memvet's hooks are trusted ({listed})")
    detail = listed or "memvet's hooks are not in hooks.json (their trust records are unknown)"
    return _check(
        "codex.trust",
        "warn",
        f"codex: hooks run only once trusted: {detail}",
        codex["trust_reminder"],
    )


def daemon_checks(daemon: dict[str, Any], service: dict[str, Any]) -> list[dict[str, str]]:
    out = []
    if daemon["running"]:
        server = "answering hooks" if daemon["context_server"] else "not answering hooks"
        out.append(
            _check(
                "daemon",
                "ok" if daemon["context_server"] else "warn",
                f"daemon running (pid {daemon['pid']}), context server {server}",
                ""
                if daemon["context_server"]
                else "restart the daemon (`memvet service stop` then `start`)",
            )
        )
    else:
        stale = f" (stale pid file: {daemon['pid']})" if daemon["pid"] else ""
        out.append(
            _check(
                "daemon",
                "warn",
                f"daemon not running{stale}: nothing new is "
                "ingested and hooks read the store directly (slower)",
                "`memvet service start`, or `memvet up`",
            )
        )
    if service["installed"]:
        out.append(_check("service", "ok", f"{service['kind']} service at {service['path']}"))
    else:
        out.append(
            _check(
                "service",
                "warn",
                f"no {service['kind']} service: the daemon does not start at login",
                "`memvet service install`",
            )
        )
    return out


def watched_root_checks(daemon: dict[str, Any], store: dict[str, Any]) -> list[dict[str, str]]:
    """Does the running daemon watch the folders this shell's hosts write to? A service started
    without CLAUDE_CONFIG_DIR/CODEX_HOME watches the default places and ingests nothing."""
    out = []
    if daemon["running"] and daemon.get("unknown_type_lines"):
        where = "; ".join(
            f"{host} {version}: {n}"
            for host, versions in sorted((daemon.get("unknown_types") or {}).items())
            for version, n in sorted(versions.items())
        )
        out.append(
            _check(
                "daemon.line_types",
                "warn",
                f"the daemon skipped "
                f"{daemon['unknown_type_lines']} transcript line(s) of a type it does "
                "not know" + (f" ({where})" if where else "") + ": a host may have "
                "changed its format",
                "compare `claude "
                "--version` / `codex --version` with the versions docs/host-"
                "integration.md lists as tested, and update memvet",
            )
        )
    shell = store.get("shell_roots") or {}
    if not (daemon["running"] and daemon.get("roots") and shell):
        return out
    for host, wanted in shell.items():
        ids = {
            r.get("id") for r in daemon["roots"] if isinstance(r, dict) and r.get("host") == host
        }
        name, variable = f"daemon.roots {host}", REGISTRY[host].folder_variable
        if wanted in ids:
            out.append(_check(name, "ok", f"the daemon watches {host}'s transcripts"))
        else:
            out.append(
                _check(
                    name,
                    "fail",
                    f"the running daemon watches other {host} folders "
                    f"than this shell's ({variable} differs): it ingests nothing "
                    f"from {host}",
                    f"rerun `memvet service install` from a shell with "
                    f"{variable} set as your {host} uses it (it pins the folder), or "
                    "restart `memvet daemon run` from this shell",
                )
            )
    return out


def hook_checks(hook: dict[str, Any]) -> list[dict[str, str]]:
    failures = {k: n for k, n in hook["recent_failures"].items() if k != "no_store"}
    if not failures:
        return [_check("hook.log", "ok", "no recent hook failures")]
    listed = ", ".join(f"{code} ×{n}" for code, n in sorted(failures.items()))
    return [
        _check(
            "hook.log",
            "warn",
            f"recent hook runs gave no context: {listed}",
            "see MEMVET_HOME/logs/hook.log; key_* codes: `memvet key status`",
        )
    ]


def all_checks(report: dict[str, Any]) -> list[dict[str, str]]:
    import os

    home = os.environ.get("MEMVET_HOME")
    home = os.path.abspath(os.path.expanduser(home)) if home else None
    return [
        *store_checks(report["store"]),
        *host_checks(report["hosts"], home),
        *daemon_checks(report["daemon"], report["service"]),
        *watched_root_checks(report["daemon"], report["store"]),
        *hook_checks(report["hook"]),
    ]
