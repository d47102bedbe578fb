"""The daemon process: owns the watcher (watchdog Observer), the ingest worker thread, the sweep
scheduler and the context server, starts them in order and stops them in reverse.

Nothing here runs at import time; `commands.py` is the composition root that reads the config,
takes the single-instance lock, opens the store and hands everything to `Daemon`.
"""

from __future__ import annotations

import enum
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memvet.daemon.admission_policy import Policy
from memvet.daemon.ingestor import BatchReport, Ingestor, IngestStats, PipelineFactory
from memvet.daemon.logging_setup import describe
from memvet.daemon.progress import BackfillProgress
from memvet.daemon.roots import Root
from memvet.daemon.scheduler import build_scheduler, register_jobs
from memvet.daemon.settings import DaemonSettings
from memvet.daemon.sweeps import RESCAN, due_sweeps, run_sweep, store_sweeps
from memvet.daemon.watcher import Watcher
from memvet.daemon.worker import IngestWorker, Work
from memvet.store import Store, iso

log = logging.getLogger("memvet.daemon")
STATS_FILE = "daemon-stats.json"
STATS_EVERY_S = 1.0  # during a backfill, the stats file is rewritten at most this often


class DaemonState(enum.Enum):
    NOT_STARTED = "not_started"
    STARTING = "starting"
    RUNNING = "running"
    STOPPING = "stopping"
    STOPPED = "stopped"


def default_context_server(store: Store, socket_path: Path) -> Any | None:
    """The host-integration engineer's context server, when it is installed."""
    try:
        from memvet.daemon.context_server import ContextServer
    except ImportError:
        log.info("context server not available; hooks will read the store directly")
        return None
    return ContextServer(store, socket_path)


