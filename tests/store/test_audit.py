"""The audit ledger: every write path appends; edits, deletions and reordering are found."""

from __future__ import annotations

import sqlalchemy as sa
from store_internals import engine_of

from .conftest import draft


def _busy_store(store):
    a = store.admit(draft("we use uv here")).candidate_id
    b = store.admit(draft("never run terraform apply", kind="constraint")).candidate_id
    memory = store.approve(a, actor="op")
    store.reject(b, actor="op")
    store.dispute(memory.id, actor="op")
    return store


def test_every_write_path_appends_an_event(store):
    _busy_store(store)
    actions = [e.action for e in reversed(store.audit_events())]
    assert actions[:2] == ["candidate.queued", "candidate.queued"]
    for expected in (
        "candidate.reserved",
        "memory.created",
        "candidate.committed",
        "candidate.rejected",
        "tombstone.written",
        "memory.dispute",
    ):
        assert expected in actions
    assert store.verify_audit().ok


def test_a_flipped_byte_in_an_event_is_reported(store):
    _busy_store(store)
    with engine_of(store).begin() as conn:
        blob = bytearray(
            conn.execute(sa.text("SELECT preview_ct FROM audit_events WHERE seq=1")).scalar()
        )
        blob[-3] ^= 0x40
        conn.execute(
            sa.text("UPDATE audit_events SET preview_ct=:b WHERE seq=1"), {"b": bytes(blob)}
        )
    report = store.verify_audit()
    assert not report.ok and report.first_bad_seq == 1 and "edited" in report.problem


def test_an_edited_actor_is_reported(store):
    _busy_store(store)
    with engine_of(store).begin() as conn:
        conn.execute(sa.text("UPDATE audit_events SET actor='someone else' WHERE seq=3"))
    assert store.verify_audit().first_bad_seq == 3


def test_a_deleted_event_is_reported(store):
    _busy_store(store)
    with engine_of(store).begin() as conn:
        conn.execute(sa.text("DELETE FROM audit_events WHERE seq=4"))
    report = store.verify_audit()
    assert not report.ok and report.first_bad_seq == 4 and "missing" in report.problem


def test_reordered_events_are_reported(store):
    _busy_store(store)
    with engine_of(store).begin() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT seq, at, actor, action, entity_type, entity_id, "
                "preview_ct, prev_hash, hash, state_mac FROM audit_events "
                "WHERE seq IN (2, 3) ORDER BY seq"
            )
        ).all()
        conn.execute(sa.text("DELETE FROM audit_events WHERE seq IN (2, 3)"))
        for new_seq, row in zip((3, 2), rows, strict=True):
            conn.execute(
                sa.text(
                    "INSERT INTO audit_events (seq, at, actor, action, entity_type, entity_id, "
                    "preview_ct, prev_hash, hash, state_mac) VALUES (:s, :at, :ac, :an, :et, :ei, "
                    ":p, :ph, :h, :sm)"
                ),
                {
                    "s": new_seq,
                    "at": row.at,
                    "ac": row.actor,
                    "an": row.action,
                    "et": row.entity_type,
                    "ei": row.entity_id,
                    "p": row.preview_ct,
                    "ph": row.prev_hash,
                    "h": row.hash,
                    "sm": row.state_mac,
                },
            )
    report = store.verify_audit()
    assert not report.ok and report.first_bad_seq == 2
