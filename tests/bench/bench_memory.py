"""Daemon memory while ingesting a large history: RSS of a real `memvet daemon run --once`
sampled as the committed offsets pass 100, 250 and 500 MB. Flat means the last sample is about
the first (ratio ~1): nothing grows with the corpus.

Run: python tests/bench/bench_memory.py [--mb 520]
"""

from __future__ import annotations

import argparse
import os
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
            return int(conn.execute("SELECT coalesce(sum(offset), 0) FROM file_checkpoints")
                       .fetchone()[0])
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=520)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memvet-bench-memory-") as tmp:
        root = Path(tmp)
        env = dict(os.environ, MEMVET_HOME=str(root / "home"), HOME=str(root),
                   CLAUDE_CONFIG_DIR=str(root / ".claude"), CODEX_HOME=str(root / ".codex"),
                   MEMVET_KEY_PROVIDER="file")
        files = generate(root / ".claude", root / ".codex", args.mb * MB, seed=5,
                         statement_rate=0.03, lines_per_session=4000)
        total = sum(p.stat().st_size for p in files)
        memvet = Path(sys.executable).parent / "memvet"
        db = root / "home" / "memvet.db"
        samples: dict[str, dict[str, float]] = {}
        start = time.perf_counter()
        proc = subprocess.Popen([str(memvet), "daemon", "run", "--once"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
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
                    samples[f"{marks[0]}MB"] = {"rss_mib": round(rss / 1024, 1),
                                                "peak_mib": round(hwm / 1024, 1),
                                                "elapsed_s": round(time.perf_counter() - start, 1)}
                    marks.pop(0)
                time.sleep(0.05)
            stderr = proc.communicate(timeout=60)[1]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        elapsed = time.perf_counter() - start
        if proc.returncode != 0 or marks:
            raise SystemExit(f"ingest failed or ended early (marks left {marks}): {stderr[-500:]}")
    first, last = samples[f"{MARKS[0]}MB"], samples[f"{MARKS[-1]}MB"]
    figures = {
        "corpus_mb": round(total / MB, 1), "files": len(files), "elapsed_s": round(elapsed, 1),
        "throughput_mb_s": round(total / MB / elapsed, 1), "samples": samples,
        "ratio_rss_last_vs_first": round(last["rss_mib"] / first["rss_mib"], 3),
        "ratio_peak_last_vs_first": round(last["peak_mib"] / first["peak_mib"], 3),
        "max_rss_sampled_mib": round(peak_seen / 1024, 1),
    }
    write_result("memory", figures, budgets={"ratio_rss_last_vs_first": "~ 1 (flat)"},
                 notes="Real `memvet daemon run --once` subprocess on a generated corpus "
                       "(tests/bench/corpus.py, both hosts). RSS/peak from /proc/<pid>/status, "
                       "sampled when the committed checkpoint offsets pass each mark.")


if __name__ == "__main__":
    main()
