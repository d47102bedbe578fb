"""Adoption: a reply that keeps the assistant's proposal as a standing rule makes a candidate of
the proposal (marked adopted, both lines quoted, lower confidence); a bare yes does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memvet.daemon.extraction import adoption

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


def _user(text: str, uuid: str) -> bytes:
    return json.dumps(
        {**_BASE, "type": "user", "uuid": uuid, "message": {"role": "user", "content": text}},
        separators=(",", ":"),
    ).encode()


def _assistant(text: str, mid: str = "msg_1", uuid: str = "a-1") -> bytes:
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
        },
        separators=(",", ":"),
    ).encode()


def _codex(kind: str, role: str, text: str) -> bytes:
    block = "input_text" if role == "user" else "output_text"
    return json.dumps(
        {
            "timestamp": "2026-01-01T00:00:01.000Z",
            "type": kind,
            "payload": {
                "type": "message",
                "role": role,
                "content": [{"type": block, "text": text}],
            },
        }
    ).encode()


def _session(tmp_path: Path, *lines: bytes, name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


PROPOSAL = (
    "All green. I'd suggest we run ruff check before every commit. "
    "Want me to add a pre-commit hook for that?"
)


@pytest.mark.parametrize(
    "reply",
    ["yes, from now on do that", "yes, make that the rule", "good idea, going forward do that"],
)
def test_a_standing_reply_adopts_the_proposal(tmp_path: Path, reply: str) -> None:
    path = _session(
        tmp_path, _user("run the tests", "u-1"), _assistant(PROPOSAL), _user(reply, "u-2")
    )
    drafts, pipeline = run_pipeline(CC, path)
    assert len(drafts) == 1
    draft = drafts[0]
    assert draft.statement == "Run ruff check before every commit."
    assert "adopted" in draft.reasons and draft.to_json()["adopted"] is True
    assert draft.confidence <= adoption.ADOPTED_CONFIDENCE
    assert draft.evidence.line == 3  # the user's line; the excerpt quotes both
    assert "assistant (line 2): I'd suggest we run ruff check" in draft.evidence.excerpt
    assert f"user: {reply}" in draft.evidence.excerpt
    assert pipeline.stats.skipped_by_reason["adopted"] == 1


@pytest.mark.parametrize(
    "reply",
    [
        "ok",
        "yes",
        "do it",
        "yes please",
        "ok do that for now",
        "no, don't do that from now on",
        "sure, do it this time",
    ],
)
def test_a_bare_or_time_limited_yes_keeps_nothing(tmp_path: Path, reply: str) -> None:
    path = _session(
        tmp_path, _assistant("Should I squash the commits before merging?"), _user(reply, "u-2")
    )
    drafts, _ = run_pipeline(CC, path)
    assert drafts == []


def test_a_reply_with_its_own_rule_keeps_its_own_rule(tmp_path: Path) -> None:
    path = _session(
        tmp_path,
        _assistant(PROPOSAL),
        _user("yes, and from now on always use uv, never pip", "u-2"),
    )
    drafts, _ = run_pipeline(CC, path)
    assert drafts and all("adopted" not in d.reasons for d in drafts)
    assert any("uv" in d.statement for d in drafts)


def test_nothing_to_adopt_without_a_proposal(tmp_path: Path) -> None:
    path = _session(
        tmp_path,
        _assistant("I ran the tests and they all pass."),
        _user("yes, from now on do that", "u-2"),
    )
    assert run_pipeline(CC, path)[0] == []


def test_adoption_in_codex(tmp_path: Path) -> None:
    path = _session(
        tmp_path,
        _codex("response_item", "assistant", "Should I pin every dependency to an exact version?"),
        _codex("response_item", "user", "yes, make that the rule"),
        name="rollout-x.jsonl",
    )
    drafts, _ = run_pipeline("codex", path)
    assert [d.statement for d in drafts] == ["Pin every dependency to an exact version."]
    assert "adopted" in drafts[0].reasons


def test_the_proposal_survives_a_checkpoint_as_one_redacted_sentence(tmp_path: Path) -> None:
    """The daemon reads the assistant's message in one pass and the reply in a later one: the
    checkpoint carries the proposal sentence (redacted), not the message."""
    from memvet.daemon.pipeline import FilePipeline, load_rules

    rules = load_rules()
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    message = (
        f"The long log said nothing useful and token {token} is in the env. "
        f"Should I export GITHUB_TOKEN={token} in every CI job?"
    )
    first = FilePipeline(CC, "/s.jsonl", rules=rules, user="dana")
    assert first.feed(_assistant(message), 1) == []
    saved = json.dumps(first.state)
    assert "long log said nothing" not in saved and token not in saved
    assert "every CI job" in saved
    second = FilePipeline(CC, "/s.jsonl", rules=rules, user="dana", state=json.loads(saved))
    drafts = second.feed(_user("yes, from now on do that", "u-2"), 2)
    assert len(drafts) == 1 and "adopted" in drafts[0].reasons
    assert token not in drafts[0].statement and "every CI job" in drafts[0].statement


def test_a_new_assistant_message_replaces_the_old_proposal(tmp_path: Path) -> None:
    path = _session(
        tmp_path,
        _assistant(PROPOSAL, mid="m1", uuid="a1"),
        _assistant("Done, the hook is installed.", mid="m2", uuid="a2"),
        _user("yes, from now on do that", "u-2"),
    )
    assert run_pipeline(CC, path)[0] == []


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        (
            "Should I add type hints to every public function?",
            "Add type hints to every public function.",
        ),
        (
            "I'd recommend that we keep migrations in db/migrations.",
            "Keep migrations in db/migrations.",
        ),
        ("Want me to use pnpm for installs instead?", "Use pnpm for installs."),
        ("We could run the linter in CI as well.", "Run the linter in CI."),
        (
            "Going forward I can write a short ADR in docs/adr/ for every architectural change.",
            "Write a short ADR in docs/adr/ for every architectural change.",
        ),
    ],
)
def test_the_framing_comes_off_the_proposal(sentence: str, rule: str) -> None:
    assert adoption.as_rule(sentence) == rule


def test_a_standing_rule_reply_with_an_adjective_adopts() -> None:
    assert adoption.adopts("let's make that a standing rule")
    assert not adoption.adopts("let's make that a rule for now")


def test_the_daemon_adopts_across_two_passes(tmp_path: Path) -> None:
    """Real ingestor and store: the assistant's line is read in one pass, the reply (typed
    later) in the next; the queued candidate is the adopted proposal."""
    import os

    from memvet.daemon.roots import all_roots
    from memvet.daemon.settings import DaemonSettings
    from memvet.store import open_store
    from memvet.store.records import Reader

    from .runtime.conftest import make_ingestor, real_pipeline

    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-w"
    folder.mkdir(parents=True)
    path = folder / "s.jsonl"
    path.write_bytes(_user("run the tests", "u-1") + b"\n" + _assistant(PROPOSAL) + b"\n")
    store = open_store(user="dana")
    try:
        root = next(r for r in all_roots() if r.layout == "claude-projects")
        make_ingestor(store, settings=DaemonSettings(), factory=real_pipeline()).process(
            str(path), root
        )
        with path.open("ab") as handle:
            handle.write(_user("yes, going forward do that", "u-2") + b"\n")
        make_ingestor(store, settings=DaemonSettings(), factory=real_pipeline()).process(
            str(path), root
        )
        queued = store.list_candidates(Reader(user="dana", all_scopes=True))
        assert [c.statement for c in queued] == ["Run ruff check before every commit."]
        assert "adopted" in queued[0].reasons
    finally:
        store.close()
