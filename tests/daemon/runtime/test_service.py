"""The Daemon object in-process: lifecycle, the context server hooks, run_once, the stats file;
plus the single-instance lock, the log file and the settings file."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest
from memvet.daemon.commands import collect_status, run
from memvet.daemon.lock import DaemonRunningError, InstanceLock, running_pid
from memvet.daemon.logging_setup import configure_logging, describe
from memvet.daemon.roots import all_roots
from memvet.daemon.service import Daemon, DaemonState
from memvet.daemon.settings import ConfigError, DaemonSettings, load_settings

from .conftest import RecordingPipeline, review_policy, say, wait_for


class FakeContextServer:
    def __init__(self, store, socket_path: Path) -> None:  # noqa: ANN001
        self.socket_path = socket_path
        self.calls: list[str] = []

    def start(self) -> None:
        self.calls.append("start")

    def invalidate(self) -> None:
        self.calls.append("invalidate")

    def stop(self) -> None:
        self.calls.append("stop")


def make_daemon(store, tmp_path: Path, **kw) -> Daemon:  # noqa: ANN001, ANN003
    run_dir = tmp_path / "run"
    run_dir.mkdir(exist_ok=True)
    return Daemon(
        store,
        kw.pop("settings", DaemonSettings(debounce_ms=50)),
        review_policy(),
        all_roots(),
        pipeline_factory=RecordingPipeline,
        run_dir=run_dir,
        **kw,
    )


@pytest.mark.slow
def test_lifecycle_and_context_server_hooks(
    live_store, tmp_path, claude_project, recording
) -> None:
    servers: list[FakeContextServer] = []

    def factory(store, path: Path) -> FakeContextServer:  # noqa: ANN001
        servers.append(FakeContextServer(store, path))
        return servers[-1]

    daemon = make_daemon(live_store, tmp_path, context_server=factory)
    assert daemon.state is DaemonState.NOT_STARTED
    daemon.start()
    try:
        assert daemon.state is DaemonState.RUNNING
        assert servers[0].socket_path == tmp_path / "run" / "daemon.sock"
        wait_for(lambda: daemon.worker.batches >= 1)
        (claude_project / "s.jsonl").write_bytes(b'{"type": "noise"}\n')  # no candidate
        wait_for(lambda: live_store.get_checkpoint(str(claude_project / "s.jsonl")))
        assert "invalidate" not in servers[0].calls
        (claude_project / "t.jsonl").write_bytes(say("we use uv"))
        wait_for(lambda: "invalidate" in servers[0].calls)
    finally:
        daemon.stop()
    assert daemon.state is DaemonState.STOPPED
    assert servers[0].calls[0] == "start" and servers[0].calls[-1] == "stop"
    daemon.stop()  # idempotent


def test_a_context_server_that_fails_does_not_stop_ingestion(live_store, tmp_path, caplog) -> None:
    def broken(store, path):  # noqa: ANN001, ANN202
        raise RuntimeError("socket in use")

    daemon = make_daemon(live_store, tmp_path, context_server=broken)
    daemon._start_context_server()
    assert daemon.context is None
    assert "RuntimeError" in caplog.text and "socket in use" not in caplog.text


def test_run_once_ingests_and_runs_due_sweeps(
    live_store, tmp_path, claude_project, recording
) -> None:
    (claude_project / "s.jsonl").write_bytes(say("we use uv") + say("tabs"))
    daemon = make_daemon(live_store, tmp_path)
    stats = daemon.run_once()
    assert stats.outcomes["queued"] == 2
    assert set(live_store.sweep_runs()) == {
        "sweep.rescan",
        "sweep.stale_leases",
        "sweep.expire_candidates",
        "sweep.retire_memories",
        "sweep.decay_confidence",
        "sweep.verify_audit",
        "sweep.optimize_store",
        "sweep.review_flags",
        "sweep.reredact",
        "sweep.reindex_terms",
    }
    doc = json.loads((tmp_path / "run" / "daemon-stats.json").read_text())
    assert doc["stats"]["outcomes"] == {"queued": 2}
    assert "we use uv" not in json.dumps(doc)  # counts only
    assert stat.S_IMODE((tmp_path / "run" / "daemon-stats.json").stat().st_mode) == 0o600


def test_status_without_a_store(tmp_path) -> None:
    doc = collect_status(tmp_path / "nowhere")
    assert doc["running"] is False and doc["store"] == "not created yet"
    assert {r["host"] for r in doc["roots"]} == {"claude-code", "codex"}


def test_second_instance_is_refused_and_the_lock_dies_with_its_holder(tmp_path) -> None:
    run_dir = tmp_path / "run"
    first = InstanceLock(run_dir)
    first.acquire()
    try:
        assert running_pid(run_dir) == os.getpid()
        with pytest.raises(DaemonRunningError) as err:
            InstanceLock(run_dir).acquire()
        assert "already running" in err.value.message and str(os.getpid()) in err.value.message
        assert err.value.exit_code == 1
    finally:
        first.release()
    assert running_pid(run_dir) is None
    assert not (run_dir / "daemon.pid").exists()
    with InstanceLock(run_dir):  # free again
        pass


def test_log_file_is_private_and_rotating(tmp_path) -> None:
    path = configure_logging(tmp_path / "logs")
    configure_logging(tmp_path / "logs")  # idempotent: one file handler, not two
    logger = logging.getLogger("memvet.daemon")
    logger.info("hello %d", 1)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    handlers = [h for h in logging.getLogger("memvet").handlers if getattr(h, "_memvet", False)]
    assert len(handlers) == 1 and handlers[0].maxBytes > 0
    for handler in handlers:
        handler.flush()
    assert "hello 1" in path.read_text()
    for name in ("memvet", "apscheduler"):  # leave logging as other tests expect it
        owner = logging.getLogger(name)
        for handler in [h for h in owner.handlers if getattr(h, "_memvet", False)]:
            owner.removeHandler(handler)
            handler.close()
        owner.propagate = True
        owner.setLevel(logging.NOTSET)


def test_describe_keeps_messages_out_of_the_log() -> None:
    try:
        b"\xff secret".decode()
    except UnicodeDecodeError as exc:
        text = describe(exc)
    assert text.startswith("UnicodeDecodeError at test_service.py:")
    assert "secret" not in text


def test_settings_file(tmp_path, caplog) -> None:
    path = tmp_path / "config.toml"
    assert load_settings(path) == DaemonSettings()
    path.write_text(
        "[daemon]\ndebounce_ms = 50\nrescan_interval = 60.0\nfuture_key = 1\n"
        'extra_roots = ["~/transcripts"]\n[other]\nx = 1\n'
    )
    settings = load_settings(path)
    assert (settings.debounce_ms, settings.rescan_interval) == (50, 60)
    assert isinstance(settings.rescan_interval, int)
    assert settings.extra_roots == ("~/transcripts",)
    assert "future_key" in caplog.text
    for bad in (
        "[daemon]\nbatch_lines = -1\n",
        "[daemon]\nbatch_lines = true\n",
        "[daemon]\nextra_roots = 'x'\n",
        "daemon = 3\n",
        "[daemon\n",
    ):
        path.write_text(bad)
        with pytest.raises(ConfigError):
            load_settings(path)


def test_run_refuses_a_bad_policy_before_starting(tmp_path) -> None:
    home = Path(os.environ["MEMVET_HOME"])
    home.mkdir(parents=True)
    (home / "policy.toml").write_text('mode = "yolo"\n')
    with pytest.raises(ConfigError) as err:
        run(type("Args", (), {"once": True})())
    assert "mode must be one of" in err.value.message
    assert not (home / "run" / "daemon.pid").exists()


def test_backfill_progress_line() -> None:
    import io

    from memvet.daemon.ingestor import BatchReport
    from memvet.daemon.progress import BackfillProgress

    out = io.StringIO()
    progress = BackfillProgress(out, enabled=True, every_s=0)
    progress.scan_started(2, 3_000_000)
    progress.batch_done(BatchReport("/a", 10, 1_000_000, 2))
    progress.batch_done(BatchReport("/b", 10, 2_000_000, 1))
    progress.finish()
    assert out.getvalue().endswith("2/2 files, 3.0/3.0 MB, 3 candidates \n")
    quiet = io.StringIO()
    BackfillProgress(quiet).batch_done(BatchReport("/a", 1, 1, 1))  # not a terminal: silent
    assert quiet.getvalue() == ""
