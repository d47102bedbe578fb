"""Append → candidate latency through a real `memvet daemon run`, and the daemon's idle CPU.

A statement line is appended to a watched Claude Code transcript; another connection polls the
store until the new candidate is there. Baseline in the same run: how long a bare watchdog
Observer takes to report the same kind of append (the floor set by the OS).

Second phase (issue 15, live before backfill): a fresh daemon starts on a generated history of
--backfill-mb MB (tests/bench/corpus.py) and the same appends are timed while that first backfill
runs; only appends whose candidate appeared before the backfill finished count. Baseline: the
first phase's p95 in the same run.

Budget (architecture.md, issue 15): p95 <= 1 s, also during a 500 MB backfill; idle CPU ~ 0.
Run: python tests/bench/bench_latency.py [--appends 30] [--backfill-mb 500] [--quick]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import write_result  # noqa: E402
from corpus import generate  # noqa: E402

MB = 10**6

CWD = "/home/dana/src/app"
PSEUDO = str.maketrans("0123456789abcdef", "bcdfghjklmnprstv")


def statement(n: int) -> str:
    """A preference of its own per append, in made-up words: the store merges near-duplicate
    statements, and a merge adds no candidate row for the poll to see."""
    h = hashlib.sha256(str(n).encode()).hexdigest()
    w = [h[i : i + 6].translate(PSEUDO) for i in range(0, 30, 6)]
    return f"Always use {w[0]} {w[1]} to install {w[2]} packages, not {w[3]} {w[4]}."


def user_line(text: str) -> bytes:
    return (
        json.dumps(
            {
                "parentUuid": None,
                "isSidechain": False,
                "userType": "external",
                "cwd": CWD,
                "sessionId": "bench-latency",
                "version": "2.1.38",
                "type": "user",
                "message": {"role": "user", "content": text},
                "uuid": str(uuid.uuid4()),
                "timestamp": "2026-03-01T09:00:00.000Z",
            }
        ).encode()
        + b"\n"
    )


def candidates(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT count(*) FROM candidates").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return -1


def wait(predicate, timeout: float = 30.0, every: float = 0.002) -> float:  # noqa: ANN001
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("no candidate within the timeout")
        time.sleep(every)
    return time.perf_counter() - start


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def watchdog_floor(folder: Path, appends: int) -> list[float]:
    """Seconds from an append to a bare Observer's event for it."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    seen = threading.Event()

    class Handler(FileSystemEventHandler):
        def on_modified(self, event) -> None:  # noqa: ANN001
            seen.set()

    path = folder / "floor.jsonl"
    path.write_bytes(b"")
    observer = Observer()
    observer.schedule(Handler(), str(folder), recursive=True)
    observer.start()
    times = []
    try:
        time.sleep(0.3)
        for n in range(appends):
            seen.clear()
            start = time.perf_counter()
            with path.open("ab") as f:
                f.write(user_line(f"floor {n}"))
            seen.wait(5)
            times.append(time.perf_counter() - start)
            time.sleep(0.05)
    finally:
        observer.stop()
        observer.join()
    return times


