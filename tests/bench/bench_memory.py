"""Daemon memory while ingesting a large history: RSS of a real `memvet daemon run --once`
sampled as the committed offsets pass 100, 250 and 500 MB. Flat means the last sample is about
the first (ratio ~1): nothing grows with the corpus.

Second phase (issue 15, flat memory): one long-running `memvet daemon run` takes --backfills
new histories of --backfill-mb MB each, one after the other (written into new folders under a
watched root, as a restored backup or a new machine's sync would); RSS is sampled once each is
committed. Budget: last / first <= 1.1.

Run: python tests/bench/bench_memory.py [--mb 520] [--backfills 5] [--backfill-mb 100] [--quick]
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import write_result  # noqa: E402
from corpus import generate  # noqa: E402

MB = 10**6
MARKS = (100, 250, 500)


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


def rss_kib(pid: int) -> tuple[int, int]:
    """(current RSS, peak RSS) in KiB from /proc."""
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                values[line.split(":")[0]] = int(line.split()[1])
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


def repeated_backfills(
    root: Path, env: dict[str, str], memvet: Path, backfills: int, backfill_mb: int
) -> dict[str, object]:
    """RSS of one running daemon after each of `backfills` histories of `backfill_mb` MB."""
    env = dict(
        env,
        MEMVET_HOME=str(root / "rb-home"),
        CLAUDE_CONFIG_DIR=str(root / "rb.claude"),
        CODEX_HOME=str(root / "rb.codex"),
    )
    (root / "rb.claude" / "projects").mkdir(parents=True)
    db = root / "rb-home" / "memvet.db"
    proc = subprocess.Popen(
        [str(memvet), "daemon", "run"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    rss_after: list[float] = []
    try:
        deadline = time.monotonic() + 60
        while not (root / "rb-home" / "run" / "daemon.pid").exists():
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit("the daemon did not start")
            time.sleep(0.1)
        total = 0
        for n in range(backfills):
            staging = root / "rb-staging" / f"b{n}"
            files = generate(
                staging / "claude",
                staging / "codex",
                int(backfill_mb * MB * 1.8),
                seed=20 + n,
                statement_rate=0.03,
                lines_per_session=4000,
            )
            moved = 0  # only the Claude Code sessions, moved into the watched projects folder
            for path in (p for p in files if (staging / "claude") in p.parents):
                if moved >= backfill_mb * MB:
                    break
                dest = root / "rb.claude" / "projects" / f"b{n}-{path.parent.name}" / path.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                path.rename(dest)
                moved += dest.stat().st_size
            total += moved
            deadline = time.monotonic() + 600
            while committed(db) < total:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit(f"backfill {n + 1} did not finish")
                time.sleep(0.2)
            time.sleep(1.0)  # the burst's end (where the heap is trimmed)
            rss_after.append(round(rss_kib(proc.pid)[0] / 1024, 1))
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    ratio = round(rss_after[-1] / rss_after[0], 3)
    return {
        "backfills": backfills,
        "backfill_mb": round(total / backfills / MB, 1),
        "rss_after_each_backfill_mib": rss_after,
        "ratio_rss_last_vs_first_backfill": ratio,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=520)
    parser.add_argument("--backfills", type=int, default=5)
    parser.add_argument("--backfill-mb", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="120 MB, then 5 backfills of 20 MB")
    args = parser.parse_args()
    if args.quick:
        args.mb, args.backfill_mb = 120, 20
    with tempfile.TemporaryDirectory(prefix="memvet-bench-memory-") as tmp:
        root = Path(tmp)
        env = dict(
            os.environ,
            MEMVET_HOME=str(root / "home"),
            HOME=str(root),
            CLAUDE_CONFIG_DIR=str(root / ".claude"),
            CODEX_HOME=str(root / ".codex"),
            MEMVET_KEY_PROVIDER="file",
        )
        files = generate(
            root / ".claude",
            root / ".codex",
            args.mb * MB,
            seed=5,
            statement_rate=0.03,
            lines_per_session=4000,
        )
        total = sum(p.stat().st_size for p in files)
        memvet = Path(sys.executable).parent / "memvet"
        db = root / "home" / "memvet.db"
        samples: dict[str, dict[str, float]] = {}
        start = time.perf_counter()
        proc = subprocess.Popen(
            [str(memvet), "daemon", "run", "--once"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        marks = list(MARKS)
        peak_seen = 0
        try:
            while proc.poll() is None:
                done = committed(db)
                try:
                    rss, hwm = rss_kib(proc.pid)
                except OSError:
                    break
                peak_seen = max(peak_seen, rss)
                while marks and done >= marks[0] * MB:
                    samples[f"{marks[0]}MB"] = {
                        "rss_mib": round(rss / 1024, 1),
                        "peak_mib": round(hwm / 1024, 1),
                        "elapsed_s": round(time.perf_counter() - start, 1),
                    }
                    marks.pop(0)
                time.sleep(0.05)
            stderr = proc.communicate(timeout=60)[1]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        elapsed = time.perf_counter() - start
        reached = [m for m in MARKS if f"{m}MB" in samples]
        if proc.returncode != 0 or not reached or (marks and not args.quick):
            raise SystemExit(f"ingest failed or ended early (marks left {marks}): {stderr[-500:]}")
        repeated = repeated_backfills(root, env, memvet, args.backfills, args.backfill_mb)
    first, last = samples[f"{reached[0]}MB"], samples[f"{reached[-1]}MB"]
    figures = {
        "corpus_mb": round(total / MB, 1),
        "files": len(files),
        "elapsed_s": round(elapsed, 1),
        "throughput_mb_s": round(total / MB / elapsed, 1),
        "samples": samples,
        "ratio_rss_last_vs_first": round(last["rss_mib"] / first["rss_mib"], 3),
        "ratio_peak_last_vs_first": round(last["peak_mib"] / first["peak_mib"], 3),
        "max_rss_sampled_mib": round(peak_seen / 1024, 1),
        **repeated,
    }
    write_result(
        "memory",
        figures,
        budgets={
            "ratio_rss_last_vs_first": "~ 1 (flat)",
            "ratio_rss_last_vs_first_backfill": "<= 1.1",
        },
        notes="Real `memvet daemon run --once` subprocess on a generated corpus "
        "(tests/bench/corpus.py, both hosts). RSS/peak from /proc/<pid>/status, "
        "sampled when the committed checkpoint offsets pass each mark. "
        "*_backfill: one running daemon, RSS after each of several new "
        "histories (Claude Code half of the corpus) is committed.",
    )
    if repeated["ratio_rss_last_vs_first_backfill"] > 1.1:
        raise SystemExit("daemon RSS grew over repeated backfills (budget: last/first <= 1.1)")


if __name__ == "__main__":
    main()
