"""Issue 9: a rejected statement never comes back — not with another kind, not at a wider or
narrower scope, not as an edit at approval, not dressed in other punctuation, quotes, invisible
characters or look-alike letters. Through the real CLI (the launcher), one of them as a process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memvet.store import open_store
from memvet.store.canonical import norm2

from .test_cli_and_privacy import in_process, run_json

REJECTED = "We deploy on Fridays"
VARIANTS = {
    "cjk full stop": "We deploy on Fridays。",
    "curly quotes": "“We deploy on Fridays.”",
    "soft hyphen": "We de\u00adploy on Fridays",
    "zero-width space": "We\u200b deploy on Fridays",
    "cyrillic o": "We deplоy оn Fridays",  # U+043E twice
    "full-width": "Ｗe deploy on Fridays！",
    "corner brackets": "「We deploy on Fridays」",
}


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    w, v = tmp_path / "w", tmp_path / "v"
    for repo in (w, v):
        (repo / ".git").mkdir(parents=True)
    return w, v


def reject(statement: str, *where: str, kind: str = "fact") -> str:
    cid = run_json("propose", statement, "--kind", kind, *where)["id"]
    assert run_json("queue", "reject", cid)["results"][0]["status"] == "rejected"
    return cid


def refused(statement: str, *args: str) -> dict:
    out = run_json("propose", statement, *args, code=1)
    assert out["error"]["code"] == "tombstoned", out
    return out


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=list(VARIANTS))
def test_norm2_sees_through_the_disguises(variant):
    assert norm2(variant) == norm2(REJECTED)


def test_norm2_still_tells_different_statements_apart():
    assert norm2("We deploy on Fridays") != norm2("We deploy on Mondays")
    assert norm2("coverage must be 90%") != norm2("coverage must be 90")
    assert norm2("don't use tabs") == norm2("don’t use tabs")  # an inner apostrophe is a quote


def test_another_kind_does_not_bring_it_back(repos):
    w, _ = repos
    reject(REJECTED, "--cwd", str(w), kind="preference")
    for kind in ("fact", "constraint", "decision"):
        refused(REJECTED, "--kind", kind, "--cwd", str(w))
    refused(REJECTED, "--cwd", str(w))  # propose's default kind


def test_a_workspace_rejection_blocks_the_global_form_and_not_other_workspaces(repos):
    w, v = repos
    reject(REJECTED, "--cwd", str(w))
    out = refused(REJECTED, "--global")
    assert out["tombstone"]
    assert run_json("propose", REJECTED, "--cwd", str(v))["status"] == "pending"


def test_a_global_rejection_blocks_every_workspace(repos):
    w, v = repos
    reject(REJECTED, "--global")
    refused(REJECTED, "--cwd", str(w))
    refused(REJECTED, "--cwd", str(v), "--kind", "decision")


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=list(VARIANTS))
def test_disguised_repeats_are_tombstoned(repos, variant):
    w, _ = repos
    reject(REJECTED, "--cwd", str(w))
    refused(variant, "--cwd", str(w))
    store = open_store()
    try:
        assert store.list_tombstones()[0].seen_again == 1
    finally:
        store.close()


def test_approving_another_candidate_as_the_rejected_text_is_refused(repos):
    w, _ = repos
    reject(REJECTED, "--cwd", str(w))
    other = run_json("propose", "We deploy on Mondays", "--cwd", str(w))["id"]
    proc = in_process("queue", "approve", other, "--statement", VARIANTS["cyrillic o"], "--json")
    assert proc.returncode == 1
    result = json.loads(proc.stdout)["results"][0]
    assert result["code"] == "tombstoned" and result["tombstone"]
    assert result["tombstone"] in result["error"] and "--force-over-tombstone" in result["error"]
    listed = run_json("queue", "list")["candidates"]
    assert [(c["id"], c["status"]) for c in listed] == [(other, "pending")]  # nothing committed
    assert run_json("memories", "list", "--all-scopes")["memories"] == []


def test_approving_into_a_blocked_scope_is_refused(repos):
    w, v = repos
    reject(REJECTED, "--cwd", str(w))
    cid = run_json("propose", REJECTED, "--cwd", str(v))["id"]  # another workspace: allowed
    result = run_json("queue", "approve", cid, "--global", code=1)["results"][0]
    assert result["code"] == "tombstoned"


def test_force_over_tombstone_commits_and_is_audited(repos):
    w, _ = repos
    reject(REJECTED, "--cwd", str(w))
    other = run_json("propose", "We deploy on Mondays", "--cwd", str(w))["id"]
    result = run_json("queue", "approve", other, "--statement", REJECTED, "--force-over-tombstone")[
        "results"
    ][0]
    assert result["status"] == "committed"
    memories = run_json("memories", "list", "--cwd", str(w))["memories"]
    assert [m["statement"] for m in memories] == [REJECTED]
    store = open_store()
    try:
        actions = [e.action for e in store.audit_events()]
        assert "tombstone.overridden" in actions
        assert store.list_tombstones(), "the tombstone stays: later repeats are still blocked"
        assert store.verify_audit().ok
    finally:
        store.close()
    refused(REJECTED, "--cwd", str(w), "--kind", "decision")


@pytest.mark.slow
def test_a_real_process_refuses_with_exit_1_and_one_json_document(repos, monkeypatch):
    from .test_cli_and_privacy import memvet

    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")  # the process and this test share the key
    w, _ = repos
    reject(REJECTED, "--cwd", str(w))
    proc = memvet("propose", VARIANTS["soft hyphen"], "--global", "--json")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == "tombstoned"
    human = memvet("propose", VARIANTS["curly quotes"], "--cwd", str(w))
    assert human.returncode == 1 and "tombstone" in human.stdout + human.stderr
