"""Issue 9: an unpaired surrogate (`\\ud800`, as Node writes one) must not stop a transcript's
ingestion. It becomes U+FFFD at parse time; a draft that still cannot be stored is a counted
skipped line, never a failed batch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memvet.daemon.hosts import SessionState, parser_for
from memvet.store import QueueFilter, open_store
from memvet.store.paths import memvet_home

from .conftest import claude_tool_result, claude_user, codex_meta, make_draft, memvet

pytestmark = pytest.mark.slow

BEFORE = "We always use uv for Python packaging in this repo."
BROKEN = "Never commit directly to the main branch \ud800 of this repo."
AFTER = "We use pytest -q to run the tests, always."


def _pending(store) -> list[str]:  # noqa: ANN001
    reader = store.reader_for(None, all_scopes=True)
    return [
        c.statement
        for c in store.list_candidates(reader, QueueFilter(statuses=("pending",)), limit=None)
    ]


def test_a_prompt_with_a_lone_surrogate_stops_nothing(file_key, claude_project: Path) -> None:
    path = claude_project / "s-1.jsonl"
    lines = [
        claude_user(BEFORE),
        claude_tool_result("ok"),
        claude_user(BROKEN),
        claude_tool_result("ok"),
        claude_user(AFTER),
    ]
    assert b"\\ud800" in lines[2]  # the JSON escape itself, as Node writes it
    path.write_bytes(b"".join(lines))
    done = memvet("daemon", "run", "--once")
    assert done.returncode == 0, done.stderr
    store = open_store(schema="never")
    try:
        queued = _pending(store)
        assert BEFORE in queued and AFTER in queued
        assert BROKEN.replace("\ud800", "\ufffd") in queued
        cp = {c.path: c for c in store.all_checkpoints()}[str(path)]
        assert cp.offset == path.stat().st_size  # the checkpoint passed the line
    finally:
        store.close()
    stats = json.loads((memvet_home() / "run" / "daemon-stats.json").read_text())["stats"]
    assert "pipeline_error" not in stats["skipped"]


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_parsers_replace_lone_surrogates_in_every_field(host: str) -> None:
    parser = parser_for(host, "/t.jsonl", SessionState())
    if host == "codex":
        parser.parse(codex_meta(cwd="/home/dana/\ud800app").rstrip(b"\n"), 1)
        line = json.dumps(
            {
                "timestamp": "2026-03-01T09:00:01.000Z",
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": BROKEN}],
                },
            }
        ).encode()
    else:
        line = claude_user(BROKEN, cwd="/home/dana/\ud800app", session="s-\udc00").rstrip(b"\n")
    turns = parser.parse(line, 2).turns
    assert [t.text for t in turns] == [BROKEN.replace("\ud800", "\ufffd")]
    state = parser.state if hasattr(parser, "state") else None
    for value in (state.cwd, state.session_id) if state else ():
        assert value is None or not any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)
    for turn in turns:
        for value in turn:
            if isinstance(value, str):
                value.encode("utf-8")  # raises on a lone surrogate


def test_a_draft_that_cannot_be_stored_is_dropped_not_a_failed_batch(
    store, roots, claude_project
) -> None:
    from memvet.store import Checkpoint

    good, empty = make_draft(BEFORE), make_draft("\x1b[31m\x1b[0m")  # nothing left once cleaned
    odd = make_draft(AFTER, path="/x/\udcff.jsonl")  # a path with an undecodable byte
    cp = Checkpoint(
        path="/x.jsonl",
        host="claude-code",
        device=1,
        inode=2,
        fingerprint="f",
        offset=10,
        line_no=3,
    )
    results = store.ingest(cp, [good, empty, odd])
    assert [r.outcome for r in results] == ["queued", "dropped", "queued"]
    assert {c.path: c.offset for c in store.all_checkpoints()} == {"/x.jsonl": 10}
    assert sorted(_pending(store)) == sorted([BEFORE, AFTER])
