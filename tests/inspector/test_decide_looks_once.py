"""The inspector's approval (jobs.decide) looks at the candidate's slot once before it reserves,
inside Store.approve (the commit's own look, in its transaction, is what decides), and takes
the correction note and the conflict refusal from that one look."""

from __future__ import annotations

import pytest
from memvet.inspector.jobs import decide
from memvet.store import Edits
from memvet.store.slot_decisions import Slots

from .conftest import draft, seed


@pytest.fixture
def looks(monkeypatch):
    """Every look at a slot (Slots.conflicts: the early refusal's and the commit's alike)."""
    seen: list[str] = []
    original = Slots.conflicts

    def counted(self, conn, cand, **kwargs):  # noqa: ANN001, ANN003, ANN202
        seen.append(cand.id)
        return original(self, conn, cand, **kwargs)

    monkeypatch.setattr(Slots, "conflicts", counted)
    return seen


def test_an_approval_looks_before_reserving_once_and_in_the_commit(store, clock, looks):
    (cid,) = seed(store, clock, [draft("use pnpm for packages")])
    done = decide(store, "approve", cid, actor="dana")
    assert done.ok and done.status is None
    assert looks == [cid, cid]  # the early refusal's look, the commit's: no third one


def test_a_correction_with_nothing_to_replace_says_so_from_that_look(store, clock, looks):
    (cid,) = seed(store, clock, [draft("We switched from yarn to pnpm")])
    done = decide(store, "approve", cid, actor="dana")
    assert done.ok and "nothing was superseded" in (done.status or "")
    assert looks == [cid, cid]


def test_a_conflict_is_refused_with_its_rivals_and_nothing_reserved(store, clock, looks):
    first, rival = seed(
        store, clock, [draft("the API listens on port 8080"), draft("the API listens on port 9090")]
    )
    assert decide(store, "approve", first, actor="dana").ok
    reserved = [e.entity_id for e in store.audit_events() if e.action == "candidate.reserved"]
    assert reserved == [first]  # the check below can see a reservation
    looks.clear()
    refused = decide(store, "approve", rival, actor="dana")
    assert not refused.ok and refused.code == "conflict" and "press s" in (refused.error or "")
    assert [m.id for m in refused.value.conflicts]  # the detail for the supersede dialog
    assert store.get_candidate(rival).status == "pending"
    after = [e.action for e in store.audit_events() if e.entity_id == rival]
    assert after == ["candidate.queued"]  # nothing reserved, nothing released
    kept = decide(store, "approve", rival, actor="dana", edits=Edits(conflict="keep_both"))
    assert kept.ok  # a decided approval is not refused
