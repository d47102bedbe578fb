"""Claude Code transcripts: real fixtures (../shared/fixtures/transcripts/claude-code) and
hand-made lines for the cases the fixtures do not cover."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memvet.daemon.hosts import SessionState, parser_for
from memvet.daemon.hosts.turns import ERROR_REASONS

from .conftest import parse_file, user_texts

CC = "claude-code"


def test_every_claude_fixture_parses_without_errors(transcripts: Path) -> None:
    files = sorted((transcripts / "claude-code").rglob("*.jsonl"))
    assert len(files) >= 6
    for path in files:
        _, reasons, state = parse_file(CC, path)
        assert not set(reasons) & ERROR_REASONS, (path.name, reasons)
        assert "unknown_type" not in reasons, (path.name, reasons)
        assert state.session_id and state.host_version, path.name


def test_tool_heavy_prompts_and_non_prompts(transcripts: Path) -> None:
    path = transcripts / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"
    texts = user_texts(CC, path)
    assert texts == [
        "start phoenix in background",
        "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
        "websearch xterm.js tmux interactions",
    ]
    joined = "\n".join(texts)
    for non_prompt in (
        "[Request interrupted by user]",
        "<command-name>",
        "<local-command-stdout>",
        "local-command-caveat",
        "Command running in background",
    ):
        assert non_prompt not in joined
    _, reasons, state = parse_file(CC, path)
    assert (
        reasons["tool_result"] >= 5
        and reasons["meta"] == 1
        and reasons["command_or_interrupt"] == 4
    )
    assert state.session_id == "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
    assert state.cwd == "/home/marco/projects/spotter" and state.host_version == "2.1.38"


def test_codemie_session_prompts(transcripts: Path) -> None:
    path = (
        transcripts
        / "claude-code"
        / "codemie-code"
        / "-tmp-private"
        / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    )
    assert user_texts(CC, path) == [
        "create hello.py, md and js",
        "update py with one liner comment",
        "delete js",
    ]


def test_summary_lines_and_thinking_are_not_prompts(transcripts: Path) -> None:
    path = transcripts / "claude-code" / "codemie-code" / "incremental-simple" / "turn-1.jsonl"
    turns, reasons, _ = parse_file(CC, path)
    assert [t.text for t in turns if t.role == "user"] == ["show tools"]
    assert reasons["summary"] == 15


@pytest.mark.parametrize(
    "relative",
    [
        "codemie-code/-tmp-private/agent-36541525.jsonl",  # old layout: "Warmup" written by the main agent
        "marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        "marot-spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl",
    ],
)
def test_sidechain_transcripts_have_no_user_prompts(transcripts: Path, relative: str) -> None:
    turns, reasons, state = parse_file(CC, transcripts / "claude-code" / relative)
    assert [t for t in turns if t.role == "user"] == []
    assert state.sidechain and reasons.get("sidechain", 0) >= 1


def _line(**fields) -> bytes:
    base = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/w",
        "sessionId": "s-1",
        "version": "2.1.99",
        "timestamp": "2026-01-01T00:00:00.000Z",
    }
    return json.dumps({**base, **fields}).encode()


def _user(text, uuid="u-1", **extra) -> bytes:
    return _line(type="user", message={"role": "user", "content": text}, uuid=uuid, **extra)


def _parse(*lines: bytes, path: str = "/p/session.jsonl"):
    state = SessionState()
    parser = parser_for(CC, path, state)
    return [parser.parse(line, n) for n, line in enumerate(lines, start=1)], state


def test_injected_and_structural_user_lines_are_rejected() -> None:
    results, _ = _parse(
        _user("keep this", uuid="a"),
        _user("keep this", uuid="a"),  # the same uuid again (resume/rewind)
        _user("meta text", uuid="b", isMeta=True),
        _user("summary…", uuid="c", isCompactSummary=True),
        _user("sub-agent prompt", uuid="d", isSidechain=True),
        _user([{"type": "tool_result", "tool_use_id": "t", "content": "out"}], uuid="e"),
        _user(
            [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "AA"},
                }
            ],
            uuid="f",
        ),
        _user("[Request interrupted by user for tool use]", uuid="g"),
        _user(
            [
                {"type": "text", "text": "first"},
                {"type": "tool_result", "tool_use_id": "t"},
                {"type": "text", "text": "second"},
            ],
            uuid="h",
        ),
    )
    assert [r.turns[0].text for r in results if r.turns] == ["keep this", "first\n\nsecond"]
    assert [r.reason for r in results if not r.turns] == [
        "duplicate",
        "meta",
        "compact_summary",
        "sidechain",
        "tool_result",
        "no_text",
        "command_or_interrupt",
    ]


def test_assistant_blocks_are_grouped_by_message_id() -> None:
    def block(mid, kind, uuid):
        content = (
            {"type": kind, "text": "hi"}
            if kind == "text"
            else {"type": kind, "id": "t", "name": "Bash", "input": {}}
        )
        return _line(
            type="assistant",
            uuid=uuid,
            message={"id": mid, "role": "assistant", "content": [content]},
        )

    results, state = _parse(
        block("msg_1", "text", "x1"), block("msg_1", "tool_use", "x2"), block("msg_2", "text", "x3")
    )
    assert [len(r.turns) for r in results] == [1, 0, 1]
    assert all(t.text == "" for r in results for t in r.turns)  # text not kept unless asked for
    assert state.last_assistant_id == "msg_2"
    state = SessionState()
    parser = parser_for(CC, "/p/s.jsonl", state, want_assistant=True)
    assert parser.parse(block("msg_3", "text", "x4"), 1).turns[0].text == "hi"


def test_unknown_and_malformed_lines_are_counted_not_fatal() -> None:
    results, _ = _parse(
        _line(type="brand-new-type", uuid="n"),
        b'{"type":"user",',
        b"\xff\xfe",
        b"[1,2]",
        b'{"no_type":1}',
        _line(type="attachment", attachment={"type": "file"}),
    )
    assert [r.reason for r in results] == [
        "unknown_type",
        "invalid_json",
        "invalid_utf8",
        "not_an_object",
        "bad_shape",
        "attachment",
    ]


def test_state_round_trip_keeps_dedupe_and_session() -> None:
    results, state = _parse(_user("hello there friend", uuid="same"))
    restored = SessionState.from_dict(json.loads(json.dumps(state.to_dict())))
    parser = parser_for(CC, "/p/session.jsonl", restored)
    assert parser.parse(_user("hello there friend", uuid="same"), 2).reason == "duplicate"
    assert restored.session_id == "s-1" and restored.cwd == "/w"
