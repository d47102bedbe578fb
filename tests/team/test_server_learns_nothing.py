"""What the server holds: a `pg_dump` of a team's database has none of the planted statements,
workspaces (remote or local path), member names or OS user names in plaintext."""

from __future__ import annotations

from memvet.store.team import approval, reads
from memvet.store.team.members import remove
from memvet.store.team.share import propose_team, share_memory
from memvet.store.team.sync import sync_once
from memvet.store.team.tombstones import reject

PLANTED = "zebracanary never deploys on fridays"


def test_pg_dump_holds_no_planted_plaintext(make_team, pg_server, team_db):
    ana, ben, cy = make_team()
    first = propose_team(ana.store, ana.session.team_id, PLANTED, "constraint", ana.repo)
    second = propose_team(ana.store, ana.session.team_id, PLANTED + " again", "constraint", None)
    sync_once(ana.store, ana.session)
    approval.approve(ben.session, first)
    reject(ben.session, second, reason="zebracanary reason")
    from memvet.store.records import CandidateDraft, Scope

    mid = ben.store.import_memories(
        [
            CandidateDraft(
                statement="zebracanary staging is read-only",
                kind="fact",
                source_type="operator",
                scope=Scope(user="dana", workspace=ben.repo),
            )
        ],
        actor="operator",
    )[0]
    share_memory(ben.store, ben.session.team_id, mid)
    for member in (ana, ben, cy):
        sync_once(member.store, member.session)
    remove(ana.session, cy.session.member_id)  # rotation re-writes everything: still nothing
    assert reads.candidates(ana.session)  # the shared memory waits, readable to members
    dump = pg_server.pg_dump(team_db)
    assert "team_memories" in dump and len(dump) > 2000  # the dump is real
    lowered = dump.lower()
    for planted in (
        "zebracanary",
        "fridays",
        "acme/app",
        "github.com",
        "read-only",
        "quokka",
        "dana",
        str(ana.home),
        "member-a-src",
    ):
        assert planted.lower() not in lowered, planted
