"""Helpers for the daemon pipeline tests: reading transcripts through a parser or the pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest
from memvet.daemon.hosts import SessionState, Turn, parser_for
from memvet.daemon.pipeline import FilePipeline, load_rules

DATA = Path(__file__).parent / "data"


def parse_file(host: str, path: Path) -> tuple[list[Turn], dict[str, int], SessionState]:
    """Every turn a parser yields for a file, and how often each skip reason came up."""
    state = SessionState()
    parser = parser_for(host, str(path), state)
    turns: list[Turn] = []
    reasons: dict[str, int] = {}
    for line_no, raw in enumerate(path.read_bytes().splitlines(), start=1):
        result = parser.parse(raw, line_no)
        turns.extend(result.turns)
        if result.reason:
            reasons[result.reason] = reasons.get(result.reason, 0) + 1
    return turns, reasons, state


def user_texts(host: str, path: Path) -> list[str]:
    return [t.text for t in parse_file(host, path)[0] if t.role == "user"]


def run_pipeline(host: str, path: Path, *, user: str = "dana", rules=None):
    pipeline = FilePipeline(host, str(path), rules=rules or load_rules(), user=user)
    drafts = []
    for line_no, raw in enumerate(path.read_bytes().splitlines(), start=1):
        drafts.extend(pipeline.feed(raw, line_no))
    return drafts, pipeline


@pytest.fixture
def transcripts(shared_dir: Path) -> Path:
    folder = shared_dir / "fixtures" / "transcripts"
    if not folder.is_dir():
        pytest.skip(f"transcript fixtures not found at {folder}")
    return folder
