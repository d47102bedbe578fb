"""`memvet hook` as the hosts run it: a real subprocess reading the host's JSON on stdin, against a
real store (key file provider, shared with the in-process seeding)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from memvet.store import CandidateDraft, Scope, open_store

EVENTS = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}
_INNER = {
    "type": "object",
    "required": ["hookEventName", "additionalContext"],
    "properties": {
        "hookEventName": {"enum": list(EVENTS.values())},
        "additionalContext": {"type": "string", "minLength": 1},
    },
}
# Codex's command output schemas (host-formats.md §4.3) reject unknown keys at both levels.
CODEX_OUTPUT = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "continue": {"type": "boolean"},
        "stopReason": {"type": "string"},
        "systemMessage": {"type": "string"},
        "suppressOutput": {"type": "boolean"},
        "hookSpecificOutput": {**_INNER, "additionalProperties": False},
    },
}
# Claude Code (§2.4): hookSpecificOutput must name its event; context is cut at 10,000 chars.
CLAUDE_OUTPUT = {
    "type": "object",
    "required": ["hookSpecificOutput"],
    "properties": {
        "hookSpecificOutput": {
            **_INNER,
            "properties": {
                **_INNER["properties"],
                "additionalContext": {"type": "string", "minLength": 1, "maxLength": 10000},
            },
        }
    },
}
SCHEMAS = {"claude-code": CLAUDE_OUTPUT, "codex": CODEX_OUTPUT}


def run_hook(
    host: str,
    event: str,
    payload: object = None,
    *,
    raw: bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> SimpleNamespace:
    """Run as the hosts run it: in the session's folder (the payload's cwd unless told)."""
    data = raw if raw is not None else json.dumps(payload).encode()
    if cwd is None and isinstance(payload, dict) and os.path.isdir(str(payload.get("cwd"))):
        cwd = payload["cwd"]
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", "hook", host, event],
        input=data,
        capture_output=True,
        timeout=30,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )
    context = None
    if done.stdout.strip():
        doc = json.loads(done.stdout)
        context = doc["hookSpecificOutput"]["additionalContext"]
    return SimpleNamespace(
        rc=done.returncode, out=done.stdout.decode(), doc=context, err=done.stderr.decode()
    )


def start(cwd: str, session: str = "s-1", source: str = "startup") -> dict:
    return {
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "hook_event_name": "SessionStart",
        "source": source,
        "model": "m",
    }


def prompt(cwd: str, text: str, session: str = "s-1") -> dict:
    return {
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def hook_log() -> str:
    path = Path(os.environ["MEMVET_HOME"]) / "logs" / "hook.log"
    return path.read_text() if path.exists() else ""


def build_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Two git workspaces and a store with memories in A, in B and user-global."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")  # the hook subprocess reads the key file
    a, b = tmp_path / "proj-a", tmp_path / "proj-b"
    for ws in (a, b):
        (ws / ".git").mkdir(parents=True)
    (a / "src" / "deep").mkdir(parents=True)
    store = open_store()

    def add(statement: str, workspace: Path | None, **kw) -> str:
        draft = CandidateDraft(
            statement=statement,
            source_type=kw.pop("source", "explicit_user"),
            kind=kw.pop("kind", "fact"),
            host="claude-code",
            scope=Scope(user=store.user, workspace=workspace and str(workspace)),
            **kw,
        )
        return store.approve(store.admit(draft).candidate_id, actor="test").id

    ids = SimpleNamespace(
        docker=add("This project does not use Docker", a, polarity="deny"),
        pytest=add("Run the tests with pytest -q", a, kind="procedure"),
        secret=add("The A-only deploy token lives in Vault path kv/alpha", a),
        beta=add("Project B deploys with Heroku", b),
        conventional=add(
            "Commit messages follow Conventional Commits",
            None,
            kind="preference",
            source="operator",
        ),
        yaml=add(
            "Never use tabs in YAML files",
            None,
            kind="constraint",
            usage_boundary="YAML only; Makefiles need tabs",
        ),
    )
    yield SimpleNamespace(store=store, a=str(a), b=str(b), ids=ids, add=add)
    store.close()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from build_world(tmp_path, monkeypatch)


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_session_start_output_matches_the_hosts_schema(world, host):
    res = run_hook(host, "session-start", start(world.a))
    assert res.rc == 0 and res.err == ""
    jsonschema.validate(json.loads(res.out), SCHEMAS[host])
    assert json.loads(res.out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    for text in ("does not use Docker", "pytest -q", "Conventional Commits", "YAML"):
        assert text in res.doc


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_prompt_output_matches_the_hosts_schema(world, host):
    res = run_hook(host, "user-prompt-submit", prompt(world.a, "containerise the api with Docker"))
    jsonschema.validate(json.loads(res.out), SCHEMAS[host])
    assert json.loads(res.out)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"


def test_a_workspace_never_sees_another_workspaces_memories(world):
    in_b = run_hook("claude-code", "session-start", start(world.b)).doc
    assert "Heroku" in in_b and "Conventional Commits" in in_b
    assert "Docker" not in in_b and "kv/alpha" not in in_b and "pytest" not in in_b
    in_a = run_hook("codex", "session-start", start(world.a)).doc
    assert "Heroku" not in in_a
    outside = run_hook("codex", "session-start", start("/")).doc  # no workspace: global only
    assert "Conventional Commits" in outside and "Docker" not in outside


def test_a_subfolder_belongs_to_its_git_root(world):
    res = run_hook("claude-code", "session-start", start(str(Path(world.a) / "src" / "deep")))
    assert "pytest -q" in res.doc


def test_best_first_with_boundaries_and_disputes_named(world):
    world.store.dispute(world.ids.secret, actor="test")
    doc = run_hook("claude-code", "session-start", start(world.a)).doc
    lines = doc.splitlines()
    assert "Conventional Commits" in lines[1]  # operator-typed first
    assert "(boundary: YAML only; Makefiles need tabs)" in doc
    # A disputed memory is named by its subject, never asserted (issue 13): the agent is told
    # to ask, and is not handed the statement in doubt.
    subject = world.store.get_memory(world.ids.secret).subject
    disputed = next(line for line in lines if "disputed" in line)
    assert "ask the user which is current" in disputed and disputed.endswith(subject)
    assert "kv/alpha" not in doc


def test_nothing_in_scope_prints_nothing(world, tmp_path):
    for mid in vars(world.ids).values():
        world.store.forget(mid, actor="test")
    res = run_hook("claude-code", "session-start", start(world.a))
    assert (res.rc, res.out) == (0, "")


def test_no_store_prints_nothing_and_logs_why(tmp_path):
    res = run_hook("claude-code", "session-start", start(str(tmp_path)))
    assert (res.rc, res.out, res.err) == (0, "", "")
    assert "outcome=no_store" in hook_log()


@pytest.mark.parametrize("raw", [b"", b"{", b"[1, 2]", b"\xff\xfe", b'"just a string"'])
def test_malformed_input_prints_nothing(world, raw):
    res = run_hook("claude-code", "session-start", raw=raw)
    assert (res.rc, res.out, res.err) == (0, "", "")


@pytest.mark.parametrize(
    "args",
    [
        ["claude-code"],
        ["vim", "session-start"],
        ["codex", "stop"],
        ["codex", "session-start", "extra"],
    ],
)
def test_bad_arguments_print_nothing(world, args):
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", "hook", *args],
        input=json.dumps(start(world.a)).encode(),
        capture_output=True,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert "outcome=usage" in hook_log()


def _key_file() -> Path:
    return Path(os.environ["MEMVET_HOME"]) / "keys" / "kek-v1"


@pytest.mark.parametrize("damage", ["missing", "wrong", "readable_by_others"])
def test_a_key_problem_prints_nothing_and_logs_no_user_text(world, damage):
    key = _key_file()
    if damage == "missing":
        key.unlink()
    elif damage == "wrong":
        key.write_bytes(base64.b64encode(os.urandom(32)) + b"\n")
    else:
        key.chmod(0o644)
    res = run_hook("claude-code", "session-start", start(world.a))
    assert (res.rc, res.out, res.err) == (0, "", "")
    log = hook_log()
    code = {"missing": "key_missing", "wrong": "key_wrong", "readable_by_others": "key_file_mode"}
    assert f"outcome={code[damage]}" in log
    assert "Docker" not in log and world.a not in log


def test_a_locked_keyring_prints_nothing(tmp_path, monkeypatch):
    """A store whose key the OS keyring holds (here the in-memory one); the hook subprocess
    gets the fail backend, as a locked or absent keyring would answer."""
    monkeypatch.delenv("MEMVET_KEY_PROVIDER", raising=False)
    store = open_store()
    assert store.key_provider == "keyring"
    draft = CandidateDraft(
        statement="Use uv", kind="preference", source_type="operator", scope=Scope(user=store.user)
    )
    store.approve(store.admit(draft).candidate_id, actor="test")
    res = run_hook("codex", "session-start", start(str(tmp_path)))
    assert (res.rc, res.out, res.err) == (0, "", "")
    assert "outcome=keyring_unavailable" in hook_log()


def test_prompts_add_only_relevant_memories_not_given_yet(world):
    first = run_hook(
        "claude-code",
        "user-prompt-submit",
        prompt(world.a, "Please set up Docker and a compose file", "s-9"),
    )
    assert "does not use Docker" in first.doc
    assert "pytest" not in first.doc and "Conventional" not in first.doc
    again = run_hook(
        "claude-code",
        "user-prompt-submit",
        prompt(world.a, "why no Docker? add Docker anyway", "s-9"),
    )
    assert again.out == ""  # already given in this session
    other = run_hook(
        "claude-code", "user-prompt-submit", prompt(world.a, "add Docker please", "s-10")
    )
    assert "does not use Docker" in other.doc
    assert run_hook("codex", "user-prompt-submit", prompt(world.a, "hello there")).out == ""


def test_a_prompt_skips_what_session_start_gave(world):
    run_hook("claude-code", "session-start", start(world.a, "s-2"))
    res = run_hook("claude-code", "user-prompt-submit", prompt(world.a, "docker compose up", "s-2"))
    assert res.out == ""
    memo = Path(os.environ["MEMVET_HOME"]) / "run" / "hook-sessions" / "s-2"
    assert memo.stat().st_mode & 0o777 == 0o600
    assert world.ids.docker in memo.read_text() and "Docker" not in memo.read_text()
    # A fresh start (not a resume) of the same session gives the whole pack again.
    assert "Docker" in run_hook("claude-code", "session-start", start(world.a, "s-2")).doc


def test_the_budget_comes_from_config_and_the_rest_is_counted(world):
    for i in range(40):
        world.add(f"Service number {i} listens on port {9000 + i}", Path(world.a))
    home = Path(os.environ["MEMVET_HOME"])
    (home / "config.toml").write_text("[hook]\nsession_start_tokens = 64\nprompt_tokens = 0\n")
    res = run_hook("claude-code", "session-start", start(world.a))
    assert len(res.doc.encode()) <= 64 * 4
    assert res.doc.splitlines()[-1].startswith("(+") and "more approved memories" in res.doc
    assert run_hook("claude-code", "user-prompt-submit", prompt(world.a, "docker")).out == ""
    (home / "config.toml").write_text("[hook\nbroken")
    assert "Service number" in run_hook("claude-code", "session-start", start(world.a)).doc


def test_the_log_holds_no_prompt_text(world):
    run_hook("codex", "user-prompt-submit", prompt(world.a, "my secret plan about Docker"))
    log = hook_log()
    assert "secret plan" not in log and "Docker" not in log
    assert "codex user-prompt-submit path=direct outcome=context" in log
