"""Editing an approved memory (store/memory_edit.py): one audited transaction that re-gates the
text, respects tombstones and the slot, re-indexes it, and keeps the version it replaced for undo."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import timedelta

import pytest
import sqlalchemy as sa
from memvet.store import CandidateDraft, MemoryEdits, MemvetError, Scope, open_store
from memvet.store.recall import recall
from store_internals import engine_of

APP = "/home/dana/src/app"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def approve(store, statement: str, kind: str = "fact") -> str:
    draft = CandidateDraft(
        statement=statement,
        kind=kind,
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=APP),
        host="claude-code",
    )
    return store.approve(store.admit(draft).candidate_id, actor="dana").id


def answer(store, question: str):
    return recall(store, question, workspace=APP)


def ids(result) -> list[str]:
    return [m.id for m in result.memories]


def test_an_edit_rewrites_the_memory_in_place_and_recall_follows_it(store, clock):
    mid = approve(store, "The staging database listens on port 5432")
    before = store.get_memory(mid)
    clock.advance(days=1)
    change = store.edit_memory(
        mid, MemoryEdits(statement="The staging redis listens on port 6380"), actor="dana"
    )
    after = change.memory
    assert after.id == mid and after.statement == "The staging redis listens on port 6380"
    assert after.status == "active" and after.subject != before.subject  # re-derived
    assert after.subject == "staging redis port"
    assert after.valid_from == before.valid_from  # still when the user said it
    got = answer(store, "which port does staging redis listen on?")
    assert got.state == "VERIFIED" and ids(got) == [mid]
    for old_words in ("database", "5432"):  # the term index no longer holds the old text
        assert answer(store, old_words).memories == ()
    assert [t.reason for t in store.transitions(mid)] == ["approved", "edited"]
    (edited_at, actor, undone, version) = store.memory_versions(mid)[0]
    assert (actor, undone, version.statement) == ("dana", False, before.statement)
    assert store.verify_audit().ok  # the new row MAC is the one the chain recorded
    assert store.audit_events(1)[0].action == "memory.edited"


def test_a_secret_typed_into_an_edit_is_redacted_everywhere_it_lands(store):
    mid = approve(store, "Deploys read the token from the vault")
    changed = store.edit_memory(
        mid, MemoryEdits(statement=f"Deploys use the token {TOKEN}"), actor="dana"
    ).memory
    assert TOKEN not in changed.statement and "[REDACTED" in changed.statement
    assert all(TOKEN not in (e.preview or "") for e in store.audit_events(20))
    with engine_of(store).connect() as conn:  # nor in any column, in the clear
        for table in ("memories", "memory_versions", "audit_events"):
            for row in conn.execute(sa.text(f"SELECT * FROM {table}")):
                assert all(TOKEN.encode() not in bytes(str(v), "utf-8") for v in row)


def test_an_edit_into_a_tombstoned_statement_is_refused_unless_forced(store):
    dropped = approve(store, "Run the linters with flake8")
    store.false_write(dropped, actor="dana")
    mid = approve(store, "Run the linters with ruff")
    with pytest.raises(MemvetError) as err:
        store.edit_memory(mid, MemoryEdits(statement="Run the linters with flake8"), actor="dana")
    assert err.value.code == "tombstoned" and err.value.exit_code == 1
    assert store.get_memory(mid).statement == "Run the linters with ruff"
    assert store.memory_versions(mid) == []
    forced = store.edit_memory(
        mid,
        MemoryEdits(statement="Run the linters with flake8", force_over_tombstone=True),
        actor="dana",
    )
    assert forced.memory.statement == "Run the linters with flake8"
    assert "tombstone.overridden" in [e.action for e in store.audit_events(5)]


def test_bad_edits_are_refused_and_change_nothing(store):
    mid = approve(store, "The docs are built with mkdocs")
    other = approve(store, "The API docs are built with sphinx")
    memory = store.get_memory(mid)
    cases = [
        (MemoryEdits(statement="   "), "usage"),
        (MemoryEdits(kind="opinion"), "usage"),
        (MemoryEdits(valid_to=memory.valid_from - timedelta(days=1)), "usage"),
        (MemoryEdits(statement=memory.statement), "usage"),  # changes nothing
        (MemoryEdits(statement="The API docs are built with sphinx"), "duplicate"),
    ]
    for edits, code in cases:
        with pytest.raises(MemvetError) as err:
            store.edit_memory(mid, edits, actor="dana")
        assert err.value.code == code, edits
    assert store.get_memory(mid) == memory and store.memory_versions(mid) == []
    store.forget(other, actor="dana")
    with pytest.raises(MemvetError) as err:
        store.edit_memory(other, MemoryEdits(statement="Docs: sphinx"), actor="dana")
    assert err.value.code == "illegal_transition"
    with pytest.raises(MemvetError) as err:
        store.edit_memory("m_nope", MemoryEdits(statement="x"), actor="dana")
    assert err.value.code == "not_found"


def test_an_edit_into_a_rival_value_asks_or_follows_the_decision(store):
    old = approve(store, "The staging postgres listens on port 5432")
    mid = approve(store, "Staging uses the postgres database")
    rival = MemoryEdits(
        statement="The staging postgres listens on port 5433", subject="staging postgres port"
    )
    with pytest.raises(MemvetError) as err:
        store.edit_memory(mid, MemoryEdits(**{**rival.__dict__, "conflict": "ask"}), actor="dana")
    assert err.value.code == "conflict" and err.value.details["memories"][0]["id"] == old
    assert store.get_memory(mid).statement == "Staging uses the postgres database"
    store.edit_memory(
        mid,
        MemoryEdits(**{**rival.__dict__, "conflict": "supersede", "supersede_ids": (old,)}),
        actor="dana",
    )
    assert store.get_memory(old).status == "superseded"
    got = answer(store, "what port does staging postgres listen on?")
    assert got.state == "VERIFIED" and ids(got)[0] == mid


def test_undoing_an_edit_that_superseded_others_puts_them_back_and_says_so(store):
    old = approve(store, "The staging postgres listens on port 5432")
    mid = approve(store, "Staging uses the postgres database")
    rival = MemoryEdits(
        statement="The staging postgres listens on port 5433", subject="staging postgres port"
    )
    preview = store.edit_conflicts(mid, rival)  # what the inspector's dialog shows; writes nothing
    assert [m.id for m, _ in preview.rivals] == [old] and preview.preselect == (old,)
    assert store.get_memory(mid).statement == "Staging uses the postgres database"
    assert store.edit_memory(mid, replace(rival, conflict="supersede"), actor="dana").restored == ()
    assert store.get_memory(old).status == "superseded"  # no ids given: the preselected ones
    back = store.undo_edit(mid, actor="dana")
    assert back.restored == (old,) and back.memory.statement == "Staging uses the postgres database"
    again = store.get_memory(old)
    assert again.status == "active" and again.valid_to is None and again.superseded_by_id is None
    got = answer(store, "what port does staging postgres listen on?")
    assert got.state == "VERIFIED" and ids(got)[0] == old
    # An edit that superseded nothing puts nothing back.
    store.edit_memory(mid, MemoryEdits(statement="Staging runs postgres 16"), actor="dana")
    assert store.undo_edit(mid, actor="dana").restored == ()
    assert store.verify_audit().ok


def test_a_preview_of_an_edit_into_its_own_slot_finds_no_rival(store):
    approve(store, "The staging postgres listens on port 5432")
    mid = approve(store, "The worker listens on port 9000")
    found = store.edit_conflicts(mid, MemoryEdits(statement="The worker listens on port 9001"))
    assert found.rivals == ()
    with pytest.raises(MemvetError) as err:
        store.edit_conflicts("m_nope", MemoryEdits(statement="x"))
    assert err.value.code == "not_found"


def test_two_editors_from_one_version_cannot_both_win(store, tmp_path, clock):
    mid = approve(store, "Releases are cut on Thursdays")
    seen = store.get_memory(mid)
    second = open_store(store.home, clock=clock, user="dana")
    try:
        second.edit_memory(
            mid, MemoryEdits(statement="Releases are cut on Fridays"), actor="b", based_on=seen
        )
        with pytest.raises(MemvetError) as err:
            store.edit_memory(
                mid, MemoryEdits(statement="Releases are cut on Mondays"), actor="a", based_on=seen
            )
        assert err.value.code == "edited_meanwhile" and "Fridays" in err.value.message
        # At the same moment, from the same version: exactly one edit lands.
        seen = store.get_memory(mid)
        results: list[str] = []

        def edit(s, text: str) -> None:
            try:
                s.edit_memory(mid, MemoryEdits(statement=text), actor=text, based_on=seen)
                results.append("ok")
            except MemvetError as exc:
                results.append(exc.code)

        threads = [
            threading.Thread(target=edit, args=(s, t))
            for s, t in ((store, "Releases ship on Tuesdays"), (second, "Releases ship on Sundays"))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == ["edited_meanwhile", "ok"]
        assert len(store.memory_versions(mid)) == 2
        assert store.verify_audit().ok
    finally:
        second.close()


def test_undo_puts_back_each_earlier_version_in_turn(store, clock):
    mid = approve(store, "Format the code with black")
    first = store.get_memory(mid)
    clock.advance(hours=1)
    store.edit_memory(mid, MemoryEdits(statement="Format the code with ruff format"), actor="dana")
    clock.advance(hours=1)
    store.edit_memory(mid, MemoryEdits(kind="preference", subject="code formatter"), actor="dana")
    back = store.undo_edit(mid, actor="dana").memory
    assert (back.statement, back.kind) == ("Format the code with ruff format", first.kind)
    assert ids(answer(store, "how do I format the code with ruff?")) == [mid]
    back = store.undo_edit(mid, actor="dana").memory
    assert (back.statement, back.subject, back.kind) == (first.statement, first.subject, first.kind)
    assert ids(answer(store, "do we format with black?"))[:1] == [mid]
    assert [undone for _, _, undone, _ in store.memory_versions(mid)] == [True, True]
    with pytest.raises(MemvetError) as err:
        store.undo_edit(mid, actor="dana")
    assert err.value.code == "illegal_transition"
    actions = [e.action for e in store.audit_events(10)]
    assert actions.count("memory.edit_undone") == 2 and store.verify_audit().ok


def test_undo_never_brings_back_a_wording_that_was_tombstoned_since(store):
    mid = approve(store, "Tests run with nose")
    store.edit_memory(mid, MemoryEdits(statement="Tests run with pytest"), actor="dana")
    twin = approve(store, "Tests run with nose")  # said again, approved, then false-written
    store.false_write(twin, actor="dana")
    with pytest.raises(MemvetError) as err:
        store.undo_edit(mid, actor="dana")
    assert err.value.code == "tombstoned"
    assert store.get_memory(mid).statement == "Tests run with pytest"


def test_an_edited_memory_can_still_have_its_approval_undone(store):
    draft = CandidateDraft(
        statement="Builds run on GitHub Actions",
        kind="fact",
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=APP),
        host="claude-code",
    )
    cid = store.admit(draft).candidate_id
    mid = store.approve(cid, actor="dana").id
    store.edit_memory(mid, MemoryEdits(statement="Builds run on Buildkite"), actor="dana")
    cand, _ = store.undo_approval(cid, actor="dana")
    assert cand.status == "pending" and store.memory_versions(mid) == []
    assert store.verify_audit().ok


# --- the command line ---------------------------------------------------------------------------
def run(*args: str, code: int = 0) -> dict:
    import contextlib
    import io
    import json

    from memvet.install.launcher import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        got = main([*args, "--json"])
    assert got == code, err.getvalue() + out.getvalue()
    docs = out.getvalue().strip().splitlines()
    assert len(docs) == 1  # exactly one JSON document, success or failure
    return json.loads(docs[0])


def test_memories_edit_on_the_command_line(tmp_path):
    ws = tmp_path / "repo"
    (ws / ".git").mkdir(parents=True)
    cwd = ("--cwd", str(ws))

    def approve_cli(text: str) -> str:
        cid = run("propose", text, "--kind", "fact", *cwd)["id"]
        return run("queue", "approve", cid)["results"][0]["memory_id"]

    port = approve_cli("The API listens on port 8000")
    other = approve_cli("The worker listens on port 9000")
    done = run("memories", "edit", port, "--statement", "The API listens on port 8080")
    assert done["statement"] == "The API listens on port 8080" and done["status"] == "active"
    listed = {m["id"]: m["statement"] for m in run("memories", "list", *cwd)["memories"]}
    assert listed[port] == "The API listens on port 8080"
    # A rival value in the slot is refused naming the memory, then settled by a choice.
    refused = run("memories", "edit", other, "--statement", "The API listens on port 8000", code=1)
    assert refused["error"]["code"] == "conflict"
    assert [m["id"] for m in refused["error"]["conflicts"]] == [port]
    kept = run(
        "memories",
        "edit",
        other,
        "--statement",
        "The API listens on port 8000",
        "--supersede",
        port,
    )
    assert kept["statement"] == "The API listens on port 8000"
    assert run("memories", "list", *cwd, "--status", "superseded")["memories"][0]["id"] == port
    bad = run("memories", "edit", other, "--valid-until", "2000-01-01", code=2)
    assert bad["error"]["code"] == "usage" and "valid until" in bad["error"]["message"]
    assert run("memories", "edit", other, code=2)["error"]["code"] == "usage"
    undone = run("memories", "edit", other, "--undo")
    assert undone["statement"] == "The worker listens on port 9000"
    assert undone["restored"] == [port]  # what the undone edit had superseded is active again
    back = {m["id"] for m in run("memories", "list", "--cwd", str(ws))["memories"]}
    assert back == {port, other}  # the memory the edit superseded is active again
    assert run("memories", "edit", other, "--undo", code=1)["error"]["code"] == "illegal_transition"
    assert run("memories", "edit", "m_missing", "--statement", "x", code=1)["error"]["code"] == (
        "not_found"
    )


def test_the_store_as_recorded_before_an_edit_says_what_it_said_then(store, clock):
    mid = approve(store, "Logs are kept for 14 days")
    clock.advance(days=2)
    before_edit = clock.now
    clock.advance(days=1)
    store.edit_memory(mid, MemoryEdits(statement="Logs are kept for 30 days"), actor="dana")
    reader = store.reader_for(APP)
    then = store.list_memories(reader, recorded_as_of=before_edit)
    assert [m.statement for m in then] == ["Logs are kept for 14 days"]
    assert [m.statement for m in store.list_memories(reader)] == ["Logs are kept for 30 days"]
