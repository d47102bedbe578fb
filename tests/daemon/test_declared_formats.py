"""Transcript lines are decoded into their declared types (daemon/hosts/formats.py); a line that
does not fit its declaration is read as a dict, with the same result it would have had.

test_fast_paths.py checks that both readings agree on every real line; these check that the
declared reading is the one used, and what happens to the lines it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memvet.daemon.hosts import SessionState, parser_for

from .conftest import DATA


def _typed_share(host: str, lines: list[bytes]) -> float:
    parser = parser_for(host, f"/p/{host}.jsonl", SessionState())
    typed = sum(parser._from_bytes(line.strip(), n) is not None for n, line in enumerate(lines, 1))
    return typed / len(lines)


@pytest.mark.parametrize(
    ("host", "name"), [("claude-code", "labelled_claude.jsonl"), ("codex", "labelled_codex.jsonl")]
)
def test_most_lines_are_read_through_their_declared_type(host: str, name: str) -> None:
    """A declaration that stopped matching what the host writes would send every line to the
    slow dict reading without changing a single result: only this share shows it."""
    lines = [line for line in (DATA / name).read_bytes().splitlines() if line.strip()]
    assert _typed_share(host, lines) >= 0.75  # Codex prompts and their echoes are read as dicts


def test_real_claude_code_tool_and_assistant_lines_fit(shared_dir: Path) -> None:
    folder = shared_dir / "fixtures" / "transcripts" / "claude-code"
    lines = [
        line
        for path in sorted(folder.rglob("*.jsonl"))
        for line in path.read_bytes().splitlines()
        if json.loads(line).get("type") in ("assistant", "progress")
    ]
    assert lines and _typed_share("claude-code", lines) == 1.0


def _parse(host: str, record: dict) -> tuple:
    parser = parser_for(host, f"/p/{host}.jsonl", SessionState())
    return parser.parse(json.dumps(record).encode(), 1)


def _refused(host: str, record: dict) -> bool:
    parser = parser_for(host, f"/p/{host}.jsonl", SessionState())
    return parser._from_bytes(json.dumps(record).encode(), 1) is None


def test_a_field_of_another_type_is_read_as_a_dict_and_the_prompt_is_kept() -> None:
    """`isMeta: "yes"` does not fit `bool | None`: read as a dict, where only `true` is meta."""
    record = {
        "type": "user",
        "isMeta": "yes",
        "uuid": "u1",
        "sessionId": "s",
        "message": {"role": "user", "content": "Always use uv here."},
    }
    assert _refused("claude-code", record)
    turns, reason = _parse("claude-code", record)
    assert reason is None and [t.text for t in turns] == ["Always use uv here."]
    turns, reason = _parse("claude-code", {**record, "isMeta": True, "uuid": "u2"})
    assert (turns, reason) == ((), "meta")


def test_an_undeclared_line_type_is_counted_as_unknown() -> None:
    assert _parse("claude-code", {"type": "brand-new-kind", "sessionId": "s"})[1] == "unknown_type"
    envelope = {"type": "brand_new_kind", "timestamp": "t", "payload": {"type": "x"}}
    assert _parse("codex", envelope)[1] == "unknown_type"


def test_codex_payload_of_another_type_falls_back_and_still_reads_the_prompt() -> None:
    record = {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "id": 17,  # not a str: the declared reading refuses the line
            "content": [{"type": "input_text", "text": "We deploy with make ship."}],
        },
    }
    assert _refused("codex", record)
    turns, reason = _parse("codex", record)
    assert reason is None and [t.text for t in turns] == ["We deploy with make ship."]


def test_a_lone_surrogate_in_a_declared_field_is_replaced_not_fatal() -> None:
    line = (
        b'{"type":"user","uuid":"u","sessionId":"s","cwd":"/r\\ud800",'
        b'"message":{"role":"user","content":"Never push to main \\udfff."}}'
    )
    state = SessionState()
    turns, reason = parser_for("claude-code", "/p/s.jsonl", state).parse(line, 1)
    assert reason is None and turns[0].text == "Never push to main \ufffd."
    assert state.cwd == "/r\ufffd"
