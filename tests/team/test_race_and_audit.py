"""Two approvers on two homes racing for one candidate; the team policy; the audit chain."""

from __future__ import annotations

import threading

import psycopg
import pytest
from memvet.store.team import approval
from memvet.store.team.audit import verify
from memvet.store.team.errors import TeamRefusedError, TeamUnavailableError
from memvet.store.team.members import policy
from memvet.store.team.session import open_session
from memvet.store.team.share import propose_team
from memvet.store.team.sync import sync_once


def test_two_approvers_racing_commit_each_candidate_once(make_team, team_url):
    ana, ben, cy = make_team()
    ids = [
        propose_team(ana.store, ana.session.team_id, f"fact {i}", "fact", None) for i in range(4)
    ]
    sync_once(ana.store, ana.session)
    for cid in ids:
        barrier, outcomes = threading.Barrier(2), []
        sessions = [open_session(ben.home), open_session(cy.home)]

        def approve(session, cid=cid, barrier=barrier, outcomes=outcomes):
            session.cipher()
            barrier.wait()
            try:
                outcomes.append(approval.approve(session, cid)["status"])
            except TeamRefusedError as exc:
                outcomes.append(exc.code)

        threads = [threading.Thread(target=approve, args=(s,)) for s in sessions]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        for s in sessions:
            s.close()
        # the loser finds the winner's lease (still reserved) or its commit
        assert len(outcomes) == 2 and outcomes.count("committed") == 1, outcomes
        assert {*outcomes} - {"committed"} <= {"already_decided", "reservation_held"}, outcomes
    with psycopg.connect(team_url) as conn:
        assert conn.execute("SELECT count(*) FROM team_memories").fetchone()[0] == len(ids)


def test_two_approvals_required_and_an_invalid_policy_stops(make_team, team_url):
    ana, ben, cy = make_team(approvals_required=2)
    cid = propose_team(ana.store, ana.session.team_id, "deploys go through CI", "procedure", None)
    sync_once(ana.store, ana.session)
    assert approval.approve(ben.session, cid)["status"] == "pending"
    assert approval.approve(ben.session, cid)["status"] == "pending"  # one member counts once
    assert approval.approve(cy.session, cid)["status"] == "committed"
    c = ana.session.cipher()
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE teams SET policy_ct = %s",
            (
                c.encrypt(
                    "teams",
                    "policy",
                    ana.session.team_id,
                    '{"approvals_required": 0, "self_approval": true}',
                ),
            ),
        )
    with pytest.raises(TeamUnavailableError) as err:
        policy(ben.session)
    assert err.value.code == "team_policy_invalid" and err.value.exit_code == 3


def test_audit_verify_names_the_first_altered_or_missing_event(make_team, team_url):
    ana, ben = make_team(roles=("approver",))
    cid = propose_team(ana.store, ana.session.team_id, "the API is versioned", "fact", None)
    sync_once(ana.store, ana.session)
    approval.approve(ben.session, cid)
    result = verify(ana.session)
    assert (
        result["ok"] and result["events"] == 6
    )  # created, 2 admitted, proposed, approved, committed
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute("UPDATE team_audit SET action = 'candidate.rejected' WHERE seq = 5")
    assert verify(ana.session)["first_bad"] == {
        "seq": 5,
        "reason": "its contents do not match its hash",
    }
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute("UPDATE team_audit SET action = 'candidate.approved' WHERE seq = 5")
        conn.execute("DELETE FROM team_audit WHERE seq = 3")
    assert verify(ana.session)["first_bad"] == {"seq": 4, "reason": "event 3 is missing"}
