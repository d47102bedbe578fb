"""The scheduler's jobs: ids, triggers, defaults, and re-registration at every start."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from apscheduler.triggers.interval import IntervalTrigger
from memvet.daemon.scheduler import JOB_IDS, build_scheduler, first_run, register_jobs
from memvet.daemon.settings import DaemonSettings


def jobs() -> dict:
    return {job_id: (lambda: None) for job_id in JOB_IDS}


def test_jobs_are_registered_with_dotted_ids_and_interval_triggers() -> None:
    settings = DaemonSettings(stale_lease_interval=30, rescan_interval=120)
    now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    scheduler = build_scheduler()
    register_jobs(scheduler, jobs(), settings, {}, now)
    scheduler.start(paused=True)
    try:
        registered = {job.id: job for job in scheduler.get_jobs()}
        assert set(registered) == set(JOB_IDS)
        for job_id, job in registered.items():
            assert isinstance(job.trigger, IntervalTrigger)
            assert job.trigger.interval == timedelta(seconds=settings.interval_of(job_id))
            assert job.coalesce is True and job.max_instances == 1
            assert job.misfire_grace_time is None  # a laptop waking up still runs it once
        assert str(scheduler.timezone) == "UTC"
        # again, as at the next start: replaced, not duplicated
        register_jobs(scheduler, jobs(), settings, {}, now)
        assert sorted(j.id for j in scheduler.get_jobs()) == sorted(JOB_IDS)
    finally:
        scheduler.shutdown(wait=True)


def test_first_run_continues_from_the_last_success() -> None:
    now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    day = 86400
    assert first_run(day, now - timedelta(hours=1), now, 0) == now + timedelta(hours=23)
    late = first_run(day, now - timedelta(days=3), now, 4)
    assert now < late <= now + timedelta(seconds=30)  # overdue: soon, not a day from now
    assert first_run(day, None, now, 0) <= now + timedelta(seconds=30)
    naive = (now - timedelta(hours=1)).replace(tzinfo=None)
    assert first_run(day, naive, now, 0) == now + timedelta(hours=23)


def test_registered_next_run_uses_the_store_record() -> None:
    now = datetime.now(UTC)
    settings = DaemonSettings()
    scheduler = build_scheduler()
    register_jobs(
        scheduler, jobs(), settings, {"sweep.verify_audit": now - timedelta(hours=2)}, now
    )
    scheduler.start(paused=True)
    try:
        job = scheduler.get_job("sweep.verify_audit")
        expected = now + timedelta(hours=22)
        assert abs((job.next_run_time - expected).total_seconds()) < 1
    finally:
        scheduler.shutdown(wait=True)
