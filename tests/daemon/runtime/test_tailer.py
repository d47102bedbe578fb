"""Tailing one file through its checkpoint: append, partial line, truncate, rotate, delete,
move, batches, parser state, and exactly-once when a batch fails to commit."""

from __future__ import annotations

import io
import os

import pytest
from memvet.daemon.settings import DaemonSettings
from memvet.daemon.tailer import fingerprint_of, read_lines, same_start
from memvet.store import CandidateDraft

from .conftest import RecordingPipeline, claude_root, make_ingestor, say


def fed_lines(recording: type[RecordingPipeline]) -> list[tuple[int, bytes]]:
    return [(n, line) for _path, n, line in recording.fed]


def statements(store) -> dict[str, int]:  # noqa: ANN001
    reader = store.reader_for(None, all_scopes=True)
    from memvet.store import QueueFilter

    rows = store.list_candidates(reader, QueueFilter(statuses=("pending",)))
    return {c.statement: c.evidence_count for c in rows}


def test_read_lines_stops_before_a_partial_line() -> None:
    data = io.BytesIO(b"one\ntwo\nthr")
    lines = list(read_lines(data, 0, 100))
    assert lines == [(b"one", 4), (b"two", 8)]
    assert list(read_lines(data, 8, 100)) == []


def test_read_lines_skips_an_oversized_line_in_bounded_chunks() -> None:
    data = io.BytesIO(b"a\n" + b"x" * 5000 + b"\nb\n" + b"y" * 5000)
    lines = list(read_lines(data, 0, 100))
    assert [data for data, _ in lines] == [b"a", None, b"b"]
    assert lines[1][1] == 2 + 5001  # the skipped line is consumed whole, then "b"


def test_fingerprint_grows_with_a_small_file() -> None:
    fp = fingerprint_of(b"abc")
    assert same_start(fp, b"abcdef")
    assert not same_start(fp, b"xbcdef")
    assert not same_start(fingerprint_of(b"a" * 2000), b"a" * 10)


def test_append_reads_only_new_lines_once(store, roots, claude_project, recording) -> None:
    path = claude_project / "s-1.jsonl"
    path.write_bytes(say("we use uv") + say("tabs are banned"))
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    with path.open("ab") as f:
        f.write(say("run tests with pytest -q"))
    ingestor.process(str(path), claude_root(roots))
    ingestor.process(str(path), claude_root(roots))  # nothing new: nothing fed
    assert [n for n, _ in fed_lines(recording)] == [1, 2, 3]
    cp = store.get_checkpoint(str(path))
    assert cp.offset == path.stat().st_size and cp.line_no == 3
    assert cp.extra["pipeline"] == {"lines": 3}  # parser state persisted with the offset
    assert set(statements(store)) == {"we use uv", "tabs are banned", "run tests with pytest -q"}


def test_partial_line_waits_for_its_newline(store, roots, claude_project, recording) -> None:
    path = claude_project / "s-1.jsonl"
    whole = say("we deploy on fridays never")
    path.write_bytes(say("first") + whole[:10])
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    assert store.get_checkpoint(str(path)).offset == len(say("first"))
    with path.open("ab") as f:
        f.write(whole[10:])
    ingestor.process(str(path), claude_root(roots))
    assert [line for _, line in fed_lines(recording)] == [say("first")[:-1], whole[:-1]]
    assert statements(store) == {"first": 1, "we deploy on fridays never": 1}


def test_truncated_file_is_read_again_from_the_start(
    store, roots, claude_project, recording
) -> None:
    path = claude_project / "s-1.jsonl"
    path.write_bytes(say("one") + say("two") + say("three"))
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    with path.open("r+b") as f:  # same inode, shorter content
        f.truncate(0)
        f.write(say("new"))
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.resets["truncated"] == 1
    assert fed_lines(recording)[-1] == (1, say("new")[:-1])
    cp = store.get_checkpoint(str(path))
    assert (cp.offset, cp.line_no, cp.extra["pipeline"]) == (len(say("new")), 1, {"lines": 1})


def test_replaced_file_with_a_new_inode_is_read_again(
    store, roots, claude_project, recording
) -> None:
    path = claude_project / "s-1.jsonl"
    path.write_bytes(say("alpha") + say("beta"))
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    tmp = claude_project / "rotated.tmp"
    tmp.write_bytes(say("gamma") + say("delta") + say("epsilon"))
    keep = claude_project / "keep-inode-alive"
    os.link(path, keep)  # so the new file cannot reuse the old inode number
    os.replace(tmp, path)
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.resets["replaced"] == 1
    assert [n for n, _ in fed_lines(recording)] == [1, 2, 1, 2, 3]
    assert store.get_checkpoint(str(path)).inode == path.stat().st_ino


