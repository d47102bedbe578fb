"""Under systemd the daemon's stderr is the journal (JOURNAL_STREAM names it): the log goes there
as well as to the file, still without a word of what the user typed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from .conftest import MEMVET, claude_tool_result, claude_user, daemon_env

pytestmark = pytest.mark.slow

SECRET_WORDS = "We always deploy with the zebracorn pipeline on Fridays."


def run_once_with_stderr(tmp_path: Path, journal: str | None) -> tuple[str, str]:
    """(stderr, log file) of `memvet daemon run --once`; `journal` is JOURNAL_STREAM, where
    "match" stands for the dev:inode of the very file the child's stderr is."""
    err_path = tmp_path / f"stderr-{journal}.txt"
    with err_path.open("w") as err:
        st = os.fstat(err.fileno())
        env = daemon_env()
        env.pop("JOURNAL_STREAM", None)
        if journal is not None:
            env["JOURNAL_STREAM"] = f"{st.st_dev}:{st.st_ino}" if journal == "match" else journal
        done = subprocess.run(
            [str(MEMVET), "daemon", "run", "--once"],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=err,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, err_path.read_text()
    log = Path(os.environ["MEMVET_HOME"]) / "logs" / "daemon.log"
    return err_path.read_text(), log.read_text()


def log_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if " pid=" in line and "Z " in line]


@pytest.fixture
def a_session(file_key, claude_project: Path) -> None:
    (claude_project / "s-1.jsonl").write_bytes(
        claude_user(SECRET_WORDS) + claude_tool_result("ok\n" * 20)
    )


def test_journal_stream_gets_the_log_lines_content_free(a_session, tmp_path):
    stderr, log = run_once_with_stderr(tmp_path, "match")
    echoed = log_lines(stderr)
    assert echoed, stderr
    assert set(echoed) <= set(log_lines(log))  # the same lines, the file still written
    assert "zebracorn" not in stderr and "zebracorn" not in log


@pytest.mark.parametrize("journal", [None, "", "1:2"])
def test_without_the_journal_stderr_carries_no_log_lines(a_session, tmp_path, journal):
    stderr, log = run_once_with_stderr(tmp_path, journal)
    assert log_lines(log), "the daemon logged nothing; the test would prove nothing"
    assert log_lines(stderr) == []
