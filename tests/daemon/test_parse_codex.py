"""Codex rollouts: real fixtures (../shared/fixtures/transcripts/codex) and hand-made lines for
the older formats and the cases the fixtures do not cover."""

from __future__ import annotations

import json
from pathlib import Path

from memvet.daemon.hosts import SessionState, parser_for
from memvet.daemon.hosts.turns import ERROR_REASONS

from .conftest import parse_file, user_texts

CX = "codex"


def test_every_codex_fixture_parses_without_errors(transcripts: Path) -> None:
    files = sorted((transcripts / "codex").rglob("*.jsonl"))
    assert len(files) >= 4
    for path in files:
        _, reasons, state = parse_file(CX, path)
        assert not set(reasons) & ERROR_REASONS, (path.name, reasons)
        assert "unknown_type" not in reasons, (path.name, reasons)
        assert state.session_id and state.host_version and state.cwd, path.name


def test_exec_session_prompt_counted_once_and_injections_dropped(transcripts: Path) -> None:
    path = (
        transcripts
        / "codex"
        / "codemie-code"
        / "rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"
    )
    assert user_texts(CX, path) == [
        "what is current repository about? summarize purpuse and explain goals"
    ]
    _, reasons, state = parse_file(CX, path)
    assert reasons["injected_context"] == 2 and reasons["echo"] == 1
    assert (
        state.session_id == "019b7f94-51b4-7593-922e-ba12b5b73b52"
        and state.host_version == "0.77.0"
    )


def test_tui_session_prompts(transcripts: Path) -> None:
    path = (
        transcripts
        / "codex"
        / "codemie-code"
        / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
    )
    texts = user_texts(CX, path)
    assert texts == ["show tools", "let's update the defailt context compart to 90 in env var"]
    assert not any(
        "AGENTS.md" in t or "<environment_context>" in t or "<permissions" in t for t in texts
    )


def test_sample_session_head(transcripts: Path) -> None:
    path = transcripts / "codex" / "simonw-claude-code-transcripts" / "sample_codex_session.jsonl"
    texts = user_texts(CX, path)
    assert len(texts) == 1 and texts[0].startswith("can you analyse the MD files in this directory")
    assert parse_file(CX, path)[2].cwd == "/Users/macmini/Code/homelab-migration"


def test_desktop_session_events_never_double_count(transcripts: Path) -> None:
    path = (
        transcripts
        / "codex"
        / "madshn-localpush"
        / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    )
    turns, reasons, _ = parse_file(CX, path)
    users = [t for t in turns if t.role == "user"]
    typed = sum(1 for line in path.read_text().splitlines() if '"type":"user_message"' in line)
    assert reasons["echo"] == typed  # every typed-prompt event was recognised as an echo
    assert not any(t.text.startswith("[REDACTED_MESSAGE") for t in users)
    assert reasons["compacted"] == 1 and reasons["developer_message"] >= 40


def _env(kind: str, payload: dict, ts: str = "2026-01-01T00:00:00.000Z") -> bytes:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload}).encode()


def _user_item(text: str) -> bytes:
    return _env(
        "response_item",
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
    )


def _parse(*lines: bytes):
    state = SessionState()
    parser = parser_for(CX, "/s/rollout.jsonl", state)
    return [parser.parse(line, n) for n, line in enumerate(lines, start=1)], state


def test_prompt_that_arrives_only_as_an_event_is_kept() -> None:
    results, _ = _parse(
        _env(
            "session_meta",
            {"id": "t-1", "cwd": "/repo", "cli_version": "0.153.4", "history_mode": "paginated"},
        ),
        _env(
            "event_msg",
            {
                "type": "item_completed",
                "item": {
                    "type": "UserMessage",
                    "id": "i",
                    "content": [{"type": "text", "text": "only an event"}],
                },
            },
        ),
        _env(
            "event_msg", {"type": "user_message", "message": "only an event"}
        ),  # the same text again
    )
    assert [r.turns[0].text for r in results if r.turns] == ["only an event"]
    assert results[2].reason == "echo"


def test_developer_compacted_and_subagent_threads() -> None:
    results, state = _parse(
        _env(
            "session_meta",
            {
                "id": "t-2",
                "cwd": "/repo",
                "cli_version": "0.130.0",
                "source": {"subagent": {"parent_thread_id": "t-1"}},
            },
        ),
        _env(
            "response_item",
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "x"}],
            },
        ),
        _env(
            "compacted",
            {
                "message": "",
                "replacement_history": [
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "old"}],
                    }
                ],
            },
        ),
        _user_item("written by the parent agent"),
        _env("some_future_kind", {"anything": 1}),  # world_state is known since 0.171
    )
    assert not any(r.turns for r in results)
    assert [r.reason for r in results[1:]] == [
        "developer_message",
        "compacted",
        "sidechain",
        "unknown_type",
    ]
    assert state.sidechain


def test_bare_era_file_and_request_wrapper() -> None:
    state = SessionState()
    parser = parser_for(CX, "/s/rollout-2025-08.jsonl", state)
    lines = [
        {
            "id": "bare-1",
            "timestamp": "2025-08-01T10:00:00Z",
            "instructions": None,
            "git": {"branch": "main"},
        },
        {"record_type": "state"},
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "<environment_context>\n<cwd>/home/u/app</cwd>\n</environment_context>",
                }
            ],
        },
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "context…\n## My request for Codex:\nwe always use tabs",
                }
            ],
        },
        {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c"},
    ]
    results = [parser.parse(json.dumps(line).encode(), n) for n, line in enumerate(lines, start=1)]
    assert [r.turns[0].text for r in results if r.turns] == ["we always use tabs"]
    assert state.session_id == "bare-1" and state.cwd == "/home/u/app"
    assert [r.reason for r in results if not r.turns] == [
        "session_meta",
        "state",
        "injected_context",
        "tool_or_reasoning",
    ]


def test_turn_context_updates_cwd_and_message_id() -> None:
    results, state = _parse(
        _env("session_meta", {"id": "t-3", "cwd": "/a", "cli_version": "0.125.0"}),
        _env("turn_context", {"turn_id": "turn-9", "cwd": "/b"}),
        _user_item("hello from b"),
    )
    assert state.cwd == "/b" and results[2].turns[0].message_id == "turn-9"
