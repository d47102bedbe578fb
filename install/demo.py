"""`memvet demo [--no-tui] [--keep]`: memvet on a throwaway store and bundled transcripts.

Nothing of the user's is touched: a new temporary folder holds MEMVET_HOME and copies of the demo
transcripts (`memvet.assets/demo`, both host formats) laid out as CLAUDE_CONFIG_DIR and
CODEX_HOME; the key lives in a key file there (`MEMVET_KEY_PROVIDER=file`, no keyring). The
story has two halves:

1. last week's sessions are ingested by the real daemon (`memvet daemon run --once`, a
   subprocess with that environment) and their candidates approved, as the operator did then;
2. this week's sessions are ingested the same way, and the queue now shows what a reviewer
   meets: preferences, a correction that would supersede an approved memory, a statement that
   conflicts with one, a pasted credential that was redacted, and the same rule said in Claude
   Code and in Codex, merged into one candidate with two pieces of evidence.

Then the inspector opens on that store (`memvet inspect`, a subprocess with the same
environment), or with --no-tui the queue is printed. The folder is deleted afterwards unless
--keep is given.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path

from memvet.store import hosts as host_registry
from memvet.store.errors import MemvetError
from memvet.store.redaction import MARKER_PREFIX as REDACTED

LAUNCHER = (sys.executable, "-m", "memvet.install.launcher")
ACTOR = "demo operator"


class DemoError(MemvetError):
    code = "demo_failed"
    exit_code = 1


def demo_env(folder: Path) -> dict[str, str]:
    """Everything memvet reads to find a store, a key and transcripts, pointed into `folder`."""
    return {
        "MEMVET_HOME": str(folder / "memvet-home"),
        **{
            h.folder_variable: str(host_folder(folder, h.name))
            for h in host_registry.REGISTRY.values()
        },
        "MEMVET_KEY_PROVIDER": "file",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }


def host_folder(folder: Path, host: str) -> Path:
    """The demo's stand-in for a host's config folder (CLAUDE_CONFIG_DIR, CODEX_HOME)."""
    return folder / host_registry.host(host).short


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def demo_sessions() -> list[dict[str, str]]:
    index = files("memvet.assets").joinpath("demo", "sessions.json").read_text(encoding="utf-8")
    return json.loads(index)["sessions"]


def place(folder: Path, phase: str) -> int:
    """Copy one half of the story where the hosts would have written it."""
    source = files("memvet.assets").joinpath("demo")
    count = 0
    for s in demo_sessions():
        if s["phase"] != phase:
            continue
        host_dir, rest = s["file"].split("/", 1)
        target = host_folder(folder, host_dir) / rest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.joinpath(*s["file"].split("/")).read_bytes())
        count += 1
    return count


def ingest_once(env: dict[str, str]) -> None:
    """The daemon's own single pass, in a subprocess (install never imports the daemon)."""
    done = subprocess.run(
        [*LAUNCHER, "daemon", "run", "--once"],
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise DemoError(f"the daemon's ingest failed (exit {done.returncode}): {' | '.join(tail)}")


def approve_all(home: Path) -> int:
    """Last week's review: approve what the earlier sessions queued."""
    from memvet.store import QueueFilter, open_store
    from memvet.store.vocabulary import CandidateStatus

    store = open_store(home)
    try:
        pending = store.list_candidates(
            store.reader_for(None, all_scopes=True),
            QueueFilter(statuses=(CandidateStatus.PENDING,)),
            limit=None,
        )
        # One ingest shares a creation time; ids break that tie at random, the text does not.
        for c in sorted(pending, key=lambda c: (c.created_at, c.statement)):
            store.approve(c.id, actor=ACTOR)
        return len(pending)
    finally:
        store.close()


def queue_report(home: Path) -> list[str]:
    """The queue as `memvet queue list` prints it, with what makes each row interesting."""
    from memvet.store import QueueFilter, open_store

    store = open_store(home)
    try:
        reader = store.reader_for(None, all_scopes=True)
        pending = store.list_candidates(reader, QueueFilter(), limit=None)
        active = store.list_memories(reader)
        lines = [
            f"{len(pending)} candidates wait for review; {len(active)} memories approved "
            "last week.",
            "",
        ]
        for c in pending:
            d = store.candidate_detail(c.id)
            where = c.scope.workspace or "(global)"
            lines.append(
                f"{c.id}  {c.kind:10} {c.confidence:.2f} x{c.evidence_count}  "
                f"{c.statement}  [{where}]"
            )
            lines += [f"    {note}" for note in _notes(d)]
        return lines
    finally:
        store.close()


def _notes(detail) -> list[str]:  # noqa: ANN001 - a CandidateDetail
    c, notes = detail.candidate, []
    if c.evidence_count > 1:
        hosts = sorted(
            {"Codex" if "rollout-" in e.path else "Claude Code" for e in detail.evidence}
        )
        notes.append(
            f"duplicate: said in {c.evidence_count} sessions ({' and '.join(hosts)}), "
            "merged into one candidate"
        )
    if detail.supersedes is not None:
        notes.append(
            f'correction: would supersede {detail.supersedes.id} "{detail.supersedes.statement}"'
        )
    for m in detail.conflicts:
        notes.append(f'conflict: disagrees with active {m.id} "{m.statement}"')
    if REDACTED in c.statement or any(REDACTED in e.excerpt for e in detail.evidence):
        notes.append("secret: a pasted credential was redacted before it reached the store")
    return notes


@contextmanager
def cleanup_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP (a closed terminal) unwind like Ctrl-C, so the folder is removed."""

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run(args: argparse.Namespace) -> int:
    with cleanup_on_signals():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="memvet-demo-"))
    env = demo_env(folder)
    home = Path(env["MEMVET_HOME"])
    try:
        with environment(env):
            place(folder, "earlier")
            ingest_once(env)
            approved = approve_all(home)
            place(folder, "later")
            ingest_once(env)
            report = queue_report(home)
        tui = not args.no_tui and sys.stdin.isatty() and sys.stdout.isatty()
        print(f"memvet demo: a throwaway store in {folder}")
        print(
            f"Last week's sessions were ingested and {approved} memories approved; this "
            "week's sessions are now in the review queue.\n"
        )
        if tui:
            code = subprocess.call([*LAUNCHER, "inspect"], env={**os.environ, **env})
        else:
            print("\n".join(report))
            if not args.no_tui:
                print("\n(no terminal: printed the queue instead of opening the inspector)")
            code = 0
        if args.keep:
            exports = " ".join(f"{k}={v}" for k, v in env.items() if k != "PYTHON_KEYRING_BACKEND")
            print(
                f"\nKept. Explore it (no daemon is left running) with:\n  {exports} memvet inspect"
            )
        return code
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
