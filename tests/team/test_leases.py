"""The reservation protocol on the server: an approver whose machine dies between reserve and
commit leaves a lease that runs out; it shows as stale (`queue list --team`, `team status`), an
operator settles it with `memvet team recover` (audited), and the candidate is committed once.
A live lease is not recovered without --force."""

from __future__ import annotations

import json
from datetime import timedelta

import psycopg
import pytest
from memvet.install.launcher import main
from memvet.store.team import approval
from memvet.store.team.audit import verify
from memvet.store.team.errors import TeamRefusedError
from memvet.store.team.share import propose_team
from memvet.store.team.sync import sync_once


def cli(monkeypatch, capsys, home, *argv) -> tuple[int, dict]:
    monkeypatch.setenv("MEMVET_HOME", str(home))
    capsys.readouterr()
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _offer(member, text: str) -> str:
    cid = propose_team(member.store, member.session.team_id, text, "constraint", None)
    sync_once(member.store, member.session)
    return cid


def _memories_of(url: str, cid: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT count(*) FROM team_memories WHERE candidate_id = %s", (cid,)
        ).fetchone()[0]


def _actions(url: str, cid: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT action FROM team_audit WHERE entity_id = %s ORDER BY seq", (cid,)
        ).fetchall()
    return [r[0] for r in rows]


def test_a_machine_dying_between_reserve_and_commit_is_recovered_once(
    make_team, team_url, monkeypatch, capsys
):
    ana, ben, cy = make_team()
    cid = _offer(ana, "never run terraform apply from a laptop")
    token = approval.reserve(ben.session, cid, ttl=timedelta(0))  # runs out at once
    with psycopg.connect(team_url, autocommit=True) as admin:  # ben's machine dies
        admin.execute("SELECT pg_terminate_backend(%s)", (ben.session.conn.info.backend_pid,))
    with pytest.raises(TeamRefusedError) as held:
        approval.approve(cy.session, cid)
    assert held.value.code == "reservation_held" and "stale" in held.value.message
    assert f"memvet team recover {cid}" in held.value.message

    code, listed = cli(monkeypatch, capsys, cy.home, "queue", "list", "--team")
    assert code == 0
    [shown] = [c for c in listed["candidates"] if c["id"] == cid]
    assert shown["status"] == "stale" and shown["lease_owner"] == ben.session.member_id
    code, status = cli(monkeypatch, capsys, cy.home, "team", "status")
    assert status["leases"] == {"reserved": 0, "stale": 1}

    code, out = cli(monkeypatch, capsys, ana.home, "team", "recover", cid, "--release")
    assert code == 0 and out == {"results": [{"id": cid, "status": "pending", "memory_id": None}]}
    mine = approval.reserve(cy.session, cid)
    ben.reopen()  # ben's machine comes back and finishes what it started: refused
    with pytest.raises(TeamRefusedError) as late:
        approval.commit(ben.session, cid, token)
    assert late.value.code == "lease_lost"
    assert approval.commit(cy.session, cid, mine)["status"] == "committed"
    assert _memories_of(team_url, cid) == 1
    assert _actions(team_url, cid) == [
        "candidate.proposed",
        "lease.recovered",
        "candidate.released",
        "candidate.approved",
        "candidate.committed",
    ]
    assert verify(ana.session)["ok"]


def test_a_live_lease_is_recovered_only_with_force(make_team, team_url, monkeypatch, capsys):
    ana, ben, cy = make_team()
    cid = _offer(cy, "the staging database is read-only")
    token = approval.reserve(ben.session, cid)  # the default lease: minutes
    code, out = cli(monkeypatch, capsys, ana.home, "team", "recover", cid, "--commit")
    [result] = out["results"]
    assert code == 1 and result["code"] == "lease_live" and "--force" in result["error"]
    code, out = cli(monkeypatch, capsys, ana.home, "team", "recover", cid, "--commit", "--force")
    assert code == 0 and out["results"][0]["status"] == "committed"
    with pytest.raises(TeamRefusedError) as late:
        approval.commit(ben.session, cid, token)
    assert late.value.code == "lease_lost"
    assert _memories_of(team_url, cid) == 1
    code, out = cli(monkeypatch, capsys, ana.home, "team", "recover", cid, "--release")
    assert code == 1 and out["results"][0]["code"] == "not_reserved"


def test_a_stale_lease_recovered_by_reject_tombstones_it_for_the_team(make_team, team_url):
    ana, ben, cy = make_team()
    cid = _offer(ana, "deploy with --skip-tests on fridays")
    approval.reserve(ben.session, cid, ttl=timedelta(0))
    ben.session.close()  # the connection drops with the machine
    assert approval.recover(cy.session, cid, "reject")["status"] == "rejected"
    again = _offer(ana, "Deploy with --skip-tests on Fridays")
    with psycopg.connect(team_url) as conn:
        tombs = conn.execute("SELECT source_id FROM team_tombstones").fetchall()
        offered = conn.execute("SELECT id FROM team_candidates WHERE id = %s", (again,)).fetchall()
    assert tombs == [(cid,)] and offered == []  # the team refused it again: tombstoned
