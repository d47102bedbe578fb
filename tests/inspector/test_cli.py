"""`memvet inspect` and `memvet up`: registration, the daemon start, the keymap, and a store the
inspector must not migrate."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys

import pytest
from memvet.inspector import cli, launch
from memvet.store import SchemaMismatchError, open_store
from memvet.store.console import run_cli
from memvet.store.engine import create_store_engine
from memvet.store.paths import memvet_home
from memvet.store.schema import current_version


class FakeProcess:
    def __init__(self, code: int | None) -> None:
        self.code, self.pid = code, 31337

    def wait(self, timeout: float) -> int:
        if self.code is None:
            raise subprocess.TimeoutExpired("memvet", timeout)
        return self.code


def test_register_adds_inspect_and_up():
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    for name in ("inspect", "up"):
        args = parser.parse_args([name, "--theme", "textual-light"])
        assert callable(args.handler) and args.theme == "textual-light"


def test_a_running_daemon_means_no_new_daemon():
    from memvet.daemon.lock import InstanceLock

    calls = []
    with InstanceLock(memvet_home() / "run"):  # what a running daemon holds (this process)
        result = launch.ensure_daemon(popen=lambda *a, **k: calls.append(a))
    assert result.pid == os.getpid() and not result.started and calls == []


@pytest.mark.parametrize("content", ["999999999", "not a pid", ""])
def test_a_stale_or_broken_pid_file_is_ignored(content):
    run = memvet_home() / "run"
    run.mkdir(parents=True)
    (run / "daemon.pid").write_text(content)
    assert launch.running_daemon_pid() is None


def test_up_starts_the_daemon_detached_with_its_output_in_the_log():
    calls = []

    def popen(argv, **kwargs):
        calls.append((argv, kwargs))
        return FakeProcess(None)

    result = launch.ensure_daemon(popen=popen, grace=0.01)
    [(argv, kwargs)] = calls
    assert argv == [sys.executable, "-m", "memvet.install.launcher", "daemon", "run"]
    assert kwargs["start_new_session"] is True
    assert kwargs["stdout"].name == str(memvet_home() / "logs" / "daemon.out")
    assert result.started and "pid 31337" in result.note


def test_a_daemon_that_exits_at_once_leaves_a_note_and_the_inspector_opens():
    result = launch.ensure_daemon(popen=lambda argv, **kw: FakeProcess(2), grace=0.01)
    assert not result.started
    assert "did not start (exit 2" in result.note and "daemon.out" in result.note


@pytest.mark.slow
def test_the_real_daemon_command_is_started_through_the_launcher():
    result = launch.ensure_daemon(grace=3)
    # Whether the daemon command exists yet or not, `up` goes on to the inspector with a note.
    assert result.note
    assert (memvet_home() / "logs" / "daemon.out").exists()
    if result.started:  # ours, in its own session: stop it and whatever it started
        os.killpg(result.pid, signal.SIGTERM)


def test_keymap_file_maps_binding_ids_to_keys():
    home = memvet_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "keymap.toml").write_text('[keys]\nqueue-approve = "y"\nqueue-reject = "n"\n')
    assert launch.load_keymap() == {"queue-approve": "y", "queue-reject": "n"}
    (home / "keymap.toml").write_text("not toml [")
    assert launch.load_keymap() == {}


def test_the_inspector_never_migrates_a_store():
    open_store().close()
    engine = create_store_engine(memvet_home() / "memvet.db")
    older = current_version(engine) - 1
    with engine.begin() as conn:  # the store as an older memvet left it
        conn.exec_driver_sql(f"UPDATE store_meta SET value='{older}' WHERE key='schema_version'")
    with pytest.raises(SchemaMismatchError) as err:
        launch.open_for_inspection()
    assert "memvet migrate" in err.value.message
    assert current_version(engine) == older  # nothing was migrated
    engine.dispose()


def test_memvet_inspect_without_a_terminal_exits_2_before_opening_anything(capsys):
    assert run_cli(["inspect"]) == 2
    assert "needs a terminal" in capsys.readouterr().err
    assert not memvet_home().exists()


def test_inspect_opens_an_existing_store_and_returns_the_apps_exit_code(monkeypatch):
    open_store().close()  # a store at the current version
    ran = []

    def fake_run(self):
        ran.append(self.store is not None and self.startup_error is None)

    monkeypatch.setattr("memvet.inspector.app.ReviewApp.run", fake_run)
    assert launch.run_inspector(theme="textual-light") == 0
    assert ran == [True]


def test_up_on_a_fresh_machine_says_what_to_do_instead_of_an_empty_screen(capsys):
    from memvet.install.launcher import main

    assert main(["up"]) == 0
    out = capsys.readouterr().out
    assert "memvet setup claude-code" in out and "memvet demo" in out
    from memvet.store.paths import db_path, run_dir

    assert not db_path().exists() and not (run_dir() / "daemon.pid").exists()


def test_has_transcripts_finds_a_codex_rollout(tmp_path):
    import os
    from pathlib import Path

    from memvet.inspector.cli import has_transcripts

    assert not has_transcripts()
    day = Path(os.environ["CODEX_HOME"]) / "sessions" / "2026" / "03" / "01"
    day.mkdir(parents=True)
    (day / "rollout-x.jsonl").write_text("{}\n")
    assert has_transcripts()
