"""Helpers for the daemon pipeline tests: reading transcripts through a parser or the pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memvet.daemon.extraction import extract
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


def corpus_sentences(rules) -> set[str]:
    """Every sentence of the labelled turns and of the gold eval cases' turns, as the
    extractor splits them: the text the prefilter tests check rules against."""
    texts = [t["text"] for t in json.loads((DATA / "labelled_turns.json").read_text())["turns"]]
    for case_file in sorted((Path(__file__).parents[1] / "eval" / "cases").glob("*.json")):
        for case in json.loads(case_file.read_text()).get("cases", []):
            texts += [
                t.get("text", "") for s in case.get("sessions", []) for t in s.get("turns", [])
            ]
    return {s for t in texts for s in extract.Extractor(rules).sentences(t)}
