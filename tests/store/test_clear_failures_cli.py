"""Failures that must be clear (issue 9), as real `memvet` processes: invalid text in argv, a
reader that closed the pipe, a store another process holds locked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LAUNCHER = [sys.executable, "-m", "memvet.install.launcher"]


@pytest.fixture(autouse=True)
def file_key(monkeypatch):
    """Stores made in this process must be readable by the `memvet` subprocesses."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")


def memvet(*args: str | bytes, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*LAUNCHER, *args], capture_output=True, timeout=timeout, env=os.environ.copy()
    )


def home() -> Path:
    return Path(os.environ["MEMVET_HOME"])


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.decode()
    assert "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    return err


# --- invalid UTF-8 and lone surrogates in argv -------------------------------------------------

LONE_SURROGATE = b"we use uv\xed\xa0\x80"  # how \ud800 would be "encoded"
INVALID_BYTE = b"deploy with \xff make"


@pytest.mark.slow
@pytest.mark.parametrize("statement", [LONE_SURROGATE, INVALID_BYTE])
def test_propose_with_text_that_is_not_utf8_is_a_usage_error_in_one_line(statement):
    proc = memvet("propose", statement)
    assert proc.returncode == 2
    assert "not valid UTF-8" in one_line_error(proc)
    assert proc.stdout == b""

    proc = memvet("propose", statement, "--json")
    assert proc.returncode == 2 and proc.stderr == b""
    doc = json.loads(proc.stdout)
    assert doc["error"]["code"] == "invalid_text"
    assert "argument 2" in doc["error"]["message"]
    assert not (home() / "memvet.db").exists()  # nothing was written


@pytest.mark.slow
def test_invalid_utf8_anywhere_in_argv_is_refused_before_any_command_runs():
    proc = memvet("queue", "list", "--cwd", b"/tmp/\xc3(", "--json")
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["code"] == "invalid_text"
    assert not home().exists()


def test_the_argument_itself_is_not_echoed_in_the_message(capsys):
    from memvet.store.console import run_cli

    assert run_cli(["propose", "secret-ish \udcff text"]) == 2
    err = capsys.readouterr().err
    assert "secret-ish" not in err and "argument 2" in err


def propose_many(count: int) -> str:
    """A store with `count` operator candidates (a long queue listing); returns the last id."""
    from memvet.store import CandidateDraft, Scope, open_store

    store = open_store()
    try:
        scope = Scope(user=store.user, workspace=None, agent=None, session=None)
        results = store.admit_many(
            [
                CandidateDraft(
                    statement=f"we always use build tool number {i} in this project",
                    kind="fact",
                    source_type="operator",
                    scope=scope,
                    host="memvet",
                    confidence=1.0,
                    reasons=("operator typed",),
                )
                for i in range(count)
            ],
            actor="test",
        )
        return results[-1].candidate_id
    finally:
        store.close()


# --- a reader that goes away ----------------------------------------------------------------------


def _closed_pipe_run(*args: str) -> tuple[int, str]:
    """Start memvet with stdout a pipe whose reader is already gone (`… | head` that exited)."""
    proc = subprocess.Popen(
        [*LAUNCHER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy()
    )
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(timeout=60), err


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ("queue", "show", "ID"),
        ("queue", "list"),
        ("daemon", "status"),
        ("daemon", "status", "--json"),
    ],
)
def test_output_into_a_closed_pipe_ends_quietly(args):
    cid = propose_many(40)
    args = tuple(cid if a == "ID" else a for a in args)
    code, err = _closed_pipe_run(*args)
    assert "BrokenPipe" not in err and "Traceback" not in err, err
    assert code == 141  # as a shell reports a command ended by SIGPIPE
