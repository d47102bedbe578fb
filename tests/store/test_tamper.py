"""Someone with write access to memvet.db but without the key edits it with sqlite3: lifecycle,
scope, tombstones and the audit tail are authenticated (row MACs, the chain's head and the state
it records), and one bad row never hides the rest. The hook and the CLI run as real processes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
import sqlalchemy as sa
from memvet.store import CandidateDraft, Scope, open_store
from store_internals import engine_of


def run(*args: str, stdin: bytes | None = None, cwd: str | None = None) -> SimpleNamespace:
    env = {**os.environ, "MEMVET_HOOK_DAEMON": "off"}
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )
    return SimpleNamespace(rc=done.returncode, out=done.stdout.decode(), err=done.stderr.decode())


def hook_context(cwd: str) -> str:
    payload = {
        "session_id": "s-1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    res = run("hook", "claude-code", "session-start", stdin=json.dumps(payload).encode(), cwd=cwd)
    assert res.rc == 0 and res.err == ""
    return json.loads(res.out)["hookSpecificOutput"]["additionalContext"] if res.out else ""


def tamper(sql: str, *params: object) -> int:
    """A plain edit of the file, as anyone who can write it (no key) can make."""
    conn = sqlite3.connect(Path(os.environ["MEMVET_HOME"]) / "memvet.db")
    try:
        changed = conn.execute(sql, params).rowcount
        conn.commit()
    finally:
        conn.close()
    return changed


def verify() -> dict:
    res = run("audit", "verify", "--json")
    doc = json.loads(res.out)
    assert res.rc == (0 if doc["ok"] else 1)
    return doc


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")  # the subprocesses read the key file
    a, b = tmp_path / "proj-a", tmp_path / "proj-b"
    for ws in (a, b):
        (ws / ".git").mkdir(parents=True)
    store = open_store()

    def add(statement: str, workspace: Path | None, *, approve: bool = True) -> str:
        draft = CandidateDraft(
            statement=statement,
            kind="fact",
            source_type="explicit_user",
            host="claude-code",
            scope=Scope(user=store.user, workspace=workspace and str(workspace)),
        )
        cid = store.admit(draft).candidate_id
        return store.approve(cid, actor="test").id if approve else cid

    yield SimpleNamespace(store=store, a=str(a), b=str(b), add=add)
    store.close()


def test_a_false_write_set_back_to_active_is_not_served_and_verify_names_it(world):
    keep = world.add("Run the tests with pytest -q", world.a)
    bad = world.add("Deploy straight to production on Fridays", world.a)
    world.store.false_write(bad, actor="op")
    assert "Fridays" not in hook_context(world.a)
    assert (
        tamper(
            "UPDATE memories SET status='active', retired_reason=NULL, valid_to=NULL WHERE id=?",
            bad,
        )
        == 1
    )

    context = hook_context(world.a)
    assert "pytest -q" in context and "Fridays" not in context
    listed = run("memories", "list", "--cwd", world.a, "--json")
    assert listed.rc == 0
    doc = json.loads(listed.out)
    assert [m["id"] for m in doc["memories"]] == [keep]
    assert doc["unreadable"] == {"count": 1, "ids": [bad]}
    assert bad in listed.err and "failed authentication" in listed.err
    report = verify()
    assert not report["ok"] and report["entity"] == f"memory {bad}" and bad in report["problem"]


def test_a_workspace_memory_made_global_stays_out_of_other_workspaces(world):
    secret = world.add("The A-only deploy token lives in Vault path kv/alpha", world.a)
    world.add("Project B deploys with Heroku", world.b)
    assert tamper("UPDATE memories SET workspace_bidx=NULL WHERE id=?", secret) == 1

    in_b = hook_context(world.b)
    assert "Heroku" in in_b and "kv/alpha" not in in_b
    glob = json.loads(run("memories", "list", "--global", "--json").out)
    assert glob["memories"] == [] and glob["unreadable"]["ids"] == [secret]
    assert verify()["entity"] == f"memory {secret}"


def test_a_tombstone_lifted_or_rescoped_without_the_key_still_blocks(world):
    cid = world.add("Always push with --force", world.a, approve=False)
    world.store.reject(cid, actor="op")
    assert (
        tamper(
            "UPDATE tombstones SET lifted_at='2026-01-01 00:00:00.000000', workspace_bidx='0000'"
        )
        == 1
    )
    again = CandidateDraft(
        statement="Always push with --force",
        kind="fact",
        source_type="explicit_user",
        scope=Scope(user=world.store.user, workspace=world.a),
    )
    assert world.store.admit(again).outcome == "tombstoned"
    assert verify()["entity"].startswith("tombstone ")


def test_a_deleted_tombstone_is_detected(world):
    cid = world.add("Always push with --force", world.a, approve=False)
    world.store.reject(cid, actor="op")
    assert verify()["ok"]
    assert tamper("DELETE FROM tombstones") == 1
    report = verify()
    assert not report["ok"] and report["entity"].startswith("tombstone ")
    assert "deleted" in report["problem"]


def test_deleting_the_last_audit_events_is_detected(world):
    world.add("Run the tests with pytest -q", world.a)
    head = verify()["events"]
    assert tamper("DELETE FROM audit_events WHERE seq > ?", head - 2) == 2
    report = verify()
    assert not report["ok"] and report["first_bad_seq"] == head - 1
    assert "deleted from the end" in report["problem"]


def test_an_older_state_copied_back_is_named_by_verify(world):
    mid = world.add("Deploy straight to production on Fridays", world.a)
    conn = sqlite3.connect(Path(os.environ["MEMVET_HOME"]) / "memvet.db")
    old = conn.execute(
        "SELECT status, valid_to, retired_reason, row_mac FROM memories WHERE id=?", (mid,)
    ).fetchone()
    conn.close()
    world.store.false_write(mid, actor="op")
    tamper(
        "UPDATE memories SET status=?, valid_to=?, retired_reason=?, row_mac=? WHERE id=?",
        *old,
        mid,
    )
    report = verify()  # a replayed MAC is valid on its own: the chain's recorded state is not
    assert not report["ok"] and report["entity"] == f"memory {mid}"
    assert "older copy" in report["problem"]


def test_one_bad_ciphertext_hides_only_its_own_row(world):
    keep = world.add("Run the tests with pytest -q", world.a)
    bad = world.add("Use uv for every Python install", world.a)
    pending = world.add("Format with ruff format", world.a, approve=False)
    broken = world.add("Lint with ruff check", world.a, approve=False)
    for table, rid in (("memories", bad), ("candidates", broken)):
        conn = sqlite3.connect(Path(os.environ["MEMVET_HOME"]) / "memvet.db")
        blob = bytearray(
            conn.execute(f"SELECT statement_ct FROM {table} WHERE id=?", (rid,)).fetchone()[0]
        )
        blob[-1] ^= 1
        conn.close()
        tamper(f"UPDATE {table} SET statement_ct=? WHERE id=?", bytes(blob), rid)

    memories = run("memories", "list", "--cwd", world.a, "--json")
    assert memories.rc == 0
    assert [m["id"] for m in json.loads(memories.out)["memories"]] == [keep]
    assert json.loads(memories.out)["unreadable"]["ids"] == [bad]
    queue = run("queue", "list", "--json")
    assert queue.rc == 0 and [c["id"] for c in json.loads(queue.out)["candidates"]] == [pending]
    assert json.loads(queue.out)["unreadable"]["ids"] == [broken]
    human = run("queue", "list")
    assert human.rc == 0 and "Format with ruff" in human.out and broken in human.err
    context = hook_context(world.a)
    assert "pytest -q" in context and "uv for every" not in context
    recall = run("recall", "how do we run the tests", "--cwd", world.a, "--json")
    assert recall.rc == 0 and json.loads(recall.out)["state"] == "VERIFIED"
    assert bad in json.loads(recall.out)["unreadable"]["ids"]


def test_a_sweep_passes_over_a_row_that_fails(world):
    from datetime import timedelta

    from memvet.store import IntegrityError

    first = world.add("Format with ruff format", world.a, approve=False)
    second = world.add("Lint with ruff check", world.a, approve=False)
    tamper("UPDATE candidates SET kind='constraint' WHERE id=?", first)
    later = world.store.now() + timedelta(days=400)
    assert world.store.expire_candidates(later, timedelta(days=30)) == 1
    assert world.store.get_candidate_record(second).status == "expired"
    with pytest.raises(IntegrityError):
        world.store.get_candidate_record(first)
    assert world.store.unreadable()["ids"] == [first]


def test_a_store_from_before_row_macs_is_sealed_by_the_upgrade(tmp_path):
    """A schema-2 store (rows written by the old code, without MACs) upgraded by `migrate`: every
    row is sealed, the old chain still verifies and gains its head, and tampering afterwards is
    caught."""
    from memvet.store.audit import GENESIS, _digest
    from memvet.store.engine import create_store_engine
    from memvet.store.keyring_setup import load_cipher
    from memvet.store.schema import migrate

    home = tmp_path / "old-home"
    home.mkdir(mode=0o700)
    engine = create_store_engine(home / "memvet.db")
    migrate(engine, target=2)
    at = "2026-03-01 09:00:00.000000"
    cipher, _ = load_cipher(engine, home, datetime.now(UTC))
    user, ws = "dana", "/home/dana/src/app"
    cid, mid, rid = "c_old1", "m_old1", "c_old2"
    rows = {"candidates": [], "memories": []}
    for table, row_id, statement, status in (
        ("candidates", cid, "we use uv here", "committed"),
        ("candidates", rid, "never run make clean", "rejected"),
        ("memories", mid, "we use uv here", "active"),
    ):
        rows[table].append(
            {
                "id": row_id,
                "status": status,
                "kind": "fact",
                "source_type": "explicit_user",
                "user_bidx": cipher.blind_index("user", user),
                "workspace_bidx": cipher.blind_index("workspace", ws),
                "content_key": cipher.content_key(user, ws, None, "fact", statement),
                "statement_ct": cipher.encrypt(table, "statement", row_id, statement),
                "user_ct": cipher.encrypt(table, "user", row_id, user),
                "workspace_ct": cipher.encrypt(table, "workspace", row_id, ws),
            }
        )
    with engine.begin() as conn:
        for row in rows["candidates"]:
            conn.execute(
                sa.text(
                    "INSERT INTO candidates (id, status, kind, source_type, user_bidx, workspace_bidx, "
                    "content_key, polarity, confidence, importance, evidence_count, created_at, "
                    "updated_at, statement_ct, user_ct, workspace_ct) VALUES (:id, :status, :kind, "
                    ":source_type, :user_bidx, :workspace_bidx, :content_key, 'assert', 0.8, 1, 1, "
                    f"'{at}', '{at}', :statement_ct, :user_ct, :workspace_ct)"
                ),
                row,
            )
        conn.execute(
            sa.text(
                "INSERT INTO memories (id, candidate_id, status, kind, source_type, user_bidx, "
                "workspace_bidx, content_key, polarity, confidence, importance, approved_by, "
                "valid_from, recorded_at, updated_at, conflict_state, statement_ct, user_ct, "
                "workspace_ct) VALUES (:id, 'c_old1', :status, :kind, :source_type, :user_bidx, "
                ":workspace_bidx, :content_key, 'assert', 1.0, 1, 'op', "
                f"'{at}', '{at}', '{at}', 'none', :statement_ct, :user_ct, :workspace_ct)"
            ),
            rows["memories"][0],
        )
        conn.execute(
            sa.text(
                "INSERT INTO tombstones (content_key, reason, source_id, created_at, seen_again) "
                f"VALUES (:k, 'rejected', :s, '{at}', 0)"
            ),
            {"k": rows["candidates"][1]["content_key"], "s": rid},
        )
        digest = _digest(
            cipher.audit_key,
            1,
            datetime(2026, 3, 1, 9, tzinfo=UTC),
            "op",
            "memory.created",
            "memory",
            mid,
            None,
            GENESIS,
        )
        conn.execute(
            sa.text(
                "INSERT INTO audit_events (seq, at, actor, action, entity_type, entity_id, "
                f"prev_hash, hash) VALUES (1, '{at}', 'op', 'memory.created', 'memory', :m, :g, :h)"
            ),
            {"m": mid, "g": GENESIS, "h": digest},
        )
    engine.dispose()

    store = open_store(home, schema="upgrade", user=user)
    try:
        assert [m.id for m in store.list_memories(store.reader_for(ws))] == [mid]
        assert store.get_candidate_record(rid).status == "rejected"
        report = store.verify_audit()
        assert report.ok, report.problem
        again = CandidateDraft(
            statement="never run make clean",
            kind="fact",
            source_type="explicit_user",
            scope=Scope(user=user, workspace=ws),
        )
        assert store.admit(again).outcome == "tombstoned"
        with engine_of(store).begin() as conn:  # as an attacker would, after the upgrade
            conn.execute(sa.text("UPDATE memories SET status='retired' WHERE id=:m"), {"m": mid})
        assert store.list_memories(store.reader_for(ws), statuses=("retired",)) == []
        assert store.verify_audit().entity == f"memory {mid}"
    finally:
        store.close()


@pytest.mark.parametrize("sort", ["created", "confidence", "host"])
def test_pages_stay_full_around_a_row_that_fails(world, sort):
    ids = [world.add(f"Rule number {i} for the build", world.a, approve=False) for i in range(6)]
    tamper("UPDATE candidates SET status='pending', kind='constraint' WHERE id=?", ids[1])
    reader, pages, after = world.store.reader_for(None, all_scopes=True), [], None
    while True:
        page = world.store.list_candidates(reader, None, limit=2, after=after, sort=sort)
        pages.append([c.id for c in page])
        if len(page) < 2:  # a pager's "end of the queue"
            break
        last = page[-1]
        after = (
            (last.created_at, last.id)
            if sort == "created"
            else (last.confidence if sort == "confidence" else last.host, last.created_at, last.id)
        )
    assert [len(p) for p in pages] == [2, 2, 1]
    assert sorted(sum(pages, [])) == sorted(ids[:1] + ids[2:])


def test_only_a_false_write_or_forget_settles_a_row_that_fails(world):
    from memvet.store import IntegrityError

    mid = world.add("Deploy straight to production on Fridays", world.a)
    world.store.false_write(mid, actor="op")
    tamper(
        "UPDATE memories SET status='active', retired_reason=NULL, valid_to=NULL WHERE id=?", mid
    )
    with pytest.raises(IntegrityError):
        world.store.dispute(mid, actor="op")  # would re-seal the forged state
    world.store.false_write(mid, actor="op")  # takes it out of use for good, sealed as such
    memory = world.store.get_memory(mid)
    assert memory.status == "retired" and memory.retired_reason == "false_write"
    assert verify()["ok"]


@pytest.mark.parametrize("key_bytes", [16, 32, 64, 65, 100])
def test_the_row_mac_is_hmac_sha256_of_its_columns(key_bytes):
    import hashlib
    import hmac

    from memvet.store import row_mac

    key = os.urandom(key_bytes)
    at = datetime(2026, 3, 1, 9, tzinfo=UTC)
    values = ("active", None, "ws", at)
    body = "\x1f".join(
        ("memvet/row/v1", "memories", "m_1", "active", "\x00", "ws", "2026-03-01 09:00:00.000000")
    ).encode()
    expected = hmac.new(key, body, hashlib.sha256).hexdigest()
    assert row_mac.mac(key, "memories", "m_1", values) == expected
    assert (
        row_mac.mac(key, "memories", "m_1", values[:3] + ("2026-03-01 09:00:00.000000",))
        == expected
    )  # a datetime and SQLite's text of it seal alike
    assert row_mac.mac(key, "memories", "m_2", values) != expected
