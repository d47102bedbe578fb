"""Old memories come back for a look (store/review.py, `memories list --review`, `confirm`)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from memvet.store import CandidateDraft, MemvetError, Scope
from memvet.store.review import review_after

APP = "/home/dana/src/app"


def propose(store, statement: str, kind: str = "fact") -> str:
    draft = CandidateDraft(
        statement=statement,
        kind=kind,
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=APP),
        host="claude-code",
    )
    return store.admit(draft).candidate_id


def due(store) -> dict[str, tuple[str, ...]]:
    return {f.memory.id: f.reasons for f in store.review_due(store.reader_for(APP))}


def test_a_memory_unconfirmed_for_90_days_is_due_until_confirmed(store, clock):
    old = store.approve(propose(store, "The API listens on port 8000"), actor="dana")
    clock.advance(days=60)
    young = store.approve(propose(store, "Deploys go through Argo CD", "procedure"), actor="dana")
    clock.advance(days=31)
    assert due(store) == {old.id: ("unconfirmed_for_days",)}
    store.confirm(old.id, actor="dana")
    assert due(store) == {}
    clock.advance(days=60)
    assert set(due(store)) == {young.id}
    assert "memory.confirmed" in [e.action for e in store.audit_events(10)]
    assert store.verify_audit().ok


def test_a_later_session_on_the_same_subject_flags_it(store, clock):
    memory = store.approve(propose(store, "Staging postgres listens on port 5433"), actor="dana")
    clock.advance(days=3)
    propose(store, "Staging postgres listens on port 6543 now")
    assert due(store) == {memory.id: ("newer_session_on_subject",)}


def test_only_an_active_memory_is_confirmed(store):
    memory = store.approve(propose(store, "Lint with ruff"), actor="dana")
    store.forget(memory.id, actor="dana")
    with pytest.raises(MemvetError) as err:
        store.confirm(memory.id, actor="dana")
    assert err.value.code == "illegal_transition"


def test_the_review_age_is_configurable_and_a_bad_value_falls_back(tmp_path):
    assert review_after(tmp_path) == timedelta(days=90)
    (tmp_path / "config.toml").write_text("[review]\nafter_days = 30\n")
    assert review_after(tmp_path) == timedelta(days=30)
    (tmp_path / "config.toml").write_text("[review]\nafter_days = 'soon'\n")
    assert review_after(tmp_path) == timedelta(days=90)
    (tmp_path / "config.toml").write_text("not toml [")
    assert review_after(tmp_path) == timedelta(days=90)


def test_cli_lists_due_memories_and_confirms(store, clock, capsys, monkeypatch):
    from memvet.store import cli_handlers
    from memvet.store.cli_review import memories_confirm

    memory = store.approve(propose(store, "The API listens on port 8000"), actor="dana")
    clock.advance(days=100)
    monkeypatch.setattr(cli_handlers, "_open", lambda: store)
    args = type(
        "A",
        (),
        {
            "all_scopes": False,
            "global_": False,
            "cwd": APP,
            "status": None,
            "as_of": None,
            "recorded_as_of": None,
            "review": True,
            "json": True,
            "id": memory.id,
        },
    )()
    monkeypatch.setattr(cli_handlers, "resolve_workspace", lambda path: APP)
    assert cli_handlers.memories_list(args) == 0
    listed = json.loads(capsys.readouterr().out)["memories"]
    assert [m["id"] for m in listed] == [memory.id]
    assert listed[0]["review"] == ["unconfirmed_for_days"]
    assert memories_confirm(args) == 0
    assert json.loads(capsys.readouterr().out)["confirmed"] is True
    assert cli_handlers.memories_list(args) == 0
    assert json.loads(capsys.readouterr().out)["memories"] == []
    args.status = ["retired"]
    with pytest.raises(MemvetError):
        cli_handlers.memories_list(args)
