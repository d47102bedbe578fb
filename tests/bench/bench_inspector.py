"""The inspector with 50,000 pending candidates: first paint (budget ≤ 1.5 s) and approve →
next row ready (budget ≤ 100 ms), driven through Pilot on a real encrypted store.

- First paint: from opening the store (schema="never", as `memvet inspect` does) to the queue
  showing its first page and the first candidate's full detail (evidence loaded). Baseline: the
  same on an empty store, in the same run.
- Approve → next row ready: from the `a` key to the cursor resting on the next row with its
  full detail shown; the store's answer arrives after that. Median and p95 over the approvals.
  Baseline: a bare `store.approve` on the same store. Also reported: `a` → the store confirmed
  and the row left the table (the decision's round trip).

Seeding goes through `Store.admit_many` (admission's gate and checks, AES-GCM, blind indexes,
evidence rows), one transaction per 5,000. Not `ingest`: its near-duplicate pass compares each
draft with the pending candidates that share its words, and these statements share three, so
seeding grew with the square of the queue. `--reuse DIR` keeps the seeded MEMVET_HOME in DIR
and copies it afresh on later runs (`--candidates 500000` for the issue-15 row).

    python tests/bench/bench_inspector.py [--quick] [--candidates 50000] [--reuse DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import write_result  # noqa: E402
from memvet.inspector.app import make_app  # noqa: E402
from memvet.store import CandidateDraft, Evidence, Scope, open_store  # noqa: E402

BATCH = 5000
HOSTS = ("claude-code", "codex")
KINDS = ("preference", "constraint", "decision", "fact", "procedure")


def drafts(user: str, start: int, count: int) -> list[CandidateDraft]:
    out = []
    for i in range(start, start + count):
        # Mostly unique words: statements that shared most words would conflict with the
        # memories approved during the run, and `a` would (rightly) ask supersede-or-keep-both.
        h = hashlib.sha1(str(i).encode()).hexdigest()
        text = f"Ticket {h[:6]} pins {h[6:12]}, {h[12:18]}, {h[18:24]} and {h[24:30]}"
        out.append(
            CandidateDraft(
                statement=text,
                kind=KINDS[i % 5],
                source_type="explicit_user",
                scope=Scope(user, f"/home/bench/src/service-{i % 13}", HOSTS[i % 2], f"s{i % 31}"),
                host=HOSTS[i % 2],
                confidence=0.5 + (i % 50) / 100,
                reasons=("bench",),
                evidence=Evidence(
                    f"/home/bench/.claude/projects/p/s{i % 31}.jsonl",
                    i,
                    f"m{i}",
                    None,
                    f"the user said: {text}",
                    f"s{i % 31}",
                ),
            )
        )
    return out


def seed(home: Path, count: int) -> None:
    store = open_store(home)
    started = time.perf_counter()
    for at in range(0, count, BATCH):
        n = min(BATCH, count - at)
        store.admit_many(drafts(store.user, at, n), actor="bench")
        print(f"\rseeded {at + n:,}/{count:,}", end="", file=sys.stderr, flush=True)
    print(f" in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    store.close()


def prepared_home(count: int, reuse: Path | None) -> Path:
    home = Path(tempfile.mkdtemp(prefix="memvet-bench-inspector-"))
    if reuse is not None and (reuse / f"seeded-{count}").exists():
        shutil.copytree(reuse, home, dirs_exist_ok=True)
        return home
    seed(home, count)
    if reuse is not None:
        shutil.rmtree(reuse, ignore_errors=True)
        shutil.copytree(home, reuse)
        (reuse / f"seeded-{count}").touch()
    return home


async def until(predicate, timeout: float = 30.0) -> None:  # noqa: ANN001
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("the inspector did not get there in time")
        await asyncio.sleep(0.0005)


async def refreshed(screen) -> None:  # noqa: ANN001
    """Until the screen has been rendered with what the state says."""
    done = asyncio.Event()
    screen.call_after_refresh(done.set)
    await done.wait()


def painted(app) -> bool:  # noqa: ANN001
    screen = app.screen
    if getattr(screen, "id", None) != "queue" or screen.reading_page or not screen.is_mounted:
        return False
    key = screen.table.current_key
    if key is None:
        return screen.shown_key is None and screen.exhausted
    return screen.shown_key == key and key in screen.details


async def first_paint(home: Path, user: str | None = None) -> float:
    started = time.perf_counter()
    store = open_store(home, schema="never", user=user)
    app = make_app(store, poll_interval=0.5)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: painted(app))
        await refreshed(app.screen)
        elapsed = time.perf_counter() - started
        await pilot.pause()
    store.close()
    return elapsed


async def approvals(
    home: Path, count: int, user: str | None = None
) -> tuple[list[float], list[float]]:
    """`count` approvals through `a`: seconds to the next row ready, and to the store's answer.
    `user`: whose candidates (a store seeded under another login, as bench_scale's are)."""
    store = open_store(home, schema="never", user=user)
    app = make_app(store, poll_interval=0.5)
    ready, confirmed = [], []
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: painted(app))
        screen = app.screen
        for _ in range(count):
            await app.workers.wait_for_complete()
            await pilot.pause()
            next_row, stored = await approve_once(app, screen)
            ready.append(next_row)
            confirmed.append(stored)
    store.close()
    return ready, confirmed


