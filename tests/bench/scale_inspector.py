"""Issue 15's inspector row at 500k pending: approve → next row ready, p95 ≤ 50 ms, on the
big-queue home of bench_scale.py. The real app driven by Pilot with bench_inspector's measuring
code (`approvals`, `first_paint`), in this process: the app's own work on that store, not an
interpreter start, so the development install serves. Median and p95 over N approvals (30).

`bench_scale.py --large` (and its full run) adds the row to its JSON after its other rows. Alone,
it measures the home an earlier run kept in `--homes DIR` (seeded there through `admit_many` when
missing), on a copy brought to the current schema and redaction rules, and replaces only its own
key of scale_large.json (the rest of the file keeps its run's figures, commit and date):

    python tests/bench/bench_scale.py --only inspector --homes DIR [--big-queue N] [--approvals N]
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_inspector import approvals, first_paint, ms, p95  # noqa: E402
from bench_scale import SEED_PENDING, base_env, copy_home  # noqa: E402
from benchlib import OUT_DIR, provenance, write_result  # noqa: E402
from memvet.store import open_store  # noqa: E402
from memvet.store.redaction_sweep import reredact_stored  # noqa: E402

APPROVALS = 30
BUDGET_P95_S = 0.050
USER = "bench"  # bench_scale's homes are seeded under LOGNAME=bench (base_env)
RESULT = OUT_DIR / "scale_large.json"


def row_key(pending: int) -> str:
    return f"inspector_{pending // 1000}k_pending"


def budget(pending: int) -> dict[str, str]:
    return {f"{row_key(pending)}.approve_next_row_ready_p95_ms": f"<= {BUDGET_P95_S * 1000:g} ms"}


def inspector_row(home: Path, pending: int, rounds: int = APPROVALS) -> dict[str, object]:
    """The figures on `home` (its pending candidates approved N times: pass a copy you can
    spend). First paint is the median of three after one warm-up (imports, CSS)."""
    asyncio.run(first_paint(home, USER))
    paint = statistics.median(asyncio.run(first_paint(home, USER)) for _ in range(3))
    ready, confirmed = asyncio.run(approvals(home, rounds, USER))
    load = os.getloadavg()
    return {
        "pending_candidates": pending,
        "approvals_measured": rounds,
        "first_paint_s": round(paint, 3),
        "approve_next_row_ready_median_ms": ms(statistics.median(ready)),
        "approve_next_row_ready_p95_ms": ms(p95(ready)),
        "approve_confirmed_median_ms": ms(statistics.median(confirmed)),
        "approve_confirmed_p95_ms": ms(p95(confirmed)),
        "within_budget": p95(ready) <= BUDGET_P95_S,
        "measured": {
            **provenance(),
            "load_average": f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}",
        },
    }


def current_copy(kept: Path, home: Path) -> None:
    """`kept` copied to `home` and brought to this build's schema and redaction rules (as
    bench_scale's seeded_home does); re-redacted rows are kept for the next run."""
    copy_home(kept, home)
    store = open_store(home, schema="upgrade", user=USER)
    swept = reredact_stored(store, store.now()) is not None
    store.close()
    if swept:
        shutil.rmtree(kept)
        copy_home(home, kept)


def seed(home: Path, workspace: Path, pending: int, tmp: Path) -> None:
    """bench_scale's big queue: `pending` candidates through `Store.admit_many`."""
    (workspace / ".git").mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-c", SEED_PENDING, str(pending), str(workspace), "p"],
        env=base_env(home, tmp),
        check=True,
    )


def write_row(pending: int, row: dict[str, object]) -> None:
    """Only this row's key (and its budget) of the result file; the file made when missing."""
    key = row_key(pending)
    if not RESULT.is_file():
        write_result(RESULT.stem, {key: row}, budgets=budget(pending), notes="inspector row only")
        return
    doc = json.loads(RESULT.read_text())
    doc["figures"][key] = row
    doc.setdefault("budgets", {}).update(budget(pending))
    RESULT.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps({key: row}, indent=2))


def measure_alone(homes: Path, pending: int, rounds: int = APPROVALS) -> None:
    kept = homes / f"home-{pending // 1000}k-pending"
    tmp = Path(tempfile.mkdtemp(prefix="memvet-bench-scale-inspector-"))
    home = tmp / "home"
    try:
        if (kept / "memvet.db").exists():
            current_copy(kept, home)
        else:
            print(f"no {kept}: seeding {pending:,} pending", file=sys.stderr)
            seed(home, homes / "project", pending, tmp)
            homes.mkdir(parents=True, exist_ok=True)
            copy_home(home, kept)
        row = inspector_row(home, pending, rounds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write_row(pending, row)
