"""APScheduler 3.x wiring for the sweeps: a BackgroundScheduler in UTC with the default
MemoryJobStore. Jobs are re-registered from code at every start (explicit dotted ids,
`replace_existing=True`); the last successful run lives in our own table, not in a job store.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_MISSED, JobEvent
from apscheduler.schedulers.background import BackgroundScheduler
from memvet.daemon.settings import DaemonSettings

log = logging.getLogger("memvet.daemon")

JOB_IDS = (
    "sweep.stale_leases",
    "sweep.expire_candidates",
    "sweep.retire_memories",
    "sweep.decay_confidence",
    "sweep.verify_audit",
    "sweep.rescan",
    "sweep.optimize_store",
)
# None: "run no matter how late". A laptop waking after a night asleep runs each overdue sweep
# once (coalesce) instead of skipping it; every sweep is idempotent, so late is always safe.
MISFIRE_GRACE: int | None = None
FIRST_RUN_DELAY = 5  # seconds after start for a sweep that is already due


def build_scheduler() -> BackgroundScheduler:
    scheduler = BackgroundScheduler(
        timezone="UTC",
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": MISFIRE_GRACE},
        executors={"default": {"type": "threadpool", "max_workers": 2}},
    )
    scheduler.add_listener(_log_problem, EVENT_JOB_ERROR | EVENT_JOB_MISSED)
    return scheduler


def first_run(interval: int, last: datetime | None, now: datetime, stagger: int) -> datetime:
    """A job's next run from its last success, so a daemon that restarts more often than a
    sweep's interval still runs it (interval triggers alone would always start over)."""
    if last is not None:
        if last.tzinfo is None:
            last = last.replace(tzinfo=now.tzinfo)
        due = last + timedelta(seconds=interval)
        if due > now:
            return due
    return now + timedelta(seconds=FIRST_RUN_DELAY + stagger)


def register_jobs(
    scheduler: BackgroundScheduler,
    jobs: dict[str, Callable[[], object]],
    settings: DaemonSettings,
    last_runs: dict[str, datetime],
    now: datetime,
) -> None:
    """Idempotent (Tautulli's schedule_job): same id, same job, whatever ran before."""
    for stagger, (job_id, func) in enumerate(sorted(jobs.items())):
        interval = settings.interval_of(job_id)
        scheduler.add_job(
            func,
            "interval",
            seconds=interval,
            id=job_id,
            name=job_id,
            replace_existing=True,
            jitter=min(30, interval // 10) or None,
            next_run_time=first_run(interval, last_runs.get(job_id), now, stagger * 2),
        )


def _log_problem(event: JobEvent) -> None:
    if event.code == EVENT_JOB_MISSED:
        log.warning("%s missed its run time", event.job_id)
    else:
        log.error("%s raised %s", event.job_id, type(getattr(event, "exception", None)).__name__)
