"""A generated transcript corpus for the daemon's benchmarks: both hosts, laid out as the hosts
lay them out, shaped like real sessions (mostly tool calls, tool output and assistant prose; a
few user prompts, some of which state a preference or rule, repeated across sessions).

Deterministic for a seed. Output is drawn from a pool of pre-built snippets so that generating
hundreds of MB stays fast; every line still gets its own ids and timestamps.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

WORDS = (
    "the build cache test runner module config deploy staging request handler schema "
    "migration index query latency retry queue worker token session parser buffer file "
    "error warning passed failed import package version lock branch commit review merge "
    "function class method return value null list dict string bytes offset line"
).split()

STATEMENTS = [
    "We always use uv for dependency management in this project.",
    "Never push directly to main; always open a pull request.",
    "The staging database runs on port 5433.",
    "Use ruff for linting, not flake8.",
    "I prefer small commits with clear messages.",
    "Always run the tests with pytest -q before committing.",
    "We deploy with ./scripts/deploy.sh, never by hand.",
    "Don't add new dependencies without asking me first.",
    "Our API responses always use snake_case keys.",
    "We never use Docker for local development here.",
]
PROMPTS = [
    "fix the failing test in tests/test_parser.py",
    "why does the worker retry twice on timeout?",
    "add a --json flag to the status command",
    "refactor the handler so it does not block",
    "can you look at the migration and tell me what breaks",
    "continue",
    "ok, now update the docs",
]


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


class Snippets:
    """Pre-built outputs of realistic sizes: mostly ~1 KB, a tail up to ~100 KB."""

    def __init__(self, rng: random.Random) -> None:
        sizes = [int(rng.lognormvariate(6.8, 1.1)) for _ in range(300)]
        self.outputs = [
            "\n".join(_prose(rng, 12) for _ in range(max(1, s // 80)))[:120_000] for s in sizes
        ]
        self.prose = [_prose(rng, rng.randint(10, 120)) for _ in range(200)]
        self.commands = [
            f"{rng.choice(['pytest -q', 'ls -la', 'rg', 'git diff', 'make'])} "
            f"{rng.choice(WORDS)}/{rng.choice(WORDS)}.py"
            for _ in range(100)
        ]


def _user_text(rng: random.Random, statement_rate: float) -> str:
    if rng.random() < statement_rate:
        return rng.choice(STATEMENTS)
    return rng.choice(PROMPTS)


def claude_session(
    rng: random.Random, snip: Snippets, lines: int, statement_rate: float, cwd: str
) -> Iterator[str]:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": cwd,
        "sessionId": sid,
        "version": "2.1.38",
        "gitBranch": "main",
    }
    parent = None
    for n in range(lines):
        uid = str(uuid.UUID(int=rng.getrandbits(128)))
        ts = f"2026-03-01T{9 + n // 3600 % 12:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        kind = rng.random()
        if n % 25 == 0 or kind < 0.04:
            doc = {
                "type": "user",
                "message": {"role": "user", "content": _user_text(rng, statement_rate)},
            }
        elif kind < 0.45:
            tid = f"toolu_{rng.getrandbits(64):016x}"
            out = rng.choice(snip.outputs)
            doc = {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": tid,
                            "type": "tool_result",
                            "content": out,
                            "is_error": False,
                        }
                    ],
                },
                "toolUseResult": {
                    "stdout": out,
                    "stderr": "",
                    "interrupted": False,
                    "isImage": False,
                },
            }
        elif kind < 0.75:
            doc = {
                "type": "assistant",
                "message": {
                    "model": "claude-sonnet-4-5",
                    "id": f"msg_{rng.getrandbits(64):016x}",
                    "type": "message",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"toolu_{rng.getrandbits(64):016x}",
                            "name": "Bash",
                            "input": {
                                "command": rng.choice(snip.commands),
                                "description": "Run it",
                            },
                        }
                    ],
                    "stop_reason": None,
                    "usage": {"input_tokens": 3, "output_tokens": 40},
                },
            }
        else:
            doc = {
                "type": "assistant",
                "message": {
                    "model": "claude-sonnet-4-5",
                    "id": f"msg_{rng.getrandbits(64):016x}",
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": rng.choice(snip.prose)}],
                    "stop_reason": None,
                    "usage": {"input_tokens": 3, "output_tokens": 80},
                },
            }
        doc.update(base, parentUuid=parent, uuid=uid, timestamp=ts)
        parent = uid
        yield json.dumps(doc)


def codex_session(
    rng: random.Random, snip: Snippets, lines: int, statement_rate: float, cwd: str
) -> Iterator[str]:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    ts = "2026-03-01T09:00:00.000Z"
    yield json.dumps(
        {
            "timestamp": ts,
            "type": "session_meta",
            "payload": {
                "id": sid,
                "timestamp": ts,
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.77.0",
                "instructions": None,
            },
        }
    )
    for n in range(lines - 1):
        kind = rng.random()
        call = f"call_{rng.getrandbits(48):012x}"
        if n % 30 == 0 or kind < 0.04:
            line = {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": _user_text(rng, statement_rate)}],
                },
            }
        elif kind < 0.40:
            line = {
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": call,
                    "output": json.dumps(
                        {
                            "output": rng.choice(snip.outputs),
                            "metadata": {"exit_code": 0, "duration_seconds": 0.4},
                        }
                    ),
                },
            }
        elif kind < 0.65:
            line = {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": call,
                    "arguments": json.dumps(
                        {"command": ["bash", "-lc", rng.choice(snip.commands)], "workdir": cwd}
                    ),
                },
            }
        elif kind < 0.85:
            line = {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": rng.choice(snip.prose)}],
                },
            }
        else:
            line = {
                "type": "event_msg",
                "payload": {
                    "type": "token_count",
                    "info": {"total_token_usage": {"input_tokens": n * 10, "output_tokens": n}},
                },
            }
        line["timestamp"] = ts
        yield json.dumps(line)


def generate(
    claude_dir: Path,
    codex_dir: Path,
    target_bytes: int,
    *,
    seed: int = 1,
    statement_rate: float = 0.3,
    lines_per_session: int = 2000,
) -> list[Path]:
    """Write sessions until target_bytes; about 60% Claude Code, 40% Codex by file count."""
    rng = random.Random(seed)
    snip = Snippets(rng)
    written, files, n = 0, [], 0
    while written < target_bytes:
        cwd = f"/home/dana/src/app{n % 4}"
        if n % 5 < 3:
            folder = claude_dir / "projects" / cwd.replace("/", "-")
            path = folder / f"{uuid.UUID(int=rng.getrandbits(128))}.jsonl"
            lines = claude_session(rng, snip, lines_per_session, statement_rate, cwd)
        else:
            folder = codex_dir / "sessions" / "2026" / "03" / f"{1 + n % 28:02d}"
            path = (
                folder
                / f"rollout-2026-03-01T09-00-{n % 60:02d}-{uuid.UUID(int=rng.getrandbits(128))}.jsonl"
            )
            lines = codex_session(rng, snip, lines_per_session, statement_rate, cwd)
        folder.mkdir(parents=True, exist_ok=True)
        data = ("\n".join(lines) + "\n").encode()
        path.write_bytes(data)
        written += len(data)
        files.append(path)
        n += 1
    return files
