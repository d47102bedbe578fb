"""The one thread that reads transcripts and writes candidates.

Everything that wants a file read puts a work item on its queue: the watcher's event handler, the
rescan job, the start-up backfill. The worker blocks on the queue (an idle daemon uses no CPU),
then collects whatever else arrives within the debounce window and handles the burst as one
batch, each file once. Being the only ingest thread, it owns the checkpoint cache.

Live before backfill: a backfill (the rescan, a folder that appeared) reads in slices. Whenever
work waits on the queue, the slice in progress commits where it is, the files named by "file"
events are read at once (the live lane), and the backfill resumes from its checkpoint; other
work waits for the end of the burst.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from memvet.daemon.ingestor import Ingestor
from memvet.daemon.logging_setup import describe
from memvet.daemon.memory import release_free_memory
from memvet.daemon.progress import BackfillProgress
from memvet.daemon.roots import Root, iter_transcripts, root_of
from memvet.daemon.sweeps import RESCAN, run_sweep, sweep_rescan

log = logging.getLogger("memvet.daemon")


@dataclass(frozen=True)
class Work:
    """kind: file (a path changed), dir (a folder appeared under a root), refresh (a folder
    appeared above a root that did not exist yet), rescan (walk every root), stop."""

    kind: str
    path: str = ""


STOP = Work("stop")
TRIM_AFTER_BYTES = 32 * 2**20  # read since the heap was last trimmed; a trim costs milliseconds


class IngestWorker:
    def __init__(
        self,
        ingestor: Ingestor,
        roots: list[Root],
        *,
        debounce_s: float,
        stop: threading.Event,
        refresh_watches: Callable[[], list[Root]] = list,
        after_batch: Callable[[], None] = lambda: None,
        progress: BackfillProgress | None = None,
    ) -> None:
        self.ingestor = ingestor
        self.roots = roots
        self.debounce_s = debounce_s
        self.stop_event = stop
        self.refresh_watches = refresh_watches
        self._after_batch = after_batch
        self._progress = progress
        self._queue: queue.SimpleQueue[Work] = queue.SimpleQueue()
        self._deferred: list[Work] = []  # taken off the queue during a backfill, handled next
        self._live_waiting = _LiveWaiting(self._queue, stop)
        self._thread: threading.Thread | None = None
        self.batches = 0  # handled bursts; tests wait on it
        self._bytes_at_trim = 0

    # --- the thread ------------------------------------------------------------------------
    def put(self, work: Work) -> None:
        """Thread-safe and non-blocking: the watchdog handler calls it."""
        self._queue.put(work)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="memvet-ingest", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        """The current batch finishes (and commits); queued work is left for the next start's
        backfill scan."""
        self.stop_event.set()
        self._queue.put(STOP)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _loop(self) -> None:
        while not self.stop_event.is_set():
            if self._deferred:
                burst, self._deferred = self._deferred, []
            else:
                burst = [self._queue.get()]  # blocks: no polling while idle
            deadline = time.monotonic() + self.debounce_s
            while (remaining := deadline - time.monotonic()) > 0:
                try:
                    burst.append(self._queue.get(timeout=remaining))
                except queue.Empty:
                    break
            if STOP in burst or self.stop_event.is_set():
                return
            try:
                self.handle(burst)
            except Exception as exc:  # a store outage must not kill the thread; retried later
                log.error(
                    "ingest batch failed (%s); retried on the next change or rescan", describe(exc)
                )

    # --- one burst -------------------------------------------------------------------------
    def handle(self, burst: list[Work]) -> None:
        live: dict[str, Root] = {}
        folders: dict[str, Root] = {}  # a backfill: read in slices, after the live files
        rescan = False
        for work in burst:
            if work.kind == "file":
                root = root_of(work.path, self.roots)
                if root is not None:
                    live[work.path] = root
            elif work.kind == "dir":
                root = self._root_containing(work.path)
                if root is not None:
                    folders.update((p, root) for p in iter_transcripts(root, under=work.path))
            elif work.kind == "refresh":
                for root in self.refresh_watches():
                    folders.update((p, root) for p in iter_transcripts(root))
            elif work.kind == "rescan":
                rescan = True
        self._process(live)
        if rescan:
            now = self.ingestor.store.now()
            run_sweep(
                RESCAN,
                lambda _s, _n: sweep_rescan(_s, _n, scan=self.scan_all),
                self.ingestor.store,
                now,
            )
            from memvet.daemon.hosts.codex_memories import import_new

            try:  # Codex's own memories into review (issue 10); never at the transcripts' cost
                import_new(self.ingestor.store)
            except Exception as exc:  # noqa: BLE001
                log.error("importing Codex memories failed (%s)", describe(exc))
        self._process(folders, backfill=True)
        if self.ingestor.stats.bytes - self._bytes_at_trim >= TRIM_AFTER_BYTES:
            release_free_memory()  # or RSS grows with every backfill (memory.py)
            self._bytes_at_trim = self.ingestor.stats.bytes
        self.batches += 1
        self._after_batch()

    def _process(self, files: dict[str, Root], *, backfill: bool = False) -> int:
        """Existing files first, so a moved file adopts its old checkpoint before the old path
        is forgotten; then the paths that are gone. A backfill yields to live work between
        slices (it never nests: the live lane itself does not yield)."""
        present = {p: r for p, r in files.items() if os.path.lexists(p)}
        stop = self._live_waiting if backfill else self.stop_event
        for path, root in present.items():
            while not self.stop_event.is_set():
                try:
                    finished = self.ingestor.process(path, root, stop)
                except Exception as exc:  # e.g. the store busy: this file waits, the others go on
                    log.error(
                        "reading %s failed (%s); retried on its next change or rescan",
                        self.ingestor.file_id(path),
                        describe(exc),
                    )
                    finished = True
                if backfill:
                    self._serve_live()
                if finished:
                    break
            if self.stop_event.is_set():
                return len(present)
        for path in files.keys() - present.keys():
            self.ingestor.forget(path)
        return len(present)

    def _serve_live(self) -> None:
        """The live lane: what waits on the queue now, its files read before the backfill goes
        on; anything else is kept for after the burst."""
        live: dict[str, Root] = {}
        while True:
            try:
                work = self._queue.get_nowait()
            except queue.Empty:
                break
            root = root_of(work.path, self.roots) if work.kind == "file" else None
            if root is not None:
                live[work.path] = root
            elif work.kind != "file":
                self._deferred.append(work)
        if live:
            self._process(live)

    def scan_all(self) -> int:
        """Every transcript under every root with new bytes; checkpoints of files that are gone
        are forgotten (only when their root still exists: an unmounted disk is not a delete)."""
        todo: dict[str, Root] = {}
        pending_bytes = 0
        for root in self.roots:
            for path in iter_transcripts(root):
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                if not self.ingestor.is_current(path, st):
                    todo[path] = root
                    cp = self.ingestor.checkpoint(path)
                    pending_bytes += st.st_size - (
                        cp.offset if cp and cp.inode == st.st_ino and cp.offset <= st.st_size else 0
                    )
        if self._progress is not None:
            self._progress.scan_started(len(todo), pending_bytes)
        for path in self.ingestor.tracked():
            root = root_of(path, self.roots)
            if root is not None and os.path.isdir(root.path) and not os.path.lexists(path):
                todo[path] = root
        self._process(todo, backfill=True)
        if self._progress is not None:
            self._progress.finish()
        return len(todo)

    def _root_containing(self, folder: str) -> Root | None:
        for root in self.roots:
            if root.relative_parts(folder) is not None:
                return root
        return None


class _LiveWaiting:
    """Tells a backfill slice to commit and step aside: work waits on the queue (or we stop)."""

    def __init__(self, work: queue.SimpleQueue[Work], stop: threading.Event) -> None:
        self._work = work
        self._stop = stop

    def is_set(self) -> bool:
        return self._stop.is_set() or not self._work.empty()
