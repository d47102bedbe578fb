"""One file at a time: resume from its checkpoint, feed whole lines through the host pipeline,
apply the admission policy, and commit candidates and the advanced checkpoint together.

Exactly-once: `store.ingest(checkpoint, drafts)` writes a batch's candidates and the offset just
past its last line (plus the parser state at that point) in one transaction. A crash loses only
an uncommitted batch, which is read again from the committed offset with the committed parser
state. A pipeline is built fresh from the checkpoint on every pass, so a failed batch can never
leave parser state ahead of the stored offset.
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from threading import Event
from typing import Any, Protocol

from memvet.daemon.admission_policy import Policy
from memvet.daemon.logging_setup import describe
from memvet.daemon.roots import Root
from memvet.daemon.settings import DaemonSettings
from memvet.daemon.tailer import (
    NotRegularFileError,
    OpenedFile,
    fingerprint_of,
    open_transcript,
    read_lines,
    same_start,
)
from memvet.store import CandidateDraft, Checkpoint, Edits, MemvetError, Store
from memvet.store.admission import validate_draft

log = logging.getLogger("memvet.daemon")

# (host, path, restored parser state or None) -> an object with feed(line, line_no) and .state
PipelineFactory = Callable[[str, str, dict[str, Any] | None], Any]
# How often (in lines) a pass asks whether to stop early: small enough that live work waits at
# most a few milliseconds of reading, large enough to cost nothing per line.
INTERRUPT_EVERY = 256


class Interrupt(Protocol):
    def is_set(self) -> bool: ...


def _never() -> bool:
    return False


@dataclass
class IngestStats:
    """Counts only: nothing a user typed. Shown by `memvet daemon status`."""

    passes: int = 0  # reads of a file that found something to do
    lines: int = 0
    bytes: int = 0
    drafts: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)  # queued, merged, tombstoned, ...
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> count
    resets: Counter[str] = field(default_factory=Counter)  # truncated, replaced, moved
    # Lines of a type the parser does not know, by host and host version: a format change
    # shows as a growing count for one new version.
    unknown_types: dict[str, Counter[str]] = field(default_factory=dict)
    last_ingest_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "passes": self.passes,
            "lines": self.lines,
            "bytes": self.bytes,
            "drafts": self.drafts,
            "outcomes": dict(self.outcomes),
            "skipped": dict(self.skipped),
            "resets": dict(self.resets),
            "unknown_types": {
                host: dict(by_version) for host, by_version in self.unknown_types.items()
            },
            "last_ingest_at": self.last_ingest_at.isoformat() if self.last_ingest_at else None,
        }


@dataclass
class BatchReport:
    path: str
    lines: int
    bytes: int
    changed: int  # candidates queued or merged, memories auto-committed


@dataclass
class _Pass:
    """Where one pass over one file stands."""

    path: str
    host: str
    opened: OpenedFile
    offset: int
    line_no: int
    pipeline: Any
    drafts: list[CandidateDraft] = field(default_factory=list)
    lines: int = 0
    bytes: int = 0


class Ingestor:
    """Owned by a single thread (the daemon's worker); checkpoints are cached in memory because
    the daemon is the only process that writes them (single-instance lock)."""

    def __init__(
        self,
        store: Store,
        policy: Policy,
        settings: DaemonSettings,
        *,
        pipeline_factory: PipelineFactory,
        on_batch: Callable[[BatchReport], None] | None = None,
    ) -> None:
        self.store = store
        self.policy = policy
        self.settings = settings
        self.stats = IngestStats()
        self._factory = pipeline_factory
        self._on_batch = on_batch
        self._checkpoints: dict[str, Checkpoint] = {}

    def load(self) -> None:
        self._checkpoints = {cp.path: cp for cp in self.store.all_checkpoints()}

    def tracked(self) -> list[str]:
        return list(self._checkpoints)

    def checkpoint(self, path: str) -> Checkpoint | None:
        return self._checkpoints.get(path)

    def file_id(self, path: str) -> str:
        """A file or folder named in logs and stats without its path (Store.log_tag)."""
        return self.store.log_tag(path)

    def forget(self, path: str) -> bool:
        if path not in self._checkpoints:
            return False
        self.store.forget_checkpoint(path)
        del self._checkpoints[path]
        log.info("forgot checkpoint of deleted file %s", self.file_id(path))
        return True

    def is_current(self, path: str, st: os.stat_result) -> bool:
        """Nothing new to read: same inode and the checkpoint sits at the end of the file."""
        cp = self._checkpoints.get(path)
        return cp is not None and cp.inode == st.st_ino and cp.offset == st.st_size

    # --- one file --------------------------------------------------------------------------
    def process(self, path: str, root: Root, stop: Event | Interrupt | None = None) -> bool:
        """False when `stop` cut the pass short: what was read is committed, and the next pass
        resumes there. `stop` is checked every INTERRUPT_EVERY lines, not only per batch."""
        try:
            opened = open_transcript(path)
        except FileNotFoundError:
            self.forget(path)
            return True
        except NotRegularFileError:
            self._skip(path, "not_regular_file")
            return True
        except OSError as exc:
            self._skip(path, f"unreadable:{exc.errno}")
            return True
        try:
            return self._read(path, root.host_of(path), opened, stop)
        finally:
            opened.close()

    def _read(
        self, path: str, host: str, opened: OpenedFile, stop: Event | Interrupt | None
    ) -> bool:
        cp = self._checkpoints.get(path)
        start, line_no, state, reason, adopted = self._resume_point(path, cp, opened)
        if reason is None and adopted is None and cp is not None and opened.size == cp.offset:
            return True
        if reason:
            self.stats.resets[reason] += 1
            log.info("%s file %s: reading it again from the start", reason, self.file_id(path))
        pipeline = self._factory(host, path, state)
        if self.policy.mode == "selective":  # auto-commit only what the host itself wrote
            from memvet.daemon.selective import VettedPipeline

            pipeline = VettedPipeline(pipeline, host, state)
        run = _Pass(path, host, opened, start, line_no, pipeline)
        s = self.settings
        feed, pending = run.pipeline.feed, run.drafts
        batch_lines, batch_bytes = s.batch_lines, s.batch_bytes
        interrupted = stop.is_set if stop is not None else _never
        finished = True
        # The loop keeps its counters in locals (it runs once per line) and writes them to `run`
        # before anything reads them there.
        offset, lines, size = start, 0, 0
        for data, end in read_lines(opened.handle, start, s.max_line_bytes):
            line_no += 1
            if data is None:
                self.stats.skipped["oversized_line"] += 1
                log.warning(
                    "skipped a line over %d bytes in %s (line %d)",
                    s.max_line_bytes,
                    self.file_id(path),
                    line_no,
                )
            else:
                try:
                    drafts = feed(data, line_no)
                except Exception as exc:  # it promises never to raise; one line must not stop us
                    run.line_no = line_no
                    drafts = self._feed_failed(run, exc)
                if drafts:
                    pending.extend(drafts)
            lines += 1
            size += end - offset
            offset = end
            if (
                lines >= batch_lines
                or size >= batch_bytes
                or (not lines % INTERRUPT_EVERY and interrupted())
            ):
                run.offset, run.line_no, run.lines, run.bytes = offset, line_no, lines, size
                self._commit(run)
                pending, lines, size = run.drafts, 0, 0
                if interrupted():
                    finished = False
                    break  # committed: the next pass resumes here
        else:
            run.offset, run.line_no, run.lines, run.bytes = offset, line_no, lines, size
            if run.lines or reason or adopted or cp is None:
                self._commit(run)
        if adopted is not None:  # its checkpoint now lives under the new path
            self.forget(adopted)
        self.stats.passes += 1
        self._count_unknown(host, run.pipeline.stats)
        return finished

    def _count_unknown(self, host: str, stats: Any) -> None:
        """A pass's unknown-type lines (each pass has a pipeline of its own) by host version."""
        unknown = stats.skipped_by_reason.get("unknown_type", 0)
        if unknown:
            by_version = self.stats.unknown_types.setdefault(host, Counter())
            by_version[stats.host_version or "unknown version"] += unknown
            self.stats.skipped["unknown_type"] += unknown

    def _resume_point(
        self, path: str, cp: Checkpoint | None, f: OpenedFile
    ) -> tuple[int, int, dict[str, Any] | None, str | None, str | None]:
        """(offset, line_no, parser state, reset reason, path of a moved file's old checkpoint)."""
        if cp is None:
            old = self._moved_from(path, f)
            if old is None:
                return 0, 0, None, None, None
            self.stats.resets["moved"] += 1
            cp = self._checkpoints[old]
            return cp.offset, cp.line_no, _state_of(cp), None, old
        # The device number alone may change across reboots (device-mapper): inode + content decide.
        if cp.inode != f.inode:
            return 0, 0, None, "replaced", None
        if f.size < cp.offset:
            return 0, 0, None, "truncated", None
        if not same_start(cp.fingerprint, f.head):
            return 0, 0, None, "replaced", None
        return cp.offset, cp.line_no, _state_of(cp), None, None

    def _moved_from(self, path: str, f: OpenedFile) -> str | None:
        """A renamed file (Codex archiving a session) keeps its checkpoint instead of being
        read twice: same inode, same first bytes, and its old path is gone."""
        for old, cp in self._checkpoints.items():
            if (
                cp.inode == f.inode
                and cp.device == f.device
                and old != path
                and f.size >= cp.offset
                and same_start(cp.fingerprint, f.head)
                and not os.path.lexists(old)
            ):
                return old
        return None

    def _feed_failed(self, run: _Pass, exc: Exception) -> list[CandidateDraft]:
        self.stats.skipped["pipeline_error"] += 1
        log.error(
            "the pipeline failed on line %d of %s: %s",
            run.line_no,
            self.file_id(run.path),
            describe(exc),
        )
        return []

    # --- one batch: candidates and checkpoint in one transaction -------------------------------
    def _commit(self, run: _Pass) -> None:
        f = run.opened
        checkpoint = Checkpoint(
            path=run.path,
            host=run.host,
            device=f.device,
            inode=f.inode,
            fingerprint=fingerprint_of(f.head),
            offset=run.offset,
            line_no=run.line_no,
            size_seen=max(f.size, run.offset),
            extra=self._extra(run),
        )
        flush = getattr(run.pipeline, "flush", None)
        if flush is not None:
            run.drafts.extend(flush())
        admit, auto = self._apply_policy(run.drafts)
        if admit:
            results = self.store.ingest(checkpoint, admit)
        else:
            self.store.save_checkpoint(checkpoint)
            results = []
        self._checkpoints[run.path] = checkpoint
        changed = 0
        for result, wants_commit in zip(results, auto, strict=True):
            if result.outcome == "dropped":  # the store could not keep it: a skipped line
                self.stats.skipped["unstorable_draft"] += 1
                continue
            self.stats.outcomes[result.outcome] += 1
            if result.outcome in ("queued", "merged"):
                changed += 1
            if wants_commit and result.outcome == "queued" and result.candidate_id:
                changed += self._auto_commit(result.candidate_id)
        self.stats.lines += run.lines
        self.stats.bytes += run.bytes
        self.stats.last_ingest_at = self.store.now()
        if self._on_batch is not None:
            self._on_batch(BatchReport(run.path, run.lines, run.bytes, changed))
        run.drafts, run.lines, run.bytes = [], 0, 0

    def _extra(self, run: _Pass) -> dict[str, Any]:
        # A snapshot, not the live dict: the pipeline keeps mutating its state after this batch.
        try:
            return {"pipeline": json.loads(json.dumps(run.pipeline.state))}
        except (TypeError, ValueError):
            self.stats.skipped["unserialisable_state"] += 1
            log.error(
                "parser state of %s is not JSON; checkpoint saved without it",
                self.file_id(run.path),
            )
            return {}

    def _apply_policy(
        self, drafts: list[CandidateDraft]
    ) -> tuple[list[CandidateDraft], list[bool]]:
        admit: list[CandidateDraft] = []
        auto: list[bool] = []
        self.stats.drafts += len(drafts)
        for draft in drafts:
            decision = self.policy.decide(draft)
            if decision in ("off", "observe", "drop"):
                self.stats.outcomes[
                    {"off": "not_admitted", "observe": "observed", "drop": "dropped"}[decision]
                ] += 1
                continue
            try:
                validate_draft(draft)
            except MemvetError:
                self.stats.skipped["invalid_draft"] += 1
                continue
            admit.append(draft)
            auto.append(decision == "auto_commit")
        return admit, auto

    def _auto_commit(self, candidate_id: str) -> int:
        """Selective mode: through the same reservation protocol as a person's approval."""
        try:
            # "ask": a candidate with a rival in its slot stays queued for a person (issue 13)
            self.store.approve(candidate_id, actor="policy:selective", edits=Edits(conflict="ask"))
        except MemvetError as exc:
            log.warning("auto-commit of %s left it queued (%s)", candidate_id, exc.code)
            return 0
        self.stats.outcomes["auto_committed"] += 1
        return 1

    def _skip(self, path: str, reason: str) -> None:
        self.stats.skipped[reason.split(":")[0]] += 1
        log.warning("skipped %s: %s", self.file_id(path), reason)


def _state_of(cp: Checkpoint) -> dict[str, Any] | None:
    state = cp.extra.get("pipeline")
    return json.loads(json.dumps(state)) if isinstance(state, dict) else None
