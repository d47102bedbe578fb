"""Bad input is skipped and counted with a content-free log line; the daemon keeps going and no
checkpoint is lost: malformed JSON, invalid UTF-8, huge lines, binary files, unreadable files,
FIFOs, files that vanish mid-read, symlink loops, a pipeline that raises."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from memvet.daemon.settings import DaemonSettings

from .conftest import (
    RecordingPipeline,
    claude_root,
    claude_user,
    make_ingestor,
    real_pipeline,
    say,
)

SECRET = "SECRET-TEXT-7f3a"
MB = 2**20


@pytest.fixture
def caplog_daemon(caplog):  # noqa: ANN001, ANN201
    caplog.set_level(logging.DEBUG, logger="memvet.daemon")
    return caplog


def assert_content_free(caplog, path: Path) -> None:  # noqa: ANN001
    assert SECRET not in caplog.text
    assert str(path) not in caplog.text and path.name not in caplog.text


def test_garbage_lines_between_good_ones(
    store, roots, claude_project, recording, caplog_daemon
) -> None:
    path = claude_project / "s.jsonl"
    path.write_bytes(
        say("before")
        + b'{"say": "'
        + SECRET.encode()
        + b'", broken\n'  # malformed JSON
        + b"\xff\xfe"
        + SECRET.encode()
        + b"\xc3\x28\n"  # invalid UTF-8
        + b"\x00" * 100
        + b"\n"  # NUL bytes
        + b'{"say": "'
        + SECRET.encode() * (3 * MB // len(SECRET))
        + b'"}\n'  # 3 MB
        + say("after")
    )
    ingestor = make_ingestor(store, settings=DaemonSettings(max_line_bytes=MB))
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.skipped["oversized_line"] == 1
    cp = store.get_checkpoint(str(path))
    assert (cp.offset, cp.line_no) == (path.stat().st_size, 6)
    assert {x[1] for x in recording.fed} == {1, 2, 3, 4, 6}  # the huge line is never fed
    assert max(len(x[2]) for x in recording.fed) < MB
    assert ingestor.stats.outcomes["queued"] == 2  # "before" and "after"
    assert "line 5" in caplog_daemon.text
    assert_content_free(caplog_daemon, path)


def test_a_binary_file_without_newlines_waits_and_is_not_reread(
    store, roots, claude_project, recording
) -> None:
    path = claude_project / "blob.jsonl"
    path.write_bytes(os.urandom(3 * MB).replace(b"\n", b"\x00"))
    ingestor = make_ingestor(store, settings=DaemonSettings(max_line_bytes=MB))
    ingestor.process(str(path), claude_root(roots))
    assert recording.fed == []
    assert store.get_checkpoint(str(path)).offset == 0  # the unfinished "line" is not counted


def test_a_binary_file_with_newlines(store, roots, claude_project, recording) -> None:
    path = claude_project / "blob.jsonl"
    path.write_bytes(os.urandom(256 * 1024) + b"\n")
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    assert store.get_checkpoint(str(path)).offset == path.stat().st_size
    fed = len(recording.fed)
    ingestor.process(str(path), claude_root(roots))
    assert len(recording.fed) == fed


def test_an_unreadable_file_is_skipped_and_keeps_its_checkpoint(
    store, roots, claude_project, recording, monkeypatch, caplog_daemon
) -> None:
    path = claude_project / "s.jsonl"
    path.write_bytes(say("one"))
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    with path.open("ab") as f:
        f.write(say("two"))

    def denied(_path: str):  # noqa: ANN202
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("memvet.daemon.ingestor.open_transcript", denied)
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.skipped["unreadable"] == 1
    assert store.get_checkpoint(str(path)).line_no == 1
    monkeypatch.undo()
    ingestor.process(str(path), claude_root(roots))  # readable again: picks up where it was
    assert [n for _, n, _ in recording.fed] == [1, 2]
    assert_content_free(caplog_daemon, path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_read_permission(store, roots, claude_project, recording) -> None:
    path = claude_project / "s.jsonl"
    path.write_bytes(say("one"))
    path.chmod(0)
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.skipped["unreadable"] == 1


def test_a_fifo_is_never_opened_for_reading(store, roots, claude_project, recording) -> None:
    path = claude_project / "pipe.jsonl"
    os.mkfifo(path)
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))  # would block forever without O_NONBLOCK
    assert ingestor.stats.skipped["not_regular_file"] == 1


def test_a_file_that_vanishes_mid_read(store, roots, claude_project, recording) -> None:
    path = claude_project / "s.jsonl"
    path.write_bytes(b"".join(say(f"line {i}") for i in range(5)))

    class Vanishing(RecordingPipeline):
        def feed(self, line: bytes, line_no: int):  # noqa: ANN201
            if line_no == 2 and path.exists():
                path.unlink()
            return super().feed(line, line_no)

    ingestor = make_ingestor(store, factory=Vanishing)
    ingestor.process(str(path), claude_root(roots))  # the open handle still reads to the end
    assert len(recording.fed) == 5
    ingestor.process(str(path), claude_root(roots))
    assert store.get_checkpoint(str(path)) is None


def test_a_symlink_loop_named_like_a_transcript(store, roots, claude_project, recording) -> None:
    a, b = claude_project / "a.jsonl", claude_project / "b.jsonl"
    a.symlink_to(b)
    b.symlink_to(a)
    ingestor = make_ingestor(store)
    ingestor.process(str(a), claude_root(roots))
    assert ingestor.stats.skipped["unreadable"] == 1


def test_a_pipeline_that_raises_costs_one_line(
    store, roots, claude_project, recording, caplog_daemon
) -> None:
    path = claude_project / "s.jsonl"
    path.write_bytes(say("one") + say(SECRET) + say("three"))

    class Fragile(RecordingPipeline):
        def feed(self, line: bytes, line_no: int):  # noqa: ANN201
            if SECRET.encode() in line:
                raise ValueError("parser bug")
            return super().feed(line, line_no)

    ingestor = make_ingestor(store, factory=Fragile)
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.skipped["pipeline_error"] == 1
    assert ingestor.stats.outcomes["queued"] == 2
    assert store.get_checkpoint(str(path)).line_no == 3
    assert_content_free(caplog_daemon, path)


def test_an_invalid_draft_is_dropped_not_fatal(store, roots, claude_project, recording) -> None:
    path = claude_project / "s.jsonl"
    path.write_bytes(say("   ") + say("fine"))  # an empty statement fails validation
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.skipped["invalid_draft"] == 1
    assert ingestor.stats.outcomes["queued"] == 1


def test_garbage_through_the_real_pipeline(store, roots, claude_project, caplog_daemon) -> None:
    """The same kinds of bad line, fed to the real parse → filter → redact → extract."""
    path = claude_project / "s.jsonl"
    path.write_bytes(
        claude_user("We always use uv for Python packaging in this repo.")
        + b'{"type": "user", "message": {"content": "'
        + SECRET.encode()
        + b'", broken\n'
        + b"\xff\xfe"
        + SECRET.encode()
        + b"\xc3\x28\n"
        + b"[1, 2, 3]\n"
        + b"\x00" * 64
        + b"\n"
        + claude_user("x" * (2 * MB))  # too long for the daemon: skipped before the parser
        + claude_user("Never commit directly to the main branch.")
    )
    ingestor = make_ingestor(
        store, settings=DaemonSettings(max_line_bytes=MB), factory=real_pipeline()
    )
    ingestor.process(str(path), claude_root(roots))
    cp = store.get_checkpoint(str(path))
    assert (cp.offset, cp.line_no) == (path.stat().st_size, 7)
    assert ingestor.stats.outcomes["queued"] == 2
    assert ingestor.stats.skipped["oversized_line"] == 1
    assert cp.extra["pipeline"]["cwd"] == "/home/dana/src/app"  # parser state kept
    assert_content_free(caplog_daemon, path)
