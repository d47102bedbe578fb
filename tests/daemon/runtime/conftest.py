"""Helpers for the daemon runtime's tests (watcher, tailer, admission policy, sweeps, the
process): transcript line builders, a recording pipeline (an instrument that shows exactly which
lines were fed, with which parser state), stores and daemon subprocesses on tmp folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from memvet.daemon.admission_policy import Policy, load_policy
from memvet.daemon.ingestor import Ingestor
from memvet.daemon.pipeline import PipelineStats
from memvet.daemon.roots import Root, all_roots
from memvet.daemon.settings import DaemonSettings
from memvet.store import CandidateDraft, Evidence, Scope, open_store
from memvet.store.store import Store

WORKSPACE = "/home/dana/src/app"


class FakeClock:
    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> datetime:
        self.now += timedelta(**kwargs)
        return self.now


# --- transcript lines (shaped like the hosts' own) ----------------------------------------
def claude_user(text: str, *, session: str = "s-1", cwd: str = WORKSPACE) -> bytes:
    return (
        json.dumps(
            {
                "parentUuid": None,
                "isSidechain": False,
                "userType": "external",
                "cwd": cwd,
                "sessionId": session,
                "version": "2.1.38",
                "gitBranch": "main",
                "type": "user",
                "message": {"role": "user", "content": text},
                "uuid": str(uuid.uuid4()),
                "timestamp": "2026-03-01T09:00:00.000Z",
            }
        ).encode()
        + b"\n"
    )


def claude_tool_result(output: str, *, session: str = "s-1", cwd: str = WORKSPACE) -> bytes:
    return (
        json.dumps(
            {
                "parentUuid": None,
                "isSidechain": False,
                "userType": "external",
                "cwd": cwd,
                "sessionId": session,
                "version": "2.1.38",
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": "toolu_1",
                            "type": "tool_result",
                            "content": output,
                            "is_error": False,
                        }
                    ],
                },
                "uuid": str(uuid.uuid4()),
                "timestamp": "2026-03-01T09:00:01.000Z",
            }
        ).encode()
        + b"\n"
    )


def codex_meta(
    *, session: str = "019c0000-0000-7000-8000-000000000001", cwd: str = WORKSPACE
) -> bytes:
    return (
        json.dumps(
            {
                "timestamp": "2026-03-01T09:00:00.000Z",
                "type": "session_meta",
                "payload": {
                    "id": session,
                    "timestamp": "2026-03-01T09:00:00.000Z",
                    "cwd": cwd,
                    "originator": "codex_cli_rs",
                    "cli_version": "0.77.0",
                    "instructions": None,
                },
            }
        ).encode()
        + b"\n"
    )


def codex_user(text: str) -> bytes:
    return (
        json.dumps(
            {
                "timestamp": "2026-03-01T09:00:01.000Z",
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                },
            }
        ).encode()
        + b"\n"
    )


class ClaudeSession:
    """Claude Code lines as the host chains them: each line's parentUuid is the previous uuid."""

    def __init__(self, cwd: str = WORKSPACE, session: str = "s-1") -> None:
        self.cwd, self.session, self.parent, self.second = cwd, session, None, 0

    def line(
        self, kind: str, message: dict, *, parent: str | None | bool = True, **extra: Any
    ) -> bytes:
        me = str(uuid.uuid4())
        self.second += 1
        doc = {
            "parentUuid": self.parent if parent is True else parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": "2.1.38",
            "type": kind,
            "message": message,
            "uuid": me,
            "timestamp": f"2026-03-01T09:{self.second // 60:02d}:{self.second % 60:02d}.000Z",
            **extra,
        }
        if parent is True:
            self.parent = me
        return json.dumps(doc).encode() + b"\n"

    def prompt(self, text: str, **kw) -> bytes:  # noqa: ANN003
        return self.line("user", {"role": "user", "content": text}, **kw)

    def tool_use(self, tool_id: str) -> bytes:
        return self.line(
            "assistant",
            {
                "id": f"msg_{tool_id}",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}
                ],
            },
        )

    def tool_result(self, tool_id: str) -> bytes:
        return self.line(
            "user",
            {
                "role": "user",
                "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": "ok"}],
            },
        )


