"""Sessions replayed as real transcripts in both host formats, line by line through `FilePipeline`
(the extraction benchmarks: the person giving instructions is the user, the other the assistant)."""

from __future__ import annotations

import json

from memvet.daemon.pipeline import FilePipeline


def claude_lines(session_id: str, cwd: str, turns: list[tuple[str, str]]) -> list[bytes]:
    out = []
    for n, (role, text) in enumerate(turns, start=1):
        stamp = f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        base = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session_id,
            "version": "2.1.50",
            "uuid": f"{session_id}-{n}",
            "timestamp": stamp,
        }
        if role == "user":
            out.append({**base, "type": "user", "message": {"role": "user", "content": text}})
        else:
            out.append(
                {
                    **base,
                    "type": "assistant",
                    "requestId": f"req-{n}",
                    "message": {
                        "id": f"msg_{session_id[:8]}{n}",
                        "type": "message",
                        "role": "assistant",
                        "model": "m",
                        "content": [{"type": "text", "text": text}],
                    },
                }
            )
    return [json.dumps(line).encode() for line in out]


def codex_lines(session_id: str, cwd: str, turns: list[tuple[str, str]]) -> list[bytes]:
    out = [
        {
            "timestamp": "2026-01-01T00:00:00.000Z",
            "type": "session_meta",
            "payload": {
                "id": session_id,
                "cwd": cwd,
                "cli_version": "0.125.0",
                "originator": "codex-tui",
            },
        }
    ]
    for n, (role, text) in enumerate(turns, start=1):
        stamp = f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        block = "input_text" if role == "user" else "output_text"
        out.append(
            {
                "timestamp": stamp,
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": role,
                    "content": [{"type": block, "text": text}],
                },
            }
        )
        kind = "user_message" if role == "user" else "agent_message"
        out.append(
            {"timestamp": stamp, "type": "event_msg", "payload": {"type": kind, "message": text}}
        )
    return [json.dumps(line).encode() for line in out]


def run_session(host: str, session_id: str, turns: list[tuple[str, str]], rules) -> list:
    build = claude_lines if host == "claude-code" else codex_lines
    pipeline = FilePipeline(host, f"/bench/{session_id}.jsonl", rules=rules, user="bench")
    drafts = []
    for n, line in enumerate(build(session_id, "/bench/repo", turns), start=1):
        drafts.extend(pipeline.feed(line, n))
    return drafts
