"""Team sync writes local memories (imports, retirements): the trigger-kept counts of
store/memory_counts.py stay what COUNT(*) over the rows says on every home."""

from __future__ import annotations

import sqlite3

import pytest
from memvet.store.records import Reader
from memvet.store.team import approval
from memvet.store.team.share import propose_team
from memvet.store.team.sync import sync_once

RULE = "never deploy on a friday afternoon"
KEPT = "SELECT user_bidx, workspace_bidx, status, plain, n FROM memory_counts WHERE n != 0"
COUNTED = (
    "SELECT user_bidx, ifnull(workspace_bidx, ''), status, "
    "valid_to IS NULL AND expires_at IS NULL, count(*) FROM memories GROUP BY 1, 2, 3, 4"
)
TERMS_KEPT = "SELECT token, field, n FROM term_counts WHERE n != 0"
TERMS_COUNTED = "SELECT token, field, count(*) FROM term_postings GROUP BY 1, 2"


def assert_counts_right(store) -> None:  # noqa: ANN001
    with sqlite3.connect(str(store.path)) as conn:
        assert set(conn.execute(KEPT)) == set(conn.execute(COUNTED))
        assert set(conn.execute(TERMS_KEPT)) == set(conn.execute(TERMS_COUNTED))


@pytest.fixture
def trio(make_team):
    return make_team()


def test_sync_keeps_the_counts_right_on_every_home(trio):
    ana, ben, cy = trio
    cid = propose_team(ana.store, ana.session.team_id, RULE, "constraint", ana.repo)
    sync_once(ana.store, ana.session)
    approval.approve(ben.session, cid)
    for member in trio:
        assert sync_once(member.store, member.session).applied == 1  # an import on each home
        assert_counts_right(member.store)
    (local,) = ben.store.list_memories(Reader(user="dana", workspace=ben.repo))
    ben.store.false_write(local.id, actor="operator")
    sync_once(ben.store, ben.session)
    for member in (ana, cy):
        assert sync_once(member.store, member.session).retired == 1  # a retirement
    for member in trio:
        assert_counts_right(member.store)
        with sqlite3.connect(str(member.store.path)) as conn:
            assert not conn.execute(
                "SELECT 1 FROM memory_counts WHERE status = 'active' AND n > 0"
            ).fetchall()