def p95(values: list[float]) -> float:
    """Inclusive: the default (exclusive) method extrapolates past the largest sample when there
    are fewer than 20, which reported a p95 above the max."""
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def committed(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return int(
                conn.execute("SELECT coalesce(sum(offset), 0) FROM file_checkpoints").fetchone()[0]
            )
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def read_up_to(db: Path, inode: int) -> int:
    """The committed offset of the file with this inode (paths are stored encrypted)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute(
                'SELECT "offset" FROM file_checkpoints WHERE inode = ?', (inode,)
            ).fetchone()
            return int(row[0]) if row else -1
        finally:
            conn.close()
    except sqlite3.Error:
        return -1


def during_backfill(
    root: Path, env: dict[str, str], memvet: Path, backfill_mb: int, appends: int
) -> dict[str, float]:
    """Appends timed while a fresh daemon's first backfill of `backfill_mb` MB runs: from the
    write until the live file's checkpoint (committed with its candidates) passes the line —
    the candidate count alone would also grow with the backfill's own candidates. An append
    counts when the backfill was still under way as it was written."""
    home = root / "backfill-home"
    env = dict(
        env,
        MEMVET_HOME=str(home),
        CLAUDE_CONFIG_DIR=str(root / "bf.claude"),
        CODEX_HOME=str(root / "bf.codex"),
    )
    files = generate(
        root / "bf.claude",
        root / "bf.codex",
        backfill_mb * MB,
        seed=7,
        statement_rate=0.03,
        lines_per_session=4000,
    )
    history = sum(p.stat().st_size for p in files)
    project = root / "bf.claude" / "projects" / "-home-dana-src-app-live"
    project.mkdir(parents=True)
    transcript = project / "live.jsonl"
    db = home / "memvet.db"
    proc = subprocess.Popen(
        [str(memvet), "daemon", "run"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    latencies: list[float] = []
    try:
        wait(lambda: committed(db) > 0, timeout=120)  # the backfill is under way
        for n in range(appends):
            if committed(db) >= history:
                break  # the backfill finished: later appends would not measure it
            with transcript.open("ab") as f:
                f.write(user_line(statement(1000 + n)))
                size = f.tell()
            inode = transcript.stat().st_ino
            latencies.append(wait(lambda i=inode, s=size: read_up_to(db, i) >= s, timeout=120))
            time.sleep(0.3)
        backfill_left = max(0, history - committed(db))
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if len(latencies) < 2:
        raise SystemExit("the backfill ended before two appends were timed: raise --backfill-mb")
    return {
        "backfill_mb": round(history / MB, 1),
        "backfill_appends": len(latencies),
        "backfill_latency_p50_s": round(statistics.median(latencies), 3),
        "backfill_latency_p95_s": round(p95(latencies), 3),
        "backfill_latency_max_s": round(max(latencies), 3),
        "backfill_mb_left_at_end": round(backfill_left / MB, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--appends", type=int, default=30)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--backfill-mb", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="10 appends, 2 s idle, 60 MB backfill")
    args = parser.parse_args()
    if args.quick:
        args.appends, args.idle, args.backfill_mb = 10, 2.0, 60
    with tempfile.TemporaryDirectory(prefix="memvet-bench-latency-") as tmp:
        root = Path(tmp)
        env = dict(
            os.environ,
            MEMVET_HOME=str(root / "home"),
            HOME=str(root),
            CLAUDE_CONFIG_DIR=str(root / ".claude"),
            CODEX_HOME=str(root / ".codex"),
            MEMVET_KEY_PROVIDER="file",
        )
        project = root / ".claude" / "projects" / "-home-dana-src-app"
        project.mkdir(parents=True)
        transcript = project / "bench-latency.jsonl"
        transcript.write_bytes(user_line("hello"))
        floor = watchdog_floor(project, args.appends)
        memvet = Path(sys.executable).parent / "memvet"
        proc = subprocess.Popen(
            [str(memvet), "daemon", "run"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        db = root / "home" / "memvet.db"
        latencies = []
        try:
            wait(lambda: candidates(db) >= 0 and (root / "home" / "run" / "daemon.pid").exists())
            time.sleep(1.0)  # the start-up scan
            for n in range(args.appends):
                before = candidates(db)
                with transcript.open("ab") as f:
                    f.write(user_line(statement(n)))
                latencies.append(wait(lambda b=before: candidates(db) > b))
                time.sleep(0.3)
            time.sleep(2.0)  # settle, then measure idle
            cpu_before = cpu_seconds(proc.pid)
            time.sleep(args.idle)
            idle_cpu = cpu_seconds(proc.pid) - cpu_before
            proc.send_signal(signal.SIGTERM)
            exit_code = proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        backfill = during_backfill(root, env, memvet, args.backfill_mb, args.appends)
    figures = {
        "appends": args.appends,
        "latency_p50_s": round(statistics.median(latencies), 3),
        "latency_p95_s": round(p95(latencies), 3),
        "latency_max_s": round(max(latencies), 3),
        "watchdog_floor_p95_s": round(p95(floor), 4),
        "ratio_p95_vs_budget_1s": round(p95(latencies) / 1.0, 3),
        "idle_seconds": args.idle,
        "idle_cpu_seconds": round(idle_cpu, 4),
        "idle_cpu_percent": round(100 * idle_cpu / args.idle, 3),
        "sigterm_exit_code": exit_code,
        **backfill,
        "ratio_backfill_p95_vs_idle_p95": round(
            backfill["backfill_latency_p95_s"] / p95(latencies), 2
        ),
    }
    write_result(
        "latency",
        figures,
        budgets={
            "latency_p95_s": "<= 1.0",
            "idle_cpu_percent": "~ 0",
            "backfill_latency_p95_s": "<= 1.0",
        },
        notes="Real `memvet daemon run` subprocess (inotify); latency = append of one "
        "user statement line until `SELECT count(*) FROM candidates` grows, "
        "polled every 2 ms from another connection. Includes the 150 ms debounce "
        "window. Floor = a bare watchdog Observer's event for the same append. "
        "backfill_*: the same appends while a fresh daemon's first backfill of "
        "backfill_mb MB runs (only appends answered before it finished).",
    )


if __name__ == "__main__":
    main()
