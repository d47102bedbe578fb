"""Shared by every benchmark: one JSON file per benchmark under docs/benchmarks/ with the command,
commit, version, machine summary, date, and the figures (ratios against in-run baselines)."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / "docs" / "benchmarks"
SHARED = ROOT.parent / "shared"


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            text=True,
            capture_output=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> dict[str, Any]:
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        mem = None
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "memory_gib": round(mem / 2**30, 1) if mem else None,
    }


def provenance() -> dict[str, str]:
    """What ran, at which commit, when: the header of every result (and of a figure measured
    apart from the rest of its file)."""
    return {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "commit": _commit(),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def write_result(
    name: str, figures: dict[str, Any], *, budgets: dict[str, str] | None = None, notes: str = ""
) -> Path:
    from importlib.metadata import version

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    ran = provenance()
    doc = {
        "benchmark": name,
        "command": ran["command"],
        "commit": ran["commit"],
        "version": version("memvet"),
        "machine": machine(),
        "date": ran["date"],
        "figures": figures,
        "budgets": budgets or {},
        "notes": notes,
    }
    path = OUT_DIR / f"{name}.json"
    path.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")
    print(json.dumps({"benchmark": name, "figures": figures}, indent=2))
    return path


def median_seconds(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