def test_same_inode_new_content_counts_as_replaced(store, roots, claude_project, recording) -> None:
    """Inode numbers are reused after a delete: the fingerprint of the first bytes tells."""
    path = claude_project / "s-1.jsonl"
    path.write_bytes(say("alpha"))
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    with path.open("r+b") as f:
        f.write(say("omega") + say("more"))  # overwritten in place, longer than before
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.resets["replaced"] == 1
    assert "omega" in statements(store)


def test_deleted_file_forgets_its_checkpoint(store, roots, claude_project, recording) -> None:
    path = claude_project / "s-1.jsonl"
    path.write_bytes(say("one"))
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    path.unlink()
    ingestor.process(str(path), claude_root(roots))
    assert store.get_checkpoint(str(path)) is None
    assert ingestor.tracked() == []


def test_moved_file_keeps_its_checkpoint(store, roots, claude_project, recording) -> None:
    """Codex archives a session by renaming it: it must not be read twice."""
    path = claude_project / "s-1.jsonl"
    path.write_bytes(say("one") + say("two"))
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    moved = claude_project / "s-1-renamed.jsonl"
    os.rename(path, moved)
    with moved.open("ab") as f:
        f.write(say("three"))
    ingestor.process(str(moved), claude_root(roots))
    assert [n for n, _ in fed_lines(recording)] == [1, 2, 3]
    assert store.get_checkpoint(str(path)) is None
    assert store.get_checkpoint(str(moved)).line_no == 3
    assert statements(store) == {"one": 1, "two": 1, "three": 1}


def test_batches_commit_candidates_with_their_offset(
    store, roots, claude_project, recording, monkeypatch
) -> None:
    path = claude_project / "s-1.jsonl"
    lines = [say(f"statement {i}") for i in range(7)]
    path.write_bytes(b"".join(lines))
    calls = []
    real_ingest = store.ingest

    def spy(checkpoint, drafts: list[CandidateDraft]):  # noqa: ANN001, ANN202
        calls.append((checkpoint.offset, checkpoint.line_no, len(drafts)))
        return real_ingest(checkpoint, drafts)

    monkeypatch.setattr(store, "ingest", spy)
    ingestor = make_ingestor(store, settings=DaemonSettings(batch_lines=3))
    ingestor.process(str(path), claude_root(roots))
    ends = [sum(len(x) for x in lines[:n]) for n in (3, 6, 7)]
    assert calls == [(ends[0], 3, 3), (ends[1], 6, 3), (ends[2], 7, 1)]


def test_a_failed_commit_loses_and_duplicates_nothing(
    store, roots, claude_project, recording, monkeypatch
) -> None:
    """The in-process twin of the kill -9 test: the second batch's transaction fails, the
    pass is repeated, and every statement ends up queued exactly once."""
    path = claude_project / "s-1.jsonl"
    path.write_bytes(b"".join(say(f"statement {i}") for i in range(10)))
    real_ingest = store.ingest
    failures = iter([False, True])

    def flaky(checkpoint, drafts):  # noqa: ANN001, ANN202
        if next(failures, False):
            raise RuntimeError("disk full")
        return real_ingest(checkpoint, drafts)

    monkeypatch.setattr(store, "ingest", flaky)
    ingestor = make_ingestor(store, settings=DaemonSettings(batch_lines=4))
    with pytest.raises(RuntimeError):
        ingestor.process(str(path), claude_root(roots))
    assert store.get_checkpoint(str(path)).line_no == 4
    ingestor.process(str(path), claude_root(roots))
    assert statements(store) == {f"statement {i}": 1 for i in range(10)}
    assert store.get_checkpoint(str(path)).extra["pipeline"] == {"lines": 10}
    # lines 5..8 were fed twice (the failed batch), but admitted once
    assert [n for n, _ in fed_lines(recording)].count(5) == 2


def test_a_new_empty_file_is_tracked(store, roots, claude_project, recording) -> None:
    path = claude_project / "s-1.jsonl"
    path.write_bytes(b"")
    ingestor = make_ingestor(store)
    ingestor.process(str(path), claude_root(roots))
    assert store.get_checkpoint(str(path)).offset == 0
