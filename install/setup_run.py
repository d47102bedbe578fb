"""The `memvet setup {claude-code,codex}` command: plan every file, write (or diff), report."""

from __future__ import annotations

import argparse
from typing import Any

from memvet.install import setup_record
from memvet.install.host_setup import SetupOptions, edits_for, setup_module
from memvet.install.setup_common import apply
from memvet.store import hosts
from memvet.store.console import emit


def run_setup(
    host: str, *, dry_run: bool, uninstall: bool, fix: bool = False, native_memory: str = "gate"
) -> dict[str, Any]:
    module = setup_module(host)
    options = SetupOptions(fix=fix, native_memory=native_memory)
    edits = edits_for(module, uninstall, options)
    files = apply(edits, dry_run)
    if not dry_run:
        setup_record.update(edits, uninstall)
        if not uninstall:
            from memvet.install import host_folders

            host_folders.record(host)  # for `service install` from another shell
            module.after_setup(options, edits)
    changed = any(f["action"] != "unchanged" for f in files)
    notes = list(dict.fromkeys(note for edit in edits for note in edit.notes))
    notes += module.messages(uninstall, files)
    name = hosts.host(host).display
    if not changed:
        notes.insert(
            0,
            f"Nothing to remove: memvet is not wired into {name}."
            if uninstall
            else f"Nothing to change: memvet is already set up for {name}.",
        )
    return {
        "host": host,
        "changed": changed,
        "dry_run": dry_run,
        "uninstall": uninstall,
        "files": files,
        "messages": notes,
    }


def handle(args: argparse.Namespace) -> int:
    report = run_setup(
        args.host,
        dry_run=args.dry_run,
        uninstall=args.uninstall,
        fix=getattr(args, "fix", False),
        native_memory=getattr(args, "native_memory", "gate"),
    )
    emit(args, report, lambda: _print_human(report))
    return 0


def _print_human(report: dict[str, Any]) -> None:
    verb = "uninstall" if report["uninstall"] else "setup"
    print(
        f"memvet {verb} {report['host']}{' (dry run: nothing written)' if report['dry_run'] else ''}"
    )
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
