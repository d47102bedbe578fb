"""FilePipeline / extract_paths: the interface the watcher builds on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memvet.daemon.pipeline import (
    HOSTS,
    FilePipeline,
    PipelineStats,
    excerpt,
    extract_paths,
    load_rules,
)
from memvet.store.errors import MemvetError, NotFoundError, UsageError
from memvet.store.records import EXCERPT_LIMIT, CandidateDraft

from .conftest import DATA, run_pipeline

RULES = load_rules()


def _claude_line(text: str, uuid: str, cwd: str, session: str = "sess-1") -> bytes:
    return json.dumps(
        {
            "type": "user",
            "uuid": uuid,
            "sessionId": session,
            "cwd": cwd,
            "version": "2.1.50",
            "timestamp": "2026-04-01T12:00:00.000Z",
            "message": {"role": "user", "content": text},
        }
    ).encode()


def test_hosts_and_interface() -> None:
    assert HOSTS == ("claude-code", "codex")
    pipeline = FilePipeline("codex", "/x.jsonl", rules=RULES, user="dana")
    assert isinstance(pipeline.stats, PipelineStats) and pipeline.stats.lines == 0
    with pytest.raises(UsageError):
        FilePipeline("cursor", "/x.jsonl", rules=RULES, user="dana")


def test_drafts_carry_scope_and_redacted_bounded_evidence(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "api" / "src").mkdir(parents=True)
    secret = "ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8"
    text = (
        "Lots of context first. " * 20
        + f"We always deploy with the token {secret} from CI. "
        + "More text after. " * 20
    )
    pipeline = FilePipeline("claude-code", "/t/s.jsonl", rules=RULES, user="dana")
    drafts = pipeline.feed(_claude_line(text, "u1", str(repo / "api" / "src")), 7)
    assert len(drafts) == 1
    draft = drafts[0]
    assert (
        isinstance(draft, CandidateDraft)
        and draft.source_type == "explicit_user"
        and draft.host == "claude-code"
    )
    assert draft.scope.user == "dana" and draft.scope.workspace == str(repo)
    assert draft.scope.agent == "claude-code" and draft.scope.session == "sess-1"
    ev = draft.evidence
    assert (ev.path, ev.line, ev.message_id, ev.session) == ("/t/s.jsonl", 7, "u1", "sess-1")
    assert ev.timestamp is not None and ev.timestamp.year == 2026
    assert len(ev.excerpt) <= EXCERPT_LIMIT and "[REDACTED:github-token]" in ev.excerpt
    for field in (draft.statement, ev.excerpt, *draft.reasons):
        assert secret not in field
    assert pipeline.stats.candidates == 1 and pipeline.stats.turns == 1


def test_cwd_that_does_not_exist_is_kept_as_written() -> None:
    pipeline = FilePipeline("claude-code", "/t/s.jsonl", rules=RULES, user="u")
    drafts = pipeline.feed(_claude_line("Never push to main.", "u1", "/nonexistent/deep/dir"), 1)
    assert drafts[0].scope.workspace == "/nonexistent/deep/dir"
    win = pipeline.feed(_claude_line("Never force-push shared branches.", "u2", "C:\\git\\app"), 2)
    assert win[0].scope.workspace == "C:\\git\\app"


def test_user_global_statement_has_no_workspace() -> None:
    pipeline = FilePipeline("claude-code", "/t/s.jsonl", rules=RULES, user="u")
    drafts = pipeline.feed(
        _claude_line("In all my projects, always use type hints.", "u1", "/w"), 1
    )
    assert drafts[0].scope.workspace is None and drafts[0].scope.user == "u"


@pytest.mark.parametrize(
    ("host", "name"), [("claude-code", "labelled_claude.jsonl"), ("codex", "labelled_codex.jsonl")]
)
def test_resuming_mid_file_from_saved_state(host: str, name: str) -> None:
    lines = (DATA / name).read_bytes().splitlines()
    whole, _ = run_pipeline(host, DATA / name)
    half = len(lines) // 2
    first = FilePipeline(host, str(DATA / name), rules=RULES, user="dana")
    before = [d for n, line in enumerate(lines[:half], 1) for d in first.feed(line, n)]
    saved = json.loads(json.dumps(first.state))  # what a checkpoint stores
    assert saved["session_id"] and saved["cwd"] and saved["workspace"] and saved["host_version"]
    second = FilePipeline(host, str(DATA / name), rules=RULES, user="dana", state=saved)
    after = [d for n, line in enumerate(lines[half:], half + 1) for d in second.feed(line, n)]
    assert [d.to_json() for d in before + after] == [d.to_json() for d in whole]
    assert all(d.scope.session == saved["session_id"] for d in after)


def test_state_is_small() -> None:
    pipeline = FilePipeline("claude-code", "/t/s.jsonl", rules=RULES, user="u")
    for n in range(5000):
        pipeline.feed(_claude_line(f"message number {n}", f"uuid-{n:06d}", "/w"), n + 1)
    assert len(json.dumps(pipeline.state)) < 20_000


def test_assistant_text_only_with_the_policy_flag(tmp_path: Path) -> None:
    default, _ = run_pipeline("codex", DATA / "labelled_codex.jsonl")
    assert {d.source_type for d in default} == {"explicit_user"}
    user_file = tmp_path / "rules.toml"
    user_file.write_text("[policy]\nassistant_inference = true\n")
    drafts, _ = run_pipeline(
        "codex", DATA / "labelled_codex.jsonl", rules=load_rules(str(user_file))
    )
    inferred = [d for d in drafts if d.source_type == "model_inference"]
    assert inferred and all("assistant_text" in d.reasons for d in inferred)
    assert max(d.confidence for d in inferred) < max(d.confidence for d in default)


def test_stats_count_reasons_and_version() -> None:
    _, pipeline = run_pipeline("claude-code", DATA / "labelled_claude.jsonl")
    stats = pipeline.stats
    assert stats.lines == len((DATA / "labelled_claude.jsonl").read_bytes().splitlines())
    assert stats.host_version == "2.1.42" and stats.skipped_lines == 0 and stats.errors == 0
    assert stats.skipped_by_reason["tool_result"] == 8 and stats.skipped_by_reason["meta"] == 2
    assert stats.skipped_by_reason["command_or_interrupt"] == 2
    feed = FilePipeline("claude-code", "/t/s.jsonl", rules=RULES, user="u")
    feed.feed(b"{broken", 1)
    feed.feed(b'{"type":"mystery"}\r\n', 2)
    assert feed.stats.skipped_lines == 2 and feed.stats.errors == 1


def test_extract_paths_stats_and_errors(tmp_path: Path) -> None:
    drafts, stats = extract_paths("codex", [str(DATA / "labelled_codex.jsonl")], user="dana")
    assert drafts and {"files", "lines", "skipped_lines", "turns"} <= set(stats)
    assert (
        stats["files"] == 1
        and stats["candidates"] == len(drafts)
        and stats["host_versions"] == ["0.125.0"]
    )
    with pytest.raises(NotFoundError, match="no such file"):
        extract_paths(
            "codex", [str(DATA / "labelled_codex.jsonl"), str(tmp_path / "missing.jsonl")]
        )
    with pytest.raises(MemvetError, match="not a file"):
        extract_paths("codex", [str(tmp_path)])
    with pytest.raises(UsageError):
        extract_paths("cursor", [str(DATA / "labelled_codex.jsonl")])


def test_extract_paths_defaults_to_the_os_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "os-user")
    drafts, _ = extract_paths("claude-code", [str(DATA / "labelled_claude.jsonl")])
    assert {d.scope.user for d in drafts} == {"os-user"}


def test_excerpt_window() -> None:
    text = "a " * 300 + "NEEDLE statement here " + "b " * 300
    window = excerpt(text, "NEEDLE statement here")
    assert len(window) <= EXCERPT_LIMIT and "NEEDLE statement here" in window
    assert window.startswith("…") and window.endswith("…")
    assert excerpt("short text", "short") == "short text"
