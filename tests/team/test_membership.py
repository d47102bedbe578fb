"""Create, join, admit, remove: key wrapping and rotation against a real PostgreSQL."""

from __future__ import annotations

import pytest
from memvet.store.errors import IntegrityError
from memvet.store.team.errors import TeamRefusedError, TeamUnavailableError
from memvet.store.team.members import admit, create_team, join_team, members, policy, remove
from memvet.store.team.session import open_session


def test_create_join_admit_lists_members_with_their_key_version(homes, team_url):
    a = create_team(homes[0], team_url, "ana")
    joined = join_team(homes[1], team_url, "ben")
    assert joined["status"] == "pending"
    pending = open_session(homes[1])
    with pytest.raises(TeamUnavailableError) as err:
        pending.cipher()
    assert err.value.code == "team_no_key" and err.value.exit_code == 3
    admit(a, joined["member"], role="approver")
    listed = {m["name"]: m for m in members(a)}
    assert listed["ana"]["role"] == "admin" and listed["ana"]["status"] == "admitted"
    assert listed["ben"] == {
        **listed["ben"],
        "role": "approver",
        "status": "admitted",
        "key_version": 1,
        "id": joined["member"],
    }
    ben = open_session(homes[1])
    assert ben.keys[1] if ben.cipher() else False
    assert ben.keys[1] == a.keys[1]
    assert policy(ben) == {"approvals_required": 1, "self_approval": False}


def test_only_an_admin_admits_and_a_member_is_admitted_once(homes, team_url):
    a = create_team(homes[0], team_url, "ana")
    b = join_team(homes[1], team_url, "ben")
    c = join_team(homes[2], team_url, "cy")
    admit(a, b["member"])
    with pytest.raises(TeamRefusedError, match="admin"):
        admit(open_session(homes[1]), c["member"])
    with pytest.raises(TeamRefusedError, match="not pending"):
        admit(a, b["member"])


def test_removal_rotates_the_key_and_the_old_key_opens_nothing_new(homes, team_url):
    a = create_team(homes[0], team_url, "ana")
    b = join_team(homes[1], team_url, "ben")
    admit(a, b["member"])
    ben = open_session(homes[1])
    kept = ben.cipher()  # what a removed member may have kept
    from memvet.store.team import items

    before = items.propose(
        a, items.new_item_id(), "written before removal", "fact", "assert", None
    )["id"]
    result = remove(a, b["member"])
    assert result["key_version"] == 2 and a.key_version == 2
    assert a.keys[2] != a.keys[1]
    with pytest.raises(TeamUnavailableError) as err:
        open_session(homes[1]).cipher()
    assert err.value.code == "team_no_key"
    written = items.propose(a, items.new_item_id(), "written after removal", "fact", "assert", None)
    blob = a.conn.execute(
        "SELECT statement_ct FROM team_candidates WHERE id = %s", (written["id"],)
    ).fetchone()[0]  # what the removed member could fetch
    assert a.cipher().decrypt("team_candidates", "statement", written["id"], blob)
    with pytest.raises(IntegrityError):
        kept.decrypt("team_candidates", "statement", written["id"], blob)
    old = a.conn.execute(
        "SELECT statement_ct FROM team_candidates WHERE id = %s", (before,)
    ).fetchone()[0]  # re-encrypted by the rotation
    assert a.cipher().decrypt("team_candidates", "statement", before, old) == (
        "written before removal"
    )
    with pytest.raises(IntegrityError):
        kept.decrypt("team_candidates", "statement", before, old)
    listed = {m["id"]: m for m in members(a)}
    assert listed[b["member"]]["status"] == "removed"
    assert listed[b["member"]]["key_version"] is None
    assert listed[a.member_id]["key_version"] == 2
    assert {m["name"] for m in listed.values()} == {"ana", "ben"}  # re-sealed to the new join key
