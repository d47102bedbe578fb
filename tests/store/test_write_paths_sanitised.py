"""Issue 9: every path into the store runs the same gate (store/text_safety.py): secrets
redacted, terminal escape sequences and control characters stripped. Checked on what the CLI
lists and on the database file and its WAL (decrypted readers would show the rest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.store import CandidateDraft, Evidence, Scope, open_store
from memvet.store.paths import memvet_home
from memvet.store.text_safety import clean_controls, for_terminal, sanitise
from store_internals import cipher_of, engine_of

AWS_ID = "AKIA2E0A8F3B244C9986"
AWS_SECRET = "Zk3v9QmB2xR7tL5pW8nY4cH6jD1sF0gA3eU7iO2q"
GH_TOKEN = "ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8"
SECRETS = (AWS_ID, AWS_SECRET, GH_TOKEN)
LEAKY = f"Deploy with AWS key {AWS_ID} {AWS_SECRET} and the GitHub token {GH_TOKEN} always"
ESCAPES = (
    "Use \x1b]8;;https://evil.example\x07uv\x1b]8;;\x07 for \x1b[31mPython\x1b[0m\x9b2J here\r"
)


def memvet(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )


def run_json(*args: str) -> dict:
    proc = memvet(*args, "--json")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return json.loads(proc.stdout)


def assert_no_secret_anywhere(*outputs: str) -> None:
    for output in outputs:
        for secret in SECRETS:
            assert secret not in output
    home = memvet_home()
    for name in ("memvet.db", "memvet.db-wal"):
        path = home / name
        if path.exists():
            data = path.read_bytes()
            for secret in SECRETS:
                assert secret.encode() not in data, name


def test_the_gate_strips_escape_sequences_and_keeps_newlines_and_tabs() -> None:
    assert clean_controls(ESCAPES) == "Use uv for Python here\n"
    assert clean_controls("a\tb\r\nc\x00d\x7f\u202eX\ud800") == "a\tb\ncdX\ufffd"
    plain = "We use uv — always. 日本語 ok"
    assert clean_controls(plain) is plain  # nothing to do: not even a copy
    assert "[REDACTED:" in sanitise(LEAKY) and not any(s in sanitise(LEAKY) for s in SECRETS)
    assert for_terminal("x\x1b[2Jy\u202e") == "x\\x1b[2Jy\\u202e"


@pytest.mark.slow
def test_propose_redacts_and_strips(tmp_path: Path) -> None:
    out = run_json("propose", LEAKY, "--kind", "procedure")
    esc = run_json("propose", ESCAPES, "--kind", "preference")
    listed = memvet("queue", "list", "--json").stdout
    human = memvet("queue", "list").stdout + memvet("queue", "show", esc["id"]).stdout
    statements = {c["id"]: c["statement"] for c in json.loads(listed)["candidates"]}
    assert "[REDACTED:aws-access-key]" in statements[out["id"]]
    assert "[REDACTED:github-token]" in statements[out["id"]]
    assert statements[esc["id"]] == "Use uv for Python here"
    assert "\x1b" not in human and "\x9b" not in human
    assert_no_secret_anywhere(listed, human)


@pytest.mark.slow
def test_approve_with_an_edited_statement_redacts_and_strips(tmp_path: Path) -> None:
    first = run_json("propose", "We use uv for Python packaging", "--kind", "preference")["id"]
    second = run_json("propose", "Tabs, not spaces", "--kind", "preference")["id"]
    run_json("queue", "approve", first, "--statement", LEAKY)
    run_json("queue", "approve", second, "--statement", ESCAPES)
    listed = memvet("memories", "list", "--json").stdout
    statements = sorted(m["statement"] for m in json.loads(listed)["memories"])
    assert "Use uv for Python here" in statements
    assert any("[REDACTED:github-token]" in s for s in statements)
    assert_no_secret_anywhere(listed, memvet("memories", "list").stdout)


def test_bulk_import_and_admission_redact_every_stored_text() -> None:
    store = open_store(user="dana")
    try:
        scope = Scope(user="dana", workspace="/home/dana/src/app")
        [mid] = store.import_memories(
            [CandidateDraft(statement=LEAKY, kind="procedure", source_type="import", scope=scope)],
            actor="op",
        )
        ev = Evidence(
            path="/t.jsonl",
            line=3,
            message_id="m1",
            timestamp=None,
            excerpt=f"said: {ESCAPES} {LEAKY}",
            session="s",
        )
        result = store.admit(
            CandidateDraft(
                statement=ESCAPES,
                kind="preference",
                source_type="explicit_user",
                scope=scope,
                evidence=ev,
                usage_boundary=f"only with {GH_TOKEN}",
            )
        )
        memory = store.get_memory(mid)
        detail = store.candidate_detail(result.candidate_id)
        texts = [
            memory.statement,
            detail.candidate.statement,
            detail.candidate.usage_boundary,
            detail.evidence[0].excerpt,
        ]
        assert detail.candidate.statement == "Use uv for Python here"
        assert all("\x1b" not in t and "\r" not in t for t in texts)
        assert_no_secret_anywhere(*texts)
    finally:
        store.close()


@pytest.mark.slow
def test_the_cli_escapes_what_an_older_row_still_holds(monkeypatch) -> None:
    """A row written before the gate existed keeps its escape sequences: the CLI shows them as
    visible escapes, in the human form and in --json (still the same JSON string)."""
    import sqlalchemy as sa

    raw = "Use uv \x1b]0;pwned\x07 for \x1b[2J Python \x9b31m here \u202e"
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")  # shared with the CLI subprocess
    store = open_store()
    try:
        cid = store.admit(
            CandidateDraft(
                statement="Use uv for Python",
                kind="preference",
                source_type="operator",
                scope=Scope(user=store.user),
            )
        ).candidate_id
        with engine_of(store).begin() as conn:  # as an older memvet stored it
            conn.execute(
                sa.text("UPDATE candidates SET statement_ct = :ct WHERE id = :id"),
                {"ct": cipher_of(store).encrypt("candidates", "statement", cid, raw), "id": cid},
            )
    finally:
        store.close()
    human = memvet("queue", "show", cid)
    assert human.returncode == 0, human.stderr
    assert not any(c in human.stdout for c in ("\x1b", "\x07", "\x9b", "\u202e"))
    assert "\\x1b]0;pwned\\x07" in human.stdout and "\\u202e" in human.stdout
    doc = memvet("queue", "show", cid, "--json").stdout
    assert not any(c in doc for c in ("\x1b", "\x07", "\x9b", "\u202e"))
    assert json.loads(doc)["statement"] == raw
