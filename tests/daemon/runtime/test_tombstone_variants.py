"""Issue 9: a statement rejected once is not queued again from a transcript when the user
types it with a trailing 。, in curly quotes, with a soft hyphen or with a Cyrillic `о`."""

from __future__ import annotations

from pathlib import Path

import pytest
from memvet.store import QueueFilter, open_store

from .conftest import claude_tool_result, claude_user, memvet

pytestmark = pytest.mark.slow

SAID = "We always use uv for Python packaging in this repo."
DISGUISED = [
    "We always use uv for Python packaging in this repo。",
    "“We always use uv for Python packaging in this repo.”",
    "We always use uv for Python pack\u00adaging in this repo.",
    "We always use uv for Pythоn packaging in this repо.",
]  # U+043E


def transcript(texts: list[str], session: str) -> bytes:
    return b"".join(
        claude_user(t, session=session) + claude_tool_result("ok\n", session=session) for t in texts
    )


def test_disguised_repeats_in_a_transcript_are_not_queued(file_key, claude_project: Path) -> None:
    (claude_project / "s-1.jsonl").write_bytes(transcript([SAID], "s-1"))
    assert memvet("daemon", "run", "--once").returncode == 0
    store = open_store(schema="never")
    try:
        reader = store.reader_for(None, all_scopes=True)
        queued = store.list_candidates(reader, QueueFilter(statuses=("pending",)))
        assert len(queued) == 1, "the pipeline found no statement in the test session"
        store.reject(queued[0].id, actor="operator", reason="not true")
    finally:
        store.close()
    (claude_project / "s-2.jsonl").write_bytes(transcript(DISGUISED, "s-2"))
    assert memvet("daemon", "run", "--once").returncode == 0
    store = open_store(schema="never")
    try:
        reader = store.reader_for(None, all_scopes=True)
        assert store.list_candidates(reader, QueueFilter(statuses=("pending",))) == []
        assert store.list_tombstones()[0].seen_again == len(DISGUISED)
    finally:
        store.close()