async def approve_once(app, screen) -> tuple[float, float]:  # noqa: ANN001
    """Press `a` once: seconds until the next row is ready, and until the store confirmed."""
    table = screen.table
    current, following = table.current_key, table.key_at(table.cursor_row + 1)
    await until(lambda: following in screen.details)  # as after a pause to read the row
    started = time.perf_counter()
    app.simulate_key("a")
    # The state is read by this loop, which runs after the frame that shows it.
    await until(lambda: table.current_key == following and painted(app))
    ready = time.perf_counter() - started
    await until(lambda: current not in table.records)
    return ready, time.perf_counter() - started


def bare_approvals(home: Path, count: int) -> list[float]:
    store = open_store(home, schema="never")
    ids = [
        c.id
        for c in store.list_candidates(
            store.reader_for(None, all_scopes=True), limit=count, newest_first=True
        )
    ]
    times = []
    for cid in ids:
        started = time.perf_counter()
        store.approve(cid, actor="bench")
        times.append(time.perf_counter() - started)
    store.close()
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else values[0]


def ms(value: float) -> float:
    return round(value * 1000, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 candidates, 20 approvals")
    parser.add_argument("--candidates", type=int, default=50_000)
    parser.add_argument("--approvals", type=int, default=50)
    parser.add_argument("--reuse", type=Path, help="keep the seeded store here between runs")
    args = parser.parse_args()
    count, rounds = (5_000, 20) if args.quick else (args.candidates, args.approvals)

    home = prepared_home(count, args.reuse)
    empty = Path(tempfile.mkdtemp(prefix="memvet-bench-inspector-empty-"))
    open_store(empty).close()
    try:
        asyncio.run(first_paint(empty))  # warm the imports and the CSS parser
        baseline_paint = statistics.median(asyncio.run(first_paint(empty)) for _ in range(3))
        paint = statistics.median(asyncio.run(first_paint(home)) for _ in range(3))
        ready, confirmed = asyncio.run(approvals(home, rounds))
        bare = bare_approvals(home, rounds)
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(empty, ignore_errors=True)

    figures = {
        "pending_candidates": count,
        "first_paint_s": round(paint, 3),
        "first_paint_empty_store_s": round(baseline_paint, 3),
        "first_paint_vs_empty_store": round(paint / baseline_paint, 2),
        "approve_next_row_ready_median_ms": ms(statistics.median(ready)),
        "approve_next_row_ready_p95_ms": ms(p95(ready)),
        "approve_confirmed_median_ms": ms(statistics.median(confirmed)),
        "approve_confirmed_p95_ms": ms(p95(confirmed)),
        "bare_store_approve_median_ms": ms(statistics.median(bare)),
        "next_row_ready_vs_bare_approve": round(
            statistics.median(ready) / statistics.median(bare), 2
        ),
        "approvals_measured": rounds,
        "within_budget": paint <= 1.5 and p95(ready) <= 0.100,
    }
    write_result(
        "inspector",
        figures,
        budgets={"first_paint_s": "<= 1.5", "approve_next_row_ready_p95_ms": "<= 100"},
        notes=(
            "Pilot, 120x40, real encrypted SQLite store seeded through admit_many; "
            "first paint includes open_store(schema='never'). "
            + ("--quick run. " if args.quick else "")
        ),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
