"""`FilePipeline.feed` must never raise, whatever a transcript line holds, and must never need
its last-resort exception guard (an `internal_error` would be a parser bug hidden by it)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memvet.daemon.pipeline import HOSTS, FilePipeline, load_rules

from .conftest import DATA

RULES = load_rules()
REAL_LINES = [
    line
    for name in ("labelled_claude.jsonl", "labelled_codex.jsonl")
    for line in (DATA / name).read_bytes().splitlines()
]
FIELDS = [
    "type",
    "payload",
    "message",
    "content",
    "role",
    "text",
    "uuid",
    "sessionId",
    "cwd",
    "version",
    "isMeta",
    "isSidechain",
    "isCompactSummary",
    "id",
    "timestamp",
    "item",
    "turn_id",
    "source",
    "cli_version",
    "record_type",
    "instructions",
    "toolUseResult",
    "subtype",
    "data",
]
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.sampled_from(
        [
            "user",
            "assistant",
            "response_item",
            "event_msg",
            "session_meta",
            "message",
            "user_message",
            "item_completed",
            "UserMessage",
            "text",
            "input_text",
            "tool_result",
            "compacted",
            "turn_context",
            "developer",
            "system",
        ]
    ),
)
JSONISH = st.recursive(
    VALUES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(FIELDS), inner, max_size=6)
    ),
    max_leaves=25,
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _feed_all(host: str, lines: list[bytes]) -> FilePipeline:
    pipeline = FilePipeline(host, "/tmp/fuzz/session.jsonl", rules=RULES, user="fuzz")
    for n, line in enumerate(lines, start=1):
        drafts = pipeline.feed(line, n)
        assert isinstance(drafts, list)
    assert pipeline.stats.lines == len(lines)
    assert "internal_error" not in pipeline.stats.skipped_by_reason, (
        pipeline.stats.skipped_by_reason
    )
    json.dumps(pipeline.state)  # the checkpoint state stays serialisable whatever came in
    return pipeline


@FUZZ
@given(host=st.sampled_from(HOSTS), lines=st.lists(st.binary(max_size=300), max_size=8))
def test_random_bytes(host: str, lines: list[bytes]) -> None:
    _feed_all(host, lines)


@FUZZ
@given(host=st.sampled_from(HOSTS), index=st.integers(0, len(REAL_LINES) - 1), data=st.data())
def test_mutated_and_truncated_real_lines(host: str, index: int, data: st.DataObject) -> None:
    line = bytearray(REAL_LINES[index])
    for _ in range(data.draw(st.integers(0, 6))):
        pos = data.draw(st.integers(0, max(0, len(line) - 1)))
        action = data.draw(st.sampled_from(["flip", "drop", "insert"]))
        if action == "flip" and line:
            line[pos] = data.draw(st.integers(0, 255))
        elif action == "drop" and line:
            del line[pos]
        else:
            line[pos:pos] = data.draw(st.binary(min_size=1, max_size=8))
    cut = data.draw(st.integers(0, len(line)))
    _feed_all(host, [bytes(line), bytes(line[:cut]), REAL_LINES[index]])


@FUZZ
@given(
    host=st.sampled_from(HOSTS),
    record=st.dictionaries(st.sampled_from(FIELDS), JSONISH, max_size=8),
)
def test_structurally_wrong_records(host: str, record: dict) -> None:
    _feed_all(host, [json.dumps(record).encode()])


def test_deep_nesting_and_huge_strings() -> None:
    deep = (
        b'{"type":"user","message":{"role":"user","content":'
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}}"
    )
    huge_text = "we always use pnpm. " + "x" * 3_000_000
    huge_user = json.dumps(
        {"type": "user", "uuid": "h", "message": {"role": "user", "content": huge_text}}
    ).encode()
    huge_item = json.dumps(
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": huge_text}],
            },
        }
    ).encode()
    for host in HOSTS:
        pipeline = _feed_all(host, [deep, huge_user, huge_item, b"", b"   ", b"\x00" * 1000])
        assert pipeline.stats.skipped_by_reason.get("invalid_json", 0) >= 1


def test_line_over_the_size_limit_is_skipped_undecoded() -> None:
    from memvet.daemon.hosts.turns import MAX_LINE_BYTES

    too_long = b'{"type":"user","pad":"' + b"a" * MAX_LINE_BYTES + b'"}'
    pipeline = _feed_all("claude-code", [too_long])
    assert (
        pipeline.stats.skipped_by_reason == {"line_too_long": 1}
        and pipeline.stats.skipped_lines == 1
    )
