"""Backfill progress on stderr, only when stderr is a terminal: one line rewritten in place with
files, MB and candidates; and as counts in the daemon's stats file, for `memvet daemon status`.
Counts only, like the log."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from memvet.daemon.ingestor import BatchReport

MB = 1e6


class BackfillProgress:
    def __init__(
        self, stream: TextIO | None = None, *, enabled: bool | None = None, every_s: float = 0.25
    ) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.every_s = every_s
        self.files_total = self.bytes_total = 0
        self.files_done: set[str] = set()
        self.bytes_done = self.candidates = 0
        self._last = 0.0
        self._shown = False
        self.running = False  # a scan with something to read is under way

    def scan_started(self, files: int, pending_bytes: int) -> None:
        """Called when a scan has listed the files with something new to read."""
        if files == 0:
            return
        self.files_total, self.bytes_total = files, pending_bytes
        self.running = True
        self.files_done.clear()
        self.bytes_done = self.candidates = 0

    def batch_done(self, report: BatchReport) -> None:
        self.files_done.add(report.path)
        self.bytes_done += report.bytes
        self.candidates += report.changed
        self._show()

    def _show(self, force: bool = False) -> None:
        if not self.enabled or not self.files_total:
            return
        now = time.monotonic()
        if not force and now - self._last < self.every_s:
            return
        self._last = now
        self._shown = True
        self.stream.write(
            f"\rmemvet: reading transcripts {len(self.files_done)}/{self.files_total} files, "
            f"{self.bytes_done / MB:.1f}/{self.bytes_total / MB:.1f} MB, "
            f"{self.candidates} candidates "
        )
        self.stream.flush()

    def to_json(self) -> dict[str, int | bool]:
        """Live-lane batches read during a backfill count too: done can pass total a little."""
        return {
            "running": self.running,
            "files_done": len(self.files_done),
            "files_total": self.files_total,
            "bytes_done": self.bytes_done,
            "bytes_total": self.bytes_total,
        }

    def finish(self) -> None:
        self.running = False
        if self._shown:
            self._show(force=True)
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False