# --- the recording pipeline --------------------------------------------------------------
class RecordingPipeline:
    """An instrument, not a parser: every JSON line with a `"say"` key becomes one draft, and
    every line fed is recorded. Its state counts lines, so a test sees it restored from the
    checkpoint. The tests of the real pipeline's output use memvet.daemon.pipeline itself."""

    fed: list[tuple[str, int, bytes]] = []  # (path, line_no, line), across instances

    def __init__(self, host: str, path: str, state: dict[str, Any] | None) -> None:
        self.host, self.path = host, path
        self._state = dict(state or {"lines": 0})
        self.stats = PipelineStats()  # what the ingestor reads after a pass (unknown line types)

    def feed(self, line: bytes, line_no: int) -> list[CandidateDraft]:
        RecordingPipeline.fed.append((self.path, line_no, line))
        self._state["lines"] += 1
        try:
            doc = json.loads(line)
        except ValueError:
            return []
        if not isinstance(doc, dict) or "say" not in doc:
            return []
        return [
            make_draft(
                str(doc["say"]),
                source=doc.get("source", "explicit_user"),
                confidence=float(doc.get("confidence", 0.9)),
                path=self.path,
                line=line_no,
                host=self.host,
            )
        ]

    @property
    def state(self) -> dict[str, Any]:
        return self._state


def say(text: str, **extra: Any) -> bytes:
    return json.dumps({"say": text, **extra}).encode() + b"\n"


def make_draft(
    statement: str,
    *,
    source: str = "explicit_user",
    confidence: float = 0.9,
    path: str = "/x.jsonl",
    line: int = 1,
    host: str = "claude-code",
    kind: str = "preference",
) -> CandidateDraft:
    return CandidateDraft(
        statement=statement,
        kind=kind,
        source_type=source,
        scope=Scope(user="dana", workspace=WORKSPACE, agent=host, session="s-1"),
        host=host,
        confidence=confidence,
        reasons=("rule:test",),
        evidence=Evidence(
            path=path,
            line=line,
            message_id=None,
            timestamp=None,
            excerpt=statement[:80],
            session="s-1",
        ),
    )


@pytest.fixture
def recording() -> Iterator[type[RecordingPipeline]]:
    RecordingPipeline.fed = []
    yield RecordingPipeline
    RecordingPipeline.fed = []


def real_pipeline() -> Callable[[str, str, dict[str, Any] | None], Any]:
    """The real parse → filter → redact → extract pipeline, as the daemon builds it."""
    from memvet.daemon.commands import pipeline_factory

    return pipeline_factory("dana")


# --- stores, roots, ingestors ------------------------------------------------------------
@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(clock: FakeClock) -> Iterator[Store]:
    s = open_store(clock=clock, user="dana")
    yield s
    s.close()


@pytest.fixture
def live_store() -> Iterator[Store]:
    """A store on the real clock, for tests with threads and observers."""
    s = open_store(user="dana")
    yield s
    s.close()


@pytest.fixture
def roots() -> list[Root]:
    return all_roots()


@pytest.fixture
def claude_project() -> Path:
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dana-src-app"
    folder.mkdir(parents=True)
    return folder


def review_policy() -> Policy:
    return load_policy(None)


def make_ingestor(
    store: Store,
    *,
    settings: DaemonSettings | None = None,
    policy: Policy | None = None,
    factory: Callable[..., Any] | None = None,
) -> Ingestor:
    ingestor = Ingestor(
        store,
        policy or review_policy(),
        settings or DaemonSettings(),
        pipeline_factory=factory or RecordingPipeline,
    )
    ingestor.load()
    return ingestor


def claude_root(roots: list[Root]) -> Root:
    return next(r for r in roots if r.layout == "claude-projects")


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, every: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"condition not met within {timeout}s")


@pytest.fixture(autouse=True)
def _no_thread_leaks() -> Iterator[None]:
    """watchdog's own rule: a test that starts threads stops them."""
    before = threading.active_count()
    yield
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before, [t.name for t in threading.enumerate()]


# --- daemon subprocesses -------------------------------------------------------------------
MEMVET = Path(sys.executable).parent / "memvet"


def daemon_env(**extra: str) -> dict[str, str]:
    """A `memvet daemon` subprocess's environment: the key file (a child has no keyring)."""
    return dict(os.environ, MEMVET_KEY_PROVIDER="file", **extra)


def memvet(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MEMVET), *args],
        env=env or daemon_env(),
        text=True,
        capture_output=True,
        timeout=timeout,
    )


def spawn_daemon(env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(MEMVET), "daemon", "run"],
        env=env or daemon_env(),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.fixture
def file_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the first in-process open: the test and its daemon subprocess share the key file."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
