"""Lifecycle sweeps: plain idempotent functions `sweep_<what>(store, now) -> SweepResult`.

They take the time from the caller (tests pass a fake clock) and hold no state, so the
scheduler, `daemon run --once` and the tests all call the same code. `run_sweep` records the last
successful run of each in the store (`memvet daemon status` shows them).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from memvet.daemon.logging_setup import describe
from memvet.daemon.settings import DaemonSettings
from memvet.store import Store

log = logging.getLogger("memvet.daemon")

Sweep = Callable[[Store, datetime], "SweepResult"]
RESCAN = "sweep.rescan"


@dataclass(frozen=True)
class SweepResult:
    changed: int = 0
    ok: bool = True
    detail: str = ""

    def summary(self) -> str:
        return self.detail or f"changed {self.changed}"


def sweep_stale_leases(store: Store, now: datetime) -> SweepResult:
    """Leases past their time become stale; an operator settles them (never retried)."""
    return SweepResult(store.mark_stale_leases(now))


def sweep_expire_candidates(
    store: Store, now: datetime, *, max_age: timedelta = timedelta(days=30)
) -> SweepResult:
    return SweepResult(store.expire_candidates(now, max_age))


def sweep_retire_memories(store: Store, now: datetime) -> SweepResult:
    """Memories past their validity or TTL are retired (history stays readable)."""
    return SweepResult(store.retire_due_memories(now))


def sweep_decay_confidence(
    store: Store, now: datetime, *, half_life: timedelta = timedelta(days=90)
) -> SweepResult:
    """Only model-inferred memories decay; the store leaves approved statements alone."""
    return SweepResult(store.decay_confidence(now, half_life))


def sweep_verify_audit(store: Store, now: datetime) -> SweepResult:
    """Walk the hash chain. A broken chain is reported loudly and left as it is: repairing it
    would destroy the evidence of tampering."""
    report = store.verify_audit()
    if report.ok:
        return SweepResult(0, detail=f"{report.events} events verified")
    log.critical(
        "AUDIT CHAIN BROKEN at event %s: %s; nothing was changed. Run `memvet audit "
        "verify` and investigate.",
        report.first_bad_seq,
        report.problem,
    )
    return SweepResult(0, ok=False, detail=f"broken at {report.first_bad_seq}")


def sweep_optimize_store(store: Store, now: datetime) -> SweepResult:
    """Keep the planner's statistics fresh: without them a 50k-row queue page sorts the whole
    table instead of walking an index."""
    store.optimize()
    return SweepResult(0, detail="statistics refreshed")


def sweep_review_flags(store: Store, now: datetime) -> SweepResult:
    """Memories due for a "still true?" look (store/review.py derives the flags when read, so
    they are never stale; this counts them for the log and `daemon status`, ids only)."""
    due = store.review_due(store.reader_for(None, all_scopes=True))
    return SweepResult(0, detail=f"{len(due)} memories due for review")


def sweep_reredact(store: Store, now: datetime) -> SweepResult:
    """Stored text redacted again when the redaction rule set changed (store/redaction_sweep.py);
    audited, counts only. Cheap when nothing changed: one store_meta lookup."""
    from memvet.store.redaction_sweep import reredact_stored

    counts = reredact_stored(store, now)
    if counts is None:
        return SweepResult(0, detail="rule set unchanged")
    return SweepResult(
        sum(v for k, v in counts.items() if not k.endswith("_unreadable")),
        detail=", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "nothing changed",
    )


def sweep_reindex_terms(store: Store, now: datetime) -> SweepResult:
    """Every memory re-indexed when the vocabulary that shapes recall's index terms changed
    (store/term_reindex.py, in slices); audited, counts only. Cheap when nothing changed: one
    store_meta lookup."""
    from memvet.store.term_reindex import reindex_for_vocabulary

    done = reindex_for_vocabulary(store)
    if done is None:
        return SweepResult(0, detail="vocabulary unchanged")
    return SweepResult(done, detail=f"memories re-indexed {done}")


def sweep_rescan(store: Store, now: datetime, *, scan: Callable[[], int]) -> SweepResult:
    """Walk every root for anything a file event missed; `scan` returns files with new data."""
    return SweepResult(scan())


def store_sweeps(settings: DaemonSettings) -> dict[str, Sweep]:
    """The sweeps that only need the store, with their settings bound, by job id."""
    return {
        "sweep.stale_leases": sweep_stale_leases,
        "sweep.expire_candidates": partial(
            sweep_expire_candidates, max_age=timedelta(days=settings.candidate_max_age_days)
        ),
        "sweep.retire_memories": sweep_retire_memories,
        "sweep.decay_confidence": partial(
            sweep_decay_confidence, half_life=timedelta(days=settings.decay_half_life_days)
        ),
        "sweep.verify_audit": sweep_verify_audit,
        "sweep.optimize_store": sweep_optimize_store,
        "sweep.review_flags": sweep_review_flags,
        "sweep.reredact": sweep_reredact,
        "sweep.reindex_terms": sweep_reindex_terms,
    }


def run_sweep(job_id: str, sweep: Sweep, store: Store, now: datetime) -> SweepResult:
    """Run one sweep, log a content-free line, record it if it succeeded. Never raises: a
    failing sweep must not take the scheduler thread or the daemon down."""
    try:
        result = sweep(store, now)
    except Exception as exc:
        log.error("%s failed: %s", job_id, describe(exc))
        return SweepResult(ok=False, detail=type(exc).__name__)
    if result.ok:
        store.record_sweep(job_id, now, result.summary())
        log.info("%s: %s", job_id, result.summary())
    return result


def due_sweeps(
    settings: DaemonSettings, last_runs: dict[str, datetime], now: datetime, job_ids: list[str]
) -> list[str]:
    """Jobs never run, or whose interval has passed since their last success."""
    due = []
    for job_id in job_ids:
        last = last_runs.get(job_id)
        if last is not None and last.tzinfo is None:
            last = last.replace(tzinfo=now.tzinfo)
        if last is None or now - last >= timedelta(seconds=settings.interval_of(job_id)):
            due.append(job_id)
    return due
