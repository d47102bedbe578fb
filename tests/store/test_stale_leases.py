"""An approval killed without a running daemon: its lease runs out, and from then on `queue list`
shows it as stale (at read time, no sweep needed) and `queue recover` settles it, no daemon."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memvet.store import MemvetError, QueueFilter

LAUNCHER = [sys.executable, "-m", "memvet.install.launcher"]
HANGING_APPROVER = Path(__file__).parent / "helpers" / "approve_then_hang.py"


def memvet(*args: str) -> dict:
    proc = subprocess.run(
        [*LAUNCHER, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return {"code": proc.returncode, **json.loads(proc.stdout)}


@pytest.mark.slow
def test_an_approval_killed_between_reserve_and_commit_is_seen_stale_and_recovered(monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    cid = memvet("propose", "release branches are cut on thursdays", "--global")["id"]
    approver = subprocess.Popen(
        [sys.executable, str(HANGING_APPROVER), "queue", "approve", cid],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert approver.stderr.readline().strip() == "reserved"
    os.kill(approver.pid, signal.SIGKILL)  # the approver dies holding the lease
    approver.wait(timeout=10)
    assert not (Path(os.environ["MEMVET_HOME"]) / "run" / "daemon.pid").exists()
    time.sleep(1.2)  # its one-second lease runs out

    listed = memvet("queue", "list")["candidates"]  # default: pending and stale
    assert [(c["id"], c["status"]) for c in listed] == [(cid, "stale")]
    assert memvet("queue", "list", "--status", "reserved")["candidates"] == []
    assert memvet("queue", "show", cid)["status"] == "stale"
    assert memvet("status")["store"]["queue"] == {"stale": 1}

    recovered = memvet("queue", "recover", cid, "--commit")
    assert recovered["code"] == 0, recovered
    [result] = recovered["results"]
    assert result["status"] == "committed" and result["memory_id"]
    memories = memvet("memories", "list", "--all-scopes")["memories"]
    assert [m["candidate_id"] for m in memories] == [cid]
    assert memvet("queue", "list")["candidates"] == []
    again = memvet("queue", "recover", cid, "--commit")  # a second commit changes nothing
    assert len(memvet("memories", "list", "--all-scopes")["memories"]) == 1, again


def test_a_live_lease_stays_reserved_and_an_expired_one_reads_as_stale(store, clock):
    from datetime import timedelta

    from memvet.store import CandidateDraft, Scope

    scope = Scope(user="dana", workspace=None, agent=None, session=None)
    cid = store.admit(
        CandidateDraft(
            statement="we tag releases as vX.Y.Z",
            kind="procedure",
            source_type="operator",
            scope=scope,
            host="memvet",
            confidence=1.0,
            reasons=("test",),
        )
    ).candidate_id
    reader = store.reader_for(None, all_scopes=True)
    store.reserve(cid, owner="an approver", ttl=timedelta(minutes=2))

    def listed(*statuses: str) -> list[str]:
        return [c.id for c in store.list_candidates(reader, QueueFilter(statuses=statuses))]

    assert store.get_candidate(cid).status == "reserved"
    assert listed("reserved") == [cid] and listed("pending", "stale") == []
    assert store.queue_counts(reader) == {"reserved": 1}
    with pytest.raises(Exception, match="not stale"):
        store.recover(cid, "commit", actor="operator")  # a live lease is not anyone's to settle

    clock.advance(minutes=2, seconds=1)
    assert store.get_candidate(cid).status == "stale"
    assert listed("reserved") == [] and listed("pending", "stale") == [cid]
    assert listed("stale", "reserved") == [cid]
    assert store.queue_counts(reader) == {"stale": 1}
    store.recover(cid, "release", actor="operator")
    assert store.get_candidate(cid).status == "pending"


def test_recovery_never_moves_a_decided_candidate(store):
    from memvet.store import CandidateDraft, IllegalTransitionError, Scope

    scope = Scope(user="dana", workspace=None, agent=None, session=None)
    cid = store.admit(
        CandidateDraft(
            statement="we tag releases as vX.Y.Z",
            kind="procedure",
            source_type="operator",
            scope=scope,
            host="memvet",
            confidence=1.0,
            reasons=("test",),
        )
    ).candidate_id
    memory = store.approve(cid, actor="A")
    for action in ("release", "reject"):
        with pytest.raises((IllegalTransitionError, MemvetError)):
            store.recover(cid, action, actor="operator")
    assert store.get_candidate(cid).status == "committed"
    assert store.recover(cid, "commit", actor="operator").id == memory.id  # idempotent
