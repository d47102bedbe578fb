"""Which paths are transcripts, what the event handler enqueues, and the whole watch → tail →
store loop with a real Observer on tmp folders."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memvet.daemon.roots import Root, all_roots, extra_roots, iter_transcripts
from memvet.daemon.service import Daemon
from memvet.daemon.settings import ConfigError, DaemonSettings
from memvet.daemon.watcher import TranscriptEventHandler
from memvet.daemon.worker import Work
from watchdog.events import (
    DirCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)
from watchdog.observers.api import BaseObserver

from .conftest import RecordingPipeline, review_policy, say, wait_for


def test_transcript_patterns(tmp_path: Path) -> None:
    claude = Root(str(tmp_path / "projects"), "claude-code", "claude-projects")
    p = str(tmp_path / "projects")
    assert claude.accepts(f"{p}/-home-x/0b1e.jsonl")
    assert claude.accepts(f"{p}/-home-x/agent-36541525.jsonl")  # older sub-agent layout
    assert claude.accepts(f"{p}/-home-x/0b1e/subagents/agent-aac57f5.jsonl")
    assert not claude.accepts(f"{p}/-home-x/0b1e/tool-results/x.jsonl")
    assert not claude.accepts(f"{p}/-home-x/memory/notes.md")
    assert not claude.accepts(f"{p}/top.jsonl")
    assert not claude.accepts(str(tmp_path / "history.jsonl"))
    codex = Root(str(tmp_path / "sessions"), "codex", "codex-sessions")
    s = str(tmp_path / "sessions")
    assert codex.accepts(f"{s}/2026/01/02/rollout-2026-01-02T18-39-45-019b.jsonl")
    assert not codex.accepts(f"{s}/2026/01/02/rollout-x.jsonl.zst")
    assert not codex.accepts(f"{s}/rollout-x.jsonl")
    archive = Root(str(tmp_path / "archived_sessions"), "codex", "codex-archive")
    assert archive.accepts(str(tmp_path / "archived_sessions" / "rollout-x.jsonl"))


def test_extra_roots_from_config(tmp_path: Path) -> None:
    roots = extra_roots([str(tmp_path / "a"), {"host": "codex", "path": str(tmp_path / "b")}])
    assert [(r.host, r.layout) for r in roots] == [(None, "any"), ("codex", "any")]
    assert roots[0].host_of("/x/rollout-1.jsonl") == "codex"
    assert roots[0].host_of("/x/0b1e.jsonl") == "claude-code"
    assert roots[1].host_of("/x/0b1e.jsonl") == "codex"
    with pytest.raises(ConfigError):
        extra_roots([{"host": "vim", "path": "/x"}])
    with pytest.raises(ConfigError):
        extra_roots([42])


def test_handler_filters_and_enqueues_without_io(tmp_path: Path) -> None:
    roots = all_roots()
    project = Path(roots[0].path) / "-home-x"
    got: list[Work] = []
    handler = TranscriptEventHandler(roots, got.append)
    handler.dispatch(FileModifiedEvent(str(project / "s.jsonl")))
    handler.dispatch(FileModifiedEvent(str(project / "notes.md")))
    handler.dispatch(FileOpenedEvent(str(project / "s.jsonl")))  # our own reads
    handler.dispatch(FileMovedEvent(str(project / "a.jsonl"), str(project / "b.jsonl")))
    handler.dispatch(DirCreatedEvent(str(project)))
    handler.dispatch(DirCreatedEvent(str(Path(os.environ["CODEX_HOME"]))))
    assert got == [
        Work("file", str(project / "s.jsonl")),
        Work("file", str(project / "a.jsonl")),
        Work("file", str(project / "b.jsonl")),
        Work("dir", str(project)),
        Work("refresh", os.environ["CODEX_HOME"]),
    ]
    assert not project.exists()  # the handler never touched the disk


def test_iter_transcripts_survives_a_symlink_loop(claude_project: Path) -> None:
    (claude_project / "s.jsonl").write_bytes(b"")
    (claude_project / "loop").symlink_to(claude_project.parent)
    root = all_roots()[0]
    assert list(iter_transcripts(root)) == [str(claude_project / "s.jsonl")]


# --- the live loop ---------------------------------------------------------------------------
@pytest.fixture
def daemon_factory(live_store, recording, tmp_path: Path) -> Iterator:
    started: list[Daemon] = []

    def make(**kw) -> Daemon:  # noqa: ANN003
        settings = kw.pop("settings", DaemonSettings(debounce_ms=100))
        d = Daemon(
            live_store,
            settings,
            review_policy(),
            all_roots(),
            pipeline_factory=RecordingPipeline,
            run_dir=tmp_path / "run",
            **kw,
        )
        (tmp_path / "run").mkdir(exist_ok=True)
        d.start()
        started.append(d)
        wait_for(lambda: d.worker.batches >= 1)  # the start-up scan is done
        return d

    yield make
    for d in started:
        d.stop()


def caught_up(store, path: Path) -> bool:  # noqa: ANN001
    cp = store.get_checkpoint(str(path))
    return cp is not None and path.exists() and cp.offset == path.stat().st_size


@pytest.mark.slow
def test_live_append_partial_truncate_rotate_delete(
    daemon_factory, live_store, claude_project, recording
) -> None:
    daemon = daemon_factory()
    path = claude_project / "s.jsonl"
    path.write_bytes(say("one"))
    wait_for(lambda: caught_up(live_store, path))
    with path.open("ab") as f:  # a partial line, then its completion
        f.write(say("two")[:5])
        f.flush()
        time.sleep(0.3)
        f.write(say("two")[5:])
    wait_for(lambda: caught_up(live_store, path))
    assert [line for _, _, line in recording.fed] == [say("one")[:-1], say("two")[:-1]]
    with path.open("r+b") as f:
        f.truncate(0)
        f.write(say("3"))
    wait_for(lambda: daemon.ingestor.stats.resets["truncated"] == 1 and caught_up(live_store, path))
    tmp = claude_project / "next.tmp"
    tmp.write_bytes(say("rotated one") + say("rotated two"))
    os.link(path, claude_project / "old-inode")  # the new file gets a new inode
    os.replace(tmp, path)
    wait_for(lambda: daemon.ingestor.stats.resets["replaced"] == 1 and caught_up(live_store, path))
    path.unlink()
    wait_for(lambda: live_store.get_checkpoint(str(path)) is None)
    assert [n for _, n, _ in recording.fed] == [1, 2, 1, 1, 2]


@pytest.mark.slow
def test_bursts_are_debounced(daemon_factory, live_store, claude_project, recording) -> None:
    daemon = daemon_factory(settings=DaemonSettings(debounce_ms=300))
    before = daemon.worker.batches
    path = claude_project / "s.jsonl"
    with path.open("ab") as f:
        for i in range(200):
            f.write(say(f"line {i}"))
            f.flush()
    wait_for(lambda: caught_up(live_store, path))
    time.sleep(0.5)
    assert daemon.worker.batches - before <= 3  # 200 writes, a handful of batches
    assert [n for _, n, _ in recording.fed] == list(range(1, 201))  # each line once


class DeafObserver(BaseObserver):
    """An observer that hears nothing: only the rescan can find files."""

    def __init__(self) -> None:
        from watchdog.observers.polling import PollingEmitter

        super().__init__(PollingEmitter, timeout=1)

    def schedule(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        return object()


@pytest.mark.slow
def test_rescan_catches_what_no_event_reported(
    daemon_factory, live_store, claude_project, recording
) -> None:
    first = daemon_factory()
    first.stop()
    path = claude_project / "written-while-stopped.jsonl"
    path.write_bytes(say("one"))
    second = daemon_factory()  # the start-up scan finds it
    wait_for(lambda: caught_up(live_store, path))
    second.stop()
    deaf = daemon_factory(observer_factory=DeafObserver)
    later = claude_project / "no-event.jsonl"
    later.write_bytes(say("two"))
    time.sleep(0.3)
    assert live_store.get_checkpoint(str(later)) is None
    deaf.request_rescan()
    wait_for(lambda: caught_up(live_store, later))
    assert "sweep.rescan" in live_store.sweep_runs()


@pytest.mark.slow
def test_a_root_created_after_start_is_watched(daemon_factory, live_store, recording) -> None:
    daemon_factory()
    folder = Path(os.environ["CODEX_HOME"]) / "sessions" / "2026" / "03" / "01"
    folder.mkdir(parents=True)
    path = folder / "rollout-2026-03-01T09-00-00-019c.jsonl"
    path.write_bytes(say("codex says"))
    wait_for(lambda: caught_up(live_store, path))
    with path.open("ab") as f:
        f.write(say("and more"))
    wait_for(lambda: caught_up(live_store, path))
    assert live_store.get_checkpoint(str(path)).host == "codex"