class Daemon:
    def __init__(
        self,
        store: Store,
        settings: DaemonSettings,
        policy: Policy,
        roots: list[Root],
        *,
        pipeline_factory: PipelineFactory,
        run_dir: Path | None = None,
        context_server: Callable[[Store, Path], Any | None] | None = None,
        progress: BackfillProgress | None = None,
        observer_factory: Callable[[], Any] | None = None,
        scheduler_paused: bool = False,
    ) -> None:
        self.store = store
        self.settings = settings
        self.policy = policy
        self.roots = roots
        self.run_dir = run_dir
        self.state = DaemonState.NOT_STARTED
        self.stop_event = threading.Event()
        self.progress = progress
        self.ingestor = Ingestor(
            store, policy, settings, pipeline_factory=pipeline_factory, on_batch=self._after_batch
        )
        self.worker = IngestWorker(
            self.ingestor,
            roots,
            debounce_s=settings.debounce_ms / 1000,
            stop=self.stop_event,
            after_batch=self.write_stats,
            progress=progress,
        )
        self.watcher: Watcher | None = None
        self.scheduler: Any = None
        self.context: Any = None
        self._context_factory = context_server
        self._observer_factory = observer_factory
        self._scheduler_paused = scheduler_paused
        self._started_at = store.now()
        self._stats_written = 0.0

    # --- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        self.state = DaemonState.STARTING
        self._start_context_server()
        self.ingestor.load()
        kwargs = {"observer_factory": self._observer_factory} if self._observer_factory else {}
        self.watcher = Watcher(self.roots, self.worker.put, **kwargs)
        self.worker.refresh_watches = self.watcher.refresh
        # Watch first, then backfill: anything written during the scan arrives as an event.
        self.watcher.start()
        self.worker.start()
        self.worker.put(Work("rescan"))
        self.scheduler = build_scheduler()
        last_runs = {**self.store.sweep_runs(), RESCAN: self.store.now()}  # the scan just queued
        register_jobs(self.scheduler, self._jobs(), self.settings, last_runs, self.store.now())
        self.scheduler.start(paused=self._scheduler_paused)
        self.state = DaemonState.RUNNING
        log.info(
            "daemon started: %d roots watched, %d files tracked, mode %s",
            len(self.watcher.watched),
            len(self.ingestor.tracked()),
            self.policy.mode,
        )

    def stop(self) -> None:
        if self.state in (DaemonState.STOPPING, DaemonState.STOPPED):
            return
        self.state = DaemonState.STOPPING
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=True)
        if self.watcher is not None:
            self.watcher.stop()
        self.worker.stop()  # the batch in progress commits; nothing half-done is left
        if self.context is not None:
            try:
                self.context.stop()
            except Exception as exc:
                log.error("context server did not stop cleanly: %s", describe(exc))
        self.write_stats()
        self.state = DaemonState.STOPPED
        log.info("daemon stopped: %s", json.dumps(self.ingestor.stats.to_json()))

    def run_until_stopped(self, stop: threading.Event) -> None:
        try:
            self.start()
            stop.wait()
        finally:
            self.stop()  # also after a failed start: whatever did start is stopped

    def run_once(self) -> IngestStats:
        """Read everything new, run the sweeps that are due, and return."""
        self.ingestor.load()
        log.info(
            "daemon --once: %d files tracked, mode %s",
            len(self.ingestor.tracked()),
            self.policy.mode,
        )
        self.worker.handle([Work("rescan")])
        now = self.store.now()
        sweeps = store_sweeps(self.settings)
        for job_id in due_sweeps(self.settings, self.store.sweep_runs(), now, list(sweeps)):
            if self.stop_event.is_set():
                break
            run_sweep(job_id, sweeps[job_id], self.store, now)
        self.write_stats()
        log.info("daemon --once done: %s", json.dumps(self.ingestor.stats.to_json()))
        return self.ingestor.stats

    def request_rescan(self) -> None:
        self.worker.put(Work("rescan"))

    # --- wiring ----------------------------------------------------------------------------
    def _jobs(self) -> dict[str, Callable[[], object]]:
        jobs: dict[str, Callable[[], object]] = {RESCAN: self.request_rescan}
        for job_id, sweep in store_sweeps(self.settings).items():
            jobs[job_id] = _bind(job_id, sweep, self.store)
        return jobs

    def _start_context_server(self) -> None:
        if self._context_factory is None or self.run_dir is None:
            return
        try:
            self.context = self._context_factory(self.store, self.run_dir / "daemon.sock")
            if self.context is not None:
                self.context.start()
        except Exception as exc:  # hooks fall back to reading the store; ingestion matters more
            log.error("context server failed to start (%s); continuing without it", describe(exc))
            self.context = None

    def _after_batch(self, report: BatchReport) -> None:
        if report.changed and self.context is not None:
            try:
                self.context.invalidate()
            except Exception as exc:
                log.error("context server invalidate failed: %s", describe(exc))
        if self.progress is not None:
            self.progress.batch_done(report)
            # `daemon status` shows a long first backfill's progress while it runs
            if self.progress.running and time.monotonic() - self._stats_written >= STATS_EVERY_S:
                self.write_stats()

    def write_stats(self) -> None:
        """Counts for `memvet daemon status` (another process): written atomically, owner-only."""
        if self.run_dir is None:
            return
        doc = {
            "pid": os.getpid(),
            "started_at": iso(self._started_at),
            "updated_at": iso(self.store.now()),
            "mode": self.policy.mode,
            # Keyed ids, not paths (docs/daemon.md): `daemon status` recomputes them.
            "roots": [
                {
                    "host": r.host,
                    "id": self.ingestor.file_id(r.path),
                    "exists": os.path.isdir(r.path),
                }
                for r in self.roots
            ],
            "watched": [
                self.ingestor.file_id(p) for p in (self.watcher.watched if self.watcher else [])
            ],
            "stats": self.ingestor.stats.to_json(),
            "backfill": self.progress.to_json() if self.progress is not None else None,
        }
        self._stats_written = time.monotonic()
        path = self.run_dir / STATS_FILE
        tmp = path.with_suffix(".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump(doc, f)
            os.replace(tmp, path)
        except OSError:
            log.warning("could not write %s", STATS_FILE)


def _bind(job_id: str, sweep: Any, store: Store) -> Callable[[], object]:
    def job() -> object:
        return run_sweep(job_id, sweep, store, store.now())

    job.__name__ = job_id
    return job
