"""Sync both ways between member homes and a real server: proposals, approvals, tombstones."""

from __future__ import annotations

import pytest
from memvet.store.records import Reader
from memvet.store.team import approval, reads
from memvet.store.team.errors import TeamRefusedError
from memvet.store.team.share import propose_team, share_memory
from memvet.store.team.sync import sync_once
from memvet.store.team.tombstones import reject

RULE = "never run terraform apply from a laptop"


@pytest.fixture
def trio(make_team):
    return make_team()


def _active(member, workspace=None):
    reader = Reader(user=member.store.user, workspace=workspace or member.repo)
    return [m.statement for m in member.store.list_memories(reader)]


def test_a_proposal_approved_by_another_member_reaches_every_home(trio):
    ana, ben, cy = trio
    cid = propose_team(ana.store, ana.session.team_id, RULE, "constraint", ana.repo)
    assert sync_once(ana.store, ana.session).sent == 1
    pending = reads.candidates(ben.session)
    assert [(c["id"], c["statement"], c["remote"]) for c in pending] == [
        (cid, RULE, "github.com/acme/app")
    ]
    with pytest.raises(TeamRefusedError) as own:
        approval.approve(ana.session, cid)
    assert own.value.code == "self_approval"
    assert approval.approve(ben.session, cid)["status"] == "committed"
    for member in trio:
        report = sync_once(member.store, member.session)
        assert report.applied == 1
        assert _active(member) == [RULE]
        assert _active(member, workspace="/elsewhere") == []  # workspace-scoped, by remote
    for member in trio:  # a second pass applies nothing twice
        assert sync_once(member.store, member.session).applied == 0
        assert _active(member) == [RULE]
    (local,) = cy.store.list_memories(Reader(user="dana", workspace=cy.repo))
    said = [(e.actor, e.action) for e in cy.store.audit_events() if e.entity_id == local.id]
    assert said == [(f"team:{ben.session.member_id}", "memory.imported")]  # the ledger says so


def test_a_shared_memory_comes_back_to_its_home_once(trio):
    ana, ben, _ = trio
    mid = ana.store.import_memories(
        [_draft(ana, "the staging database is read-only")], actor="operator"
    )[0]
    share_memory(ana.store, ana.session.team_id, mid)
    sync_once(ana.store, ana.session)
    (cand,) = reads.candidates(ben.session)
    approval.approve(ben.session, cand["id"])
    assert sync_once(ana.store, ana.session).applied == 0
    assert _active(ana) == ["the staging database is read-only"]
    assert sync_once(ben.store, ben.session).applied == 1
    assert _active(ben) == ["the staging database is read-only"]


def test_a_rejection_on_one_home_blocks_the_statement_on_another(trio):
    ana, ben, cy = trio
    cid = propose_team(ana.store, ana.session.team_id, RULE, "constraint", ana.repo)
    sync_once(ana.store, ana.session)
    reject(ben.session, cid)
    again = propose_team(cy.store, cy.session.team_id, RULE.upper() + ".", "constraint", cy.repo)
    report = sync_once(cy.store, cy.session)
    assert report.sent == 0 and report.refused == [f"{again}: tombstoned"]
    assert reads.candidates(ben.session) == []


def test_a_false_write_on_one_home_retires_the_memory_on_the_others(trio):
    ana, ben, cy = trio
    cid = propose_team(ana.store, ana.session.team_id, RULE, "constraint", ana.repo)
    sync_once(ana.store, ana.session)
    approval.approve(ben.session, cid)
    for member in trio:
        sync_once(member.store, member.session)
    (local,) = ben.store.list_memories(Reader(user="dana", workspace=ben.repo))
    ben.store.false_write(local.id, actor="operator")
    sync_once(ben.store, ben.session)
    for member in (ana, cy):
        assert sync_once(member.store, member.session).retired == 1
        assert _active(member) == []
    again = propose_team(cy.store, cy.session.team_id, RULE, "constraint", cy.repo)
    assert sync_once(cy.store, cy.session).refused == [f"{again}: tombstoned"]


def _draft(member, statement):
    from memvet.store.records import CandidateDraft, Scope

    return CandidateDraft(
        statement=statement,
        kind="fact",
        source_type="operator",
        scope=Scope(user="dana", workspace=member.repo),
    )


@pytest.mark.slow
def test_the_live_loop_applies_an_approval_on_notify_not_on_the_catch_up(trio):
    import threading
    import time

    from memvet.store.team.loop import serve

    ana, ben, cy = trio
    stop, passes = threading.Event(), []
    thread = threading.Thread(
        target=serve,
        args=(cy.store, cy.home, stop),
        kwargs={"catch_up_s": 3600, "on_pass": passes.append},
        daemon=True,
    )
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not passes and time.monotonic() < deadline:  # the pass made on connecting
            time.sleep(0.05)
        cid = propose_team(ana.store, ana.session.team_id, RULE, "constraint", ana.repo)
        sync_once(ana.store, ana.session)
        approval.approve(ben.session, cid)
        while _active(cy) != [RULE] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _active(cy) == [RULE]
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()


def test_a_personal_team_syncs_approved_memories_and_false_writes(make_team):
    from memvet.store.team.status import team_memories

    laptop, desktop = make_team(roles=("member",), personal=True)
    global_memory = laptop.store.import_memories(
        [_draft(laptop, "I prefer small commits")], actor="operator"
    )
    assert global_memory
    assert sync_once(laptop.store, laptop.session).sent == 1  # every approved memory goes
    assert sync_once(desktop.store, desktop.session).applied == 1
    assert _active(desktop) == ["I prefer small commits"]
    assert [m["statement"] for m in team_memories(desktop.store)] == ["I prefer small commits"]
    assert sync_once(laptop.store, laptop.session).sent == 0  # nothing offered twice
    (copy,) = desktop.store.list_memories(Reader(user="dana", workspace=desktop.repo))
    desktop.store.false_write(copy.id, actor="operator")
    sync_once(desktop.store, desktop.session)
    assert sync_once(laptop.store, laptop.session).retired == 1
    assert _active(laptop) == []


def test_a_personal_team_carries_a_rejection_to_the_other_machine(make_team):
    from memvet.store.records import CandidateDraft, Scope

    laptop, desktop = make_team(roles=("member",), personal=True)

    def offer(member):
        return member.store.admit(
            CandidateDraft(
                statement="Run the whole suite before every push",
                kind="procedure",
                source_type="explicit_user",
                scope=Scope(user="dana", workspace=member.repo),
            )
        )

    laptop.store.reject(offer(laptop).candidate_id, actor="operator")
    sync_once(laptop.store, laptop.session)
    sync_once(desktop.store, desktop.session)
    again = desktop.store.admit(
        CandidateDraft(
            statement="run the whole suite before every push.",
            kind="procedure",
            source_type="explicit_user",
            scope=Scope(user="dana", workspace=desktop.repo),
        )
    )
    assert again.outcome == "tombstoned"  # any case or punctuation
    assert sync_once(laptop.store, laptop.session).sent == 0  # sent once
    tombs = desktop.store.list_tombstones()
    assert [t.reason for t in tombs] == ["team"]
