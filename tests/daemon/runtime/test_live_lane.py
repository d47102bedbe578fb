"""Live before backfill (issue 15): a backfill reads in slices that commit where they stand when
live work waits, the live file is read at once, and the backfill resumes from its checkpoint —
nothing lost, nothing read twice, a crash between slices resumes right."""

from __future__ import annotations

import hashlib
import json
import threading

import pytest
from memvet.daemon.ingestor import INTERRUPT_EVERY
from memvet.daemon.progress import BackfillProgress
from memvet.daemon.roots import all_roots
from memvet.daemon.service import STATS_FILE, Daemon
from memvet.daemon.settings import DaemonSettings

from .conftest import (
    RecordingPipeline,
    claude_root,
    make_ingestor,
    review_policy,
    say,
    wait_for,
)
from .test_tailer import statements

BACKFILL_LINES = 6 * INTERRUPT_EVERY
SAY_EVERY = 100  # most lines yield no candidate: cheap, like most of a real history


def statement(prefix: str, i: int) -> str:
    # distinct words, not numbers: the store merges statements that differ only by a number
    word = hashlib.sha256(f"{prefix}{i}".encode()).hexdigest()[:10].translate(LETTERS)
    return f"{prefix} {word}"


LETTERS = str.maketrans("0123456789", "ghijklmnop")


def history(prefix: str) -> bytes:
    return b"".join(
        say(statement(prefix, i)) if i % SAY_EVERY == 0 else b'{"type": "noise"}\n'
        for i in range(BACKFILL_LINES)
    )


def said(prefix: str) -> dict[str, int]:
    return {statement(prefix, i): 1 for i in range(0, BACKFILL_LINES, SAY_EVERY)}


class Toggle:
    """An interrupt set from its `after`-th look on, like a live event arriving."""

    def __init__(self, after: int) -> None:
        self.calls, self.after = 0, after

    def is_set(self) -> bool:
        self.calls += 1
        return self.calls >= self.after


def test_interleaved_slices_lose_and_double_nothing(
    store, roots, claude_project, recording
) -> None:
    paths = [claude_project / f"s-{n}.jsonl" for n in (1, 2)]
    for n, path in enumerate(paths):
        path.write_bytes(history(f"file {'ab'[n]}"))
    ingestor = make_ingestor(store)  # batches far larger than the files: only interrupts cut
    unfinished, slices = set(map(str, paths)), 0
    while unfinished:
        for path in sorted(unfinished):
            if ingestor.process(path, claude_root(roots), Toggle(after=2)):
                unfinished.discard(path)
            slices += 1
    assert slices > 4  # the files really were read in interleaved slices
    for path in paths:
        fed = [line_no for p, line_no, _ in recording.fed if p == str(path)]
        assert fed == list(range(1, BACKFILL_LINES + 1))  # each line once, in order
        cp = store.get_checkpoint(str(path))
        assert cp.offset == path.stat().st_size and cp.line_no == BACKFILL_LINES
        assert cp.extra["pipeline"] == {"lines": BACKFILL_LINES}  # state carried across slices
    assert statements(store) == {**said("file a"), **said("file b")}


def test_a_crash_between_slices_resumes_at_the_committed_slice(
    store, roots, claude_project, recording, monkeypatch
) -> None:
    path = claude_project / "s-1.jsonl"
    path.write_bytes(history("statement"))
    assert not make_ingestor(store).process(str(path), claude_root(roots), Toggle(after=1))
    first_slice = store.get_checkpoint(str(path)).line_no
    assert first_slice == INTERRUPT_EVERY
    real_ingest = store.ingest

    def dies(checkpoint, drafts):  # noqa: ANN001, ANN202
        raise RuntimeError("killed mid-slice")

    monkeypatch.setattr(store, "ingest", dies)
    with pytest.raises(RuntimeError):  # the next slice never commits
        make_ingestor(store).process(str(path), claude_root(roots), Toggle(after=1))
    monkeypatch.setattr(store, "ingest", real_ingest)
    recording.fed.clear()
    assert make_ingestor(store).process(str(path), claude_root(roots))  # a fresh process
    assert [n for _, n, _ in recording.fed] == list(range(first_slice + 1, BACKFILL_LINES + 1))
    assert statements(store) == said("statement")
    assert store.get_checkpoint(str(path)).extra["pipeline"] == {"lines": BACKFILL_LINES}


def test_a_live_append_is_committed_before_the_backfill_finishes(
    live_store, tmp_path, claude_project, recording
) -> None:
    """Real watchdog, real SQLite: the start-up backfill is one long file; while it is being
    read, a live session writes a line; its candidate is stored while the backfill is still
    part-way, and the backfill then finishes without reading a line twice."""
    backfill = claude_project / "history.jsonl"
    backfill.write_bytes(history("old"))
    live = claude_project / "live.jsonl"
    queued = threading.Event()
    seen_at: dict[str, int] = {}

    class Pipeline(RecordingPipeline):
        def feed(self, line: bytes, line_no: int):  # noqa: ANN201
            if self.path == str(backfill) and line_no == INTERRUPT_EVERY // 2:
                live.write_bytes(say("we deploy with make ship"))  # the session writes
                queued.wait(10)  # ... and watchdog reports it before we read on
            if self.path == str(live):
                seen_at["backfill_offset"] = live_store.get_checkpoint(str(backfill)).offset
                seen_at["progress"] = progress.to_json()
            return super().feed(line, line_no)

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    progress = BackfillProgress(enabled=False)
    daemon = Daemon(
        live_store,
        DaemonSettings(debounce_ms=20),
        review_policy(),
        all_roots(),
        pipeline_factory=Pipeline,
        run_dir=run_dir,
        progress=progress,
    )
    put = daemon.worker.put

    def spy(work):  # noqa: ANN001, ANN202
        put(work)
        if work.path == str(live):
            queued.set()

    daemon.worker.put = spy  # the watcher is given worker.put at start
    daemon.start()
    try:
        wait_for(
            lambda: (
                (cp := live_store.get_checkpoint(str(backfill)))
                and cp.offset == backfill.stat().st_size
            ),
            timeout=30,
        )
    finally:
        daemon.stop()
    assert queued.is_set()
    assert 0 < seen_at["backfill_offset"] < backfill.stat().st_size  # read mid-backfill
    order = [(p, n) for p, n, _ in recording.fed]
    assert order.index((str(live), 1)) < order.index((str(backfill), BACKFILL_LINES))
    assert [n for p, n in order if p == str(backfill)] == list(range(1, BACKFILL_LINES + 1))
    assert statements(live_store) == {"we deploy with make ship": 1, **said("old")}
    # `memvet daemon status` reads the backfill's progress from the stats file
    assert seen_at["progress"]["running"] and seen_at["progress"]["files_total"] == 1
    assert 0 < seen_at["progress"]["bytes_done"] < backfill.stat().st_size
    written = json.loads((run_dir / STATS_FILE).read_text())["backfill"]
    assert not written["running"] and written["bytes_total"] == backfill.stat().st_size
