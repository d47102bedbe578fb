"""Several OS processes approving the same candidates; a process killed between reserve and commit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import timedelta

import pytest
from memvet.store import open_store

from .conftest import draft

APPROVER = textwrap.dedent("""
    import json, sys
    from memvet.store import open_store, MemvetError
    store = open_store(user="dana")
    out = []
    for cid in sys.argv[2:]:
        try:
            m = store.approve(cid, actor="approver " + sys.argv[1])
            out.append({"id": cid, "ok": True, "memory": m.id})
        except MemvetError as exc:
            out.append({"id": cid, "ok": False, "code": exc.code, "message": exc.message})
    print(json.dumps(out))
""")

CRASHER = textwrap.dedent("""
    import os, sys
    from memvet.store import open_store
    store = open_store(user="dana")
    store.reserve(sys.argv[1], owner="doomed inspector")
    print("reserved", flush=True)
    sys.stdin.read()  # wait here, holding the lease, until killed
""")


@pytest.fixture
def file_keys(monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")


@pytest.mark.slow
def test_processes_racing_commit_each_candidate_exactly_once(file_keys):
    store = open_store(user="dana")
    ids = [
        store.admit(draft(f"convention number {i} holds", kind="constraint")).candidate_id
        for i in range(12)
    ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", APPROVER, str(n), *ids],
            stdout=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for n in range(4)
    ]
    results = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    for cid in ids:
        outcomes = [r for batch in results for r in batch if r["id"] == cid]
        winners = [o for o in outcomes if o["ok"]]
        assert len(winners) == 1, outcomes
        for loser in (o for o in outcomes if not o["ok"]):
            assert loser["code"] in ("reservation_held", "already_decided")
            assert "approver" in loser["message"] or "committed" in loser["message"]
    reader = store.reader_for(None, all_scopes=True)
    memories = store.list_memories(reader)
    assert len(memories) == len(ids) == len({m.candidate_id for m in memories})
    assert store.verify_audit().ok


@pytest.mark.slow
def test_a_process_killed_between_reserve_and_commit_leaves_a_recoverable_stale_lease(file_keys):
    store = open_store(user="dana")
    cid = store.admit(draft("release branches are cut on thursdays", kind="procedure")).candidate_id
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASHER, cid],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert proc.stdout.readline().strip() == "reserved"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    held = store.get_candidate(cid)
    assert held.status == "reserved" and held.lease.owner == "doomed inspector"
    # not retried automatically: only the sweep marks it stale once the lease time has passed
    assert store.mark_stale_leases(held.lease.expires_at) == 0
    assert store.mark_stale_leases(held.lease.expires_at + timedelta(seconds=1)) == 1
    memory = store.recover(cid, "commit", actor="operator")
    again = store.recover(cid, "commit", actor="operator")  # a second commit is idempotent
    assert again.id == memory.id
    assert len(store.list_memories(store.reader_for(None, all_scopes=True))) == 1
