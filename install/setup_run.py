"""The `memvet setup {claude-code,codex}` command: plan every file, write (or diff), report."""

from __future__ import annotations

import argparse
from typing import Any

from memvet.install import setup_record
from memvet.install.setup_common import apply
from memvet.store.console import emit

HOST_NAMES = {"claude-code": "Claude Code", "codex": "Codex"}


def run_setup(host: str, *, dry_run: bool, uninstall: bool, fix: bool = False,
              native_memory: str = "gate") -> dict[str, Any]:
    if host == "claude-code":
        from memvet.install import claude_code as module
    else:
        from memvet.install import codex as module
    edits = module.edits(uninstall, fix) if host == "codex" else module.edits(uninstall, native_memory)
    files = apply(edits, dry_run)
    if not dry_run:
        setup_record.update(edits, uninstall)
        if not uninstall:
            from memvet.install import host_folders

            host_folders.record(host)  # for `service install` from another shell
            if host == "claude-code" and native_memory == "gate":
                from memvet.install.native_memory_setup import import_existing
                from memvet.store.paths import claude_config_dir

                imported = import_existing(claude_config_dir())
                if imported:
                    edits[0].notes.append(f"{imported} memory file(s) Claude Code had written "
                                          "are in memvet's review queue (`memvet queue list`).")
    changed = any(f["action"] != "unchanged" for f in files)
    notes = list(dict.fromkeys(note for edit in edits for note in edit.notes))
    if host == "codex":
        hooks_changed = files[0]["action"] != "unchanged"
        notes += module.messages(uninstall, changed, hooks_changed)
    else:
        notes += module.messages(uninstall, changed)
    name = HOST_NAMES[host]
    if not changed:
        notes.insert(0, f"Nothing to remove: memvet is not wired into {name}." if uninstall
                     else f"Nothing to change: memvet is already set up for {name}.")
    return {"host": host, "changed": changed, "dry_run": dry_run, "uninstall": uninstall,
            "files": files, "messages": notes}


def handle(args: argparse.Namespace) -> int:
    report = run_setup(args.host, dry_run=args.dry_run, uninstall=args.uninstall,
                       fix=getattr(args, "fix", False),
                       native_memory=getattr(args, "native_memory", "gate"))
    emit(args, report, lambda: _print_human(report))
    return 0


def _print_human(report: dict[str, Any]) -> None:
    verb = "uninstall" if report["uninstall"] else "setup"
    print(f"memvet {verb} {report['host']}{' (dry run: nothing written)' if report['dry_run'] else ''}")
    for entry in report["files"]:
        line = f"  {entry['action']:<9} {entry['path']}"
        if entry.get("backup"):
            line += f"\n            backup: {entry['backup']}"
        print(line)
    if report["dry_run"]:
        for entry in report["files"]:
            if entry.get("diff"):
                print()
                print(entry["diff"], end="")
    for message in report["messages"]:
        print(f"\n{message}" if message == report["messages"][0] else message)
