"""Claude Code prompts typed while the agent was busy: `queue-operation` enqueue lines and
`queued_command` attachments, each read once, whatever echo of it follows (a `user` line when
the agent took it at the end of the turn, an attachment when it was folded into the running turn)."""

from __future__ import annotations

import json
from pathlib import Path

from memvet.daemon.hosts import SessionState, parser_for

from .conftest import run_pipeline

CC = "claude-code"
_BASE = {
    "parentUuid": None,
    "isSidechain": False,
    "userType": "external",
    "cwd": "/w",
    "sessionId": "s-1",
    "version": "2.1.99",
    "timestamp": "2026-01-01T00:00:00.000Z",
}


def _enqueue(text, stamp="2026-01-01T00:00:01.000Z") -> bytes:
    return json.dumps(
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": stamp,
            "sessionId": "s-1",
            "content": text,
        }
    ).encode()


def _op(operation: str, **extra) -> bytes:
    return json.dumps(
        {
            "type": "queue-operation",
            "operation": operation,
            "sessionId": "s-1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            **extra,
        }
    ).encode()


def _attachment(prompt, uuid="att-1", **attachment) -> bytes:
    body = {
        "type": "queued_command",
        "prompt": prompt,
        "commandMode": "prompt",
        "origin": {"kind": "human"},
        **attachment,
    }
    return json.dumps({**_BASE, "type": "attachment", "uuid": uuid, "attachment": body}).encode()


def _user(text, uuid) -> bytes:
    return json.dumps(
        {**_BASE, "type": "user", "uuid": uuid, "message": {"role": "user", "content": text}}
    ).encode()


def _assistant(text, mid="msg_1", uuid="a-1") -> bytes:
    return json.dumps(
        {
            **_BASE,
            "type": "assistant",
            "uuid": uuid,
            "message": {
                "id": mid,
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
            },
        }
    ).encode()


def _parse(*lines: bytes, state: SessionState | None = None):
    state = state or SessionState()
    parser = parser_for(CC, "/p/session.jsonl", state)
    return [parser.parse(line, n) for n, line in enumerate(lines, start=1)], state


def _users(results) -> list[str]:
    return [t.text for r in results for t in r.turns if t.role == "user"]


def test_an_enqueued_prompt_is_read_and_its_later_user_echo_is_not() -> None:
    results, _ = _parse(
        _user("start the server", "u-1"),
        _enqueue("we always use pnpm in this repo, never npm"),
        _op("dequeue"),
        _assistant("Started."),
        _user("we always use pnpm in this repo, never npm", "u-2"),  # the echo at the turn's end
        _user("we always use pnpm in this repo, never npm", "u-3"),  # typed again: a new prompt
    )
    assert _users(results) == [
        "start the server",
        "we always use pnpm in this repo, never npm",
        "we always use pnpm in this repo, never npm",
    ]
    assert [r.reason for r in results][4] == "queued_echo"
    queued = results[1].turns[0]
    assert queued.line == 2 and queued.timestamp == "2026-01-01T00:00:01.000Z"


def test_a_prompt_folded_into_the_running_turn_is_read_once() -> None:
    results, _ = _parse(
        _enqueue("tests live under tests/unit, not next to the code"),
        _attachment("tests live under tests/unit, not next to the code"),
        _op("remove", reason="absorbed_mid_turn"),
    )
    assert _users(results) == ["tests live under tests/unit, not next to the code"]
    assert [r.reason for r in results] == [None, "queued_echo", "queue-operation"]


def test_an_attachment_without_its_enqueue_line_is_a_prompt() -> None:
    """Older files or a checkpoint taken between the two: the attachment alone still counts."""
    results, _ = _parse(
        _attachment([{"type": "text", "text": "my laptop is an M2, arm64 builds only"}])
    )
    assert _users(results) == ["my laptop is an M2, arm64 builds only"]
    assert results[0].turns[0].message_id == "att-1"


def test_what_nobody_typed_is_not_a_queued_prompt() -> None:
    results, _ = _parse(
        _enqueue("/mcp"),  # a slash command
        _enqueue("/review the auth module"),
        _enqueue("   "),
        _enqueue(["not", "text"]),
        _attachment("a message from another session", uuid="p", origin={"kind": "peer"}),
        _attachment(
            "<task-notification><status>done</status></task-notification>",
            uuid="t",
            commandMode="task-notification",
        ),
        _attachment("note from a hook", uuid="m", isMeta=True),
        _op("popAll"),
        json.dumps(
            {
                **_BASE,
                "type": "attachment",
                "uuid": "f",
                "attachment": {"type": "file", "content": "queued_command appears in this file"},
            }
        ).encode(),
    )
    assert _users(results) == []
    assert [r.reason for r in results] == [
        "slash_command",
        "slash_command",
        "no_text",
        "bad_shape",
        "not_typed",
        "not_typed",
        "not_typed",
        "queue-operation",
        "attachment",
    ]


def test_a_path_is_not_a_slash_command() -> None:
    results, _ = _parse(_enqueue("/usr/local/bin is on PATH for every repo"))
    assert _users(results) == ["/usr/local/bin is on PATH for every repo"]


def test_queued_prompts_in_a_sidechain_are_not_the_persons() -> None:
    state = SessionState()
    parser = parser_for(CC, "/p/s/subagents/agent-a1.jsonl", state)
    assert parser.parse(_enqueue("always run the linter"), 1).reason == "sidechain"
    assert parser.parse(_attachment("always run the linter"), 2).reason == "sidechain"


def test_the_awaited_echo_survives_a_checkpoint_without_any_text() -> None:
    text = "the staging database is on port 5433"
    _, state = _parse(_enqueue(text))
    saved = json.dumps(state.to_dict())
    assert "5433" not in saved and "staging" not in saved  # fingerprints only
    restored = SessionState.from_dict(json.loads(saved))
    results, _ = _parse(_user(text, "u-9"), state=restored)
    assert results[0].reason == "queued_echo"


def test_the_pipeline_makes_a_candidate_from_a_queued_prompt(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    rule = "Always run ruff check before committing in this repo."
    path.write_bytes(
        b"\n".join(
            [
                _user("fix the failing import", "u-1"),
                _enqueue(rule),
                _assistant("Fixed the import."),
                _user(rule, "u-2"),
            ]
        )
        + b"\n"
    )
    drafts, pipeline = run_pipeline(CC, path)
    assert [d.statement for d in drafts] == [rule]
    assert drafts[0].evidence.line == 2
    assert pipeline.stats.skipped_by_reason["queued_echo"] == 1
