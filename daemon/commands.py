"""`memvet daemon run [--once]` and `memvet daemon status [--json]`: the composition root.

Only here is configuration read (config.toml, policy.toml, the environment); everything below
receives it explicitly.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memvet.store import MemvetError, SchemaMismatchError, iso
from memvet.store.console import emit
from memvet.store.paths import config_path, log_dir, memvet_home, run_dir


def pipeline_factory(user: str, store: Any = None) -> Any:
    """The parsing engineer's FilePipeline, with the rules loaded once per process. With a
    store, the learned scorer is the one adapted to the reviewer's decisions (unless
    `learn_from_reviewer` is off)."""
    from memvet.daemon.pipeline import FilePipeline, load_rules

    rules = load_rules()
    learning = None
    if store is not None and rules.policy.learned_scorer and rules.policy.learn_from_reviewer:
        from memvet.daemon.extraction.reviewer import ReviewerLearning

        learning = ReviewerLearning(store)

    def make(host: str, path: str, state: dict[str, Any] | None) -> Any:
        scorer = learning.scorer() if learning is not None else None
        return FilePipeline(host, path, rules=rules, user=user, state=state, scorer=scorer)

    return make


@contextmanager
def stop_on_signals(*events: threading.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set the events: the current batch finishes and commits, then we exit 0."""

    def handler(signum: int, _frame: object) -> None:
        for event in events:
            event.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run(args: argparse.Namespace) -> int:
    from memvet.daemon.admission_policy import load_policy
    from memvet.daemon.lock import InstanceLock
    from memvet.daemon.logging_setup import configure_logging
    from memvet.daemon.progress import BackfillProgress
    from memvet.daemon.roots import all_roots
    from memvet.daemon.service import Daemon, default_context_server
    from memvet.daemon.settings import load_settings
    from memvet.daemon.team_sync import run_team_once, team_sync
    from memvet.store import open_store

    home = memvet_home()
    settings = load_settings(config_path())
    policy = load_policy(home / "policy.toml")
    roots = all_roots(settings.extra_roots)
    lock = InstanceLock(run_dir())
    lock.acquire()
    try:
        configure_logging(log_dir(), level=settings.log_level)
        store = open_store(home, schema="upgrade")  # the daemon is the one that upgrades
        try:
            daemon = Daemon(
                store,
                settings,
                policy,
                roots,
                pipeline_factory=pipeline_factory(store.user, store),
                run_dir=run_dir(),
                context_server=None if args.once else default_context_server,
                progress=BackfillProgress(),
            )
            stop = threading.Event()
            with stop_on_signals(stop, daemon.stop_event):
                if args.once:
                    stats = daemon.run_once()
                    print(_summary(stats.to_json()), file=sys.stderr)
                    run_team_once(store, home)
                else:
                    with team_sync(store, home):  # only when this home is in a team
                        daemon.run_until_stopped(stop)
        finally:
            store.close()
    finally:
        lock.release()
    return 0


def _summary(stats: dict[str, Any]) -> str:
    outcomes = ", ".join(f"{v} {k}" for k, v in sorted(stats["outcomes"].items())) or "none"
    skipped = sum(stats["skipped"].values())
    return (
        f"memvet: read {stats['lines']} lines ({stats['bytes'] / 1e6:.1f} MB); "
        f"candidates: {outcomes}; skipped: {skipped}"
    )


def status(args: argparse.Namespace) -> int:
    doc = collect_status(memvet_home())
    emit(args, doc, lambda: print(_human_status(doc)))
    return 0


def collect_status(home: Path) -> dict[str, Any]:
    from memvet.daemon.lock import running_pid
    from memvet.daemon.roots import all_roots
    from memvet.daemon.service import STATS_FILE
    from memvet.daemon.settings import load_settings
    from memvet.store import open_store

    rd = home / "run"
    pid = running_pid(rd)
    try:
        stats = json.loads((rd / STATS_FILE).read_text())
    except (OSError, ValueError):
        stats = {}
    watched = set(stats.get("watched", [])) if pid else set()
    roots = [
        {"host": r.host, "path": r.path, "exists": os.path.isdir(r.path), "watched": False}
        for r in all_roots(load_settings(home / "config.toml").extra_roots)
    ]
    doc: dict[str, Any] = {
        "running": pid is not None,
        "pid": pid if pid and pid > 0 else None,
        "roots": roots,
        "files_tracked": 0,
        "last_ingest": None,
        "lag_bytes": 0,
        "sweeps": {},
        "mode": stats.get("mode"),
        "stats": stats.get("stats", {}),
        "store": "ok",
        "backfill": stats.get("backfill") if pid else None,
    }
    if not (home / "memvet.db").exists():
        doc["store"] = "not created yet"
        return doc
    try:
        store = open_store(home, schema="never")
    except SchemaMismatchError as exc:
        doc["store"] = exc.message
        return doc
    try:
        for root in roots:  # the stats name watched roots by keyed id only
            root["watched"] = store.log_tag(root["path"]) in watched
        checkpoints = store.all_checkpoints()
        doc["files_tracked"] = len(checkpoints)
        last = max((cp.updated_at for cp in checkpoints if cp.updated_at), default=None)
        doc["last_ingest"] = iso(last)
        doc["lag_bytes"] = sum(_lag(cp.path, cp.inode, cp.offset) for cp in checkpoints)
        doc["sweeps"] = {k: iso(v) for k, v in sorted(store.sweep_runs().items())}
    finally:
        store.close()
    return doc


def _lag(path: str, inode: int, offset: int) -> int:
    """Bytes of a tracked file not read yet (all of it, if it was replaced)."""
    try:
        st = os.stat(path)
    except OSError:
        return 0
    return st.st_size - offset if st.st_ino == inode and st.st_size >= offset else st.st_size


def _human_status(doc: dict[str, Any]) -> str:
    lines = [f"daemon: running (pid {doc['pid']})" if doc["running"] else "daemon: not running"]
    if doc.get("mode"):
        lines.append(f"mode: {doc['mode']}")
    backfill = doc.get("backfill") or {}
    if backfill.get("running"):
        lines.append(
            f"backfill: {backfill['files_done']}/{backfill['files_total']} files, "
            f"{backfill['bytes_done'] / 1e6:.1f}/{backfill['bytes_total'] / 1e6:.1f} MB"
        )
    lines.append("roots:")
    for r in doc["roots"]:
        state = "watched" if r["watched"] else ("present" if r["exists"] else "missing")
        lines.append(f"  {r['host'] or 'any':<12} {r['path']}  ({state})")
    lines += [
        f"store: {doc['store']}",
        f"files tracked: {doc['files_tracked']}",
        f"last ingest: {doc['last_ingest'] or 'never'}",
        f"lag: {doc['lag_bytes']} bytes not read yet",
    ]
    if doc["sweeps"]:
        lines.append("last sweeps:")
        lines += [f"  {job:<26} {at}" for job, at in doc["sweeps"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`python -m memvet.daemon run|status`: what the service units run."""
    from memvet.daemon.cli import add_daemon_commands
    from memvet.store.console import report_error

    parser = argparse.ArgumentParser(prog="python -m memvet.daemon")
    add_daemon_commands(parser.add_subparsers(dest="daemon_command", required=True))
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except MemvetError as exc:
        return report_error(exc, "--json" in argv)
