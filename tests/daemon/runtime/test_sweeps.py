"""The sweeps, each with a fake clock, and their bookkeeping (recorded runs, due jobs)."""

from __future__ import annotations

import logging
from datetime import timedelta

import sqlalchemy as sa
from memvet.daemon.settings import DaemonSettings
from memvet.daemon.sweeps import (
    SweepResult,
    due_sweeps,
    run_sweep,
    store_sweeps,
    sweep_decay_confidence,
    sweep_expire_candidates,
    sweep_retire_memories,
    sweep_stale_leases,
    sweep_verify_audit,
)
from memvet.store import Edits
from store_internals import engine_of

from .conftest import make_draft


def queue(store, statement: str, **kw):  # noqa: ANN001, ANN201
    return store.admit(make_draft(statement, **kw)).candidate_id


def test_stale_leases(store, clock) -> None:
    cid = queue(store, "we use uv")
    store.reserve(cid, owner="inspector pid 1", ttl=timedelta(minutes=2))
    assert sweep_stale_leases(store, clock.now).changed == 0
    clock.advance(minutes=3)
    assert sweep_stale_leases(store, clock.now) == SweepResult(1)
    assert store.get_candidate_record(cid).status == "stale"
    assert sweep_stale_leases(store, clock.now).changed == 0  # idempotent


def test_expire_old_pending_candidates(store, clock) -> None:
    old = queue(store, "old statement")
    clock.advance(days=20)
    fresh = queue(store, "fresh statement")
    clock.advance(days=11)
    result = sweep_expire_candidates(store, clock.now, max_age=timedelta(days=30))
    assert result.changed == 1
    assert store.get_candidate_record(old).status == "expired"
    assert store.get_candidate_record(fresh).status == "pending"


def test_retire_memories_past_validity(store, clock) -> None:
    cid = queue(store, "the staging db is on port 5433")
    memory = store.approve(
        cid, actor="operator", edits=Edits(valid_to=clock.now + timedelta(days=1))
    )
    assert sweep_retire_memories(store, clock.now).changed == 0
    clock.advance(days=2)
    assert sweep_retire_memories(store, clock.now).changed == 1
    assert store.get_memory(memory.id).status == "retired"
    assert sweep_retire_memories(store, clock.now).changed == 0


def test_decay_only_touches_model_inferred_memories(store, clock) -> None:
    inferred = store.approve(
        queue(store, "probably uses poetry", source="model_inference", confidence=0.8),
        actor="operator",
    )
    explicit = store.approve(queue(store, "we use uv", confidence=0.8), actor="operator")
    clock.advance(days=90)
    result = sweep_decay_confidence(store, clock.now, half_life=timedelta(days=90))
    assert result.changed == 1
    assert abs(store.get_memory(inferred.id).confidence - 0.4) < 1e-6
    assert store.get_memory(explicit.id).confidence == 0.8
    assert sweep_decay_confidence(store, clock.now, half_life=timedelta(days=90)).changed == 0


def test_verify_audit_reports_a_broken_chain_and_fixes_nothing(store, clock, caplog) -> None:
    queue(store, "we use uv")
    assert sweep_verify_audit(store, clock.now).ok
    with engine_of(store).begin() as conn:
        conn.execute(sa.text("UPDATE audit_events SET actor='mallory' WHERE seq=1"))
    with caplog.at_level(logging.CRITICAL, logger="memvet.daemon"):
        result = run_sweep("sweep.verify_audit", sweep_verify_audit, store, clock.now)
    assert not result.ok and "broken at 1" in result.detail
    assert "AUDIT CHAIN BROKEN" in caplog.text
    assert "sweep.verify_audit" not in store.sweep_runs()  # a failed check is not a success
    with engine_of(store).connect() as conn:  # and the evidence is left as it was
        assert (
            conn.execute(sa.text("SELECT actor FROM audit_events WHERE seq=1")).scalar()
            == "mallory"
        )


def test_run_sweep_records_success_and_survives_errors(store, clock) -> None:
    result = run_sweep("sweep.stale_leases", sweep_stale_leases, store, clock.now)
    assert result.ok
    assert store.sweep_runs()["sweep.stale_leases"].replace(tzinfo=None) == clock.now.replace(
        tzinfo=None
    )

    def broken(_store, _now):  # noqa: ANN001, ANN202
        raise RuntimeError("boom")

    assert run_sweep("sweep.retire_memories", broken, store, clock.now) == SweepResult(
        ok=False, detail="RuntimeError"
    )
    assert "sweep.retire_memories" not in store.sweep_runs()


def test_due_sweeps_follow_intervals(clock) -> None:
    settings = DaemonSettings(stale_lease_interval=60, expire_interval=3600)
    jobs = ["sweep.stale_leases", "sweep.expire_candidates"]
    assert due_sweeps(settings, {}, clock.now, jobs) == jobs
    runs = {
        "sweep.stale_leases": clock.now - timedelta(seconds=61),
        "sweep.expire_candidates": (clock.now - timedelta(minutes=5)).replace(tzinfo=None),
    }
    assert due_sweeps(settings, runs, clock.now, jobs) == ["sweep.stale_leases"]


def test_store_sweeps_use_the_configured_ages(store, clock) -> None:
    sweeps = store_sweeps(DaemonSettings(candidate_max_age_days=1))
    assert set(sweeps) == {
        "sweep.stale_leases",
        "sweep.expire_candidates",
        "sweep.retire_memories",
        "sweep.decay_confidence",
        "sweep.verify_audit",
        "sweep.optimize_store",
        "sweep.review_flags",
        "sweep.reredact",
        "sweep.reindex_terms",
    }
    cid = queue(store, "we use uv")
    clock.advance(days=2)
    assert sweeps["sweep.expire_candidates"](store, clock.now).changed == 1
    assert store.get_candidate_record(cid).status == "expired"


def test_the_review_sweep_counts_memories_due_for_a_look(store, clock) -> None:
    sweep = store_sweeps(DaemonSettings())["sweep.review_flags"]
    memory = store.approve(queue(store, "we use uv"), actor="op")
    assert sweep(store, clock.now).detail == "0 memories due for review"
    clock.advance(days=91)
    assert sweep(store, clock.now).detail == "1 memories due for review"
    store.confirm(memory.id, actor="op")
    assert sweep(store, clock.now).detail == "0 memories due for review"
