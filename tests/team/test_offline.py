"""Offline, then back: writes wait in the outbox; the server killed in the middle of a sync
(after it committed, before the reply) loses nothing and doubles nothing."""

from __future__ import annotations

import psycopg
import pytest
from memvet.store.records import Reader
from memvet.store.team import approval, items, outbox, reads, sync
from memvet.store.team.loop import sync_or_offline
from memvet.store.team.share import propose_team
from memvet.store.team.sync import sync_once

N = 12


def _server_counts(url: str, table: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


@pytest.mark.slow
def test_killed_mid_sync_then_back_nothing_lost_or_doubled(
    make_team, pg_server, team_url, monkeypatch
):
    ana, ben = make_team(roles=("approver",))
    pg_server.stop("immediate")
    try:
        for i in range(N):
            propose_team(
                ana.store, ana.session.team_id, f"rule number {i} holds", "constraint", ana.repo
            )
        assert sync_or_offline(ana.store, ana.home)["offline"] is True
        assert outbox.size(ana.store) == N  # everything local still works meanwhile
    finally:
        pg_server.start()
    ana.reopen()

    real_propose, sent = items.propose, []

    def propose_then_die(session, item_id, *args):
        result = real_propose(session, item_id, *args)  # committed on the server ...
        sent.append(item_id)
        if len(sent) == N // 2:  # ... and the server dies before the reply arrives
            pg_server.stop("immediate")
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return result

    monkeypatch.setattr(sync.items, "propose", propose_then_die)
    try:
        with pytest.raises(psycopg.OperationalError):
            sync_once(ana.store, ana.session)
    finally:
        pg_server.start()
    monkeypatch.setattr(sync.items, "propose", real_propose)
    assert outbox.size(ana.store) == N - N // 2 + 1  # the one whose reply was lost stays
    ana.reopen()
    assert sync_once(ana.store, ana.session).sent == N - N // 2 + 1
    assert outbox.size(ana.store) == 0
    assert _server_counts(team_url, "team_candidates") == N  # the replay wrote nothing twice

    ben.reopen()
    for cand in reads.candidates(ben.session):
        approval.approve(ben.session, cand["id"])
    real_changes, real_state, pages = sync.changes, outbox.set_state, []
    monkeypatch.setattr(sync, "changes", lambda *a: real_changes(*a, limit=5))

    def cursor_then_die(conn, key, value):  # page 2 applied locally, its cursor never saved
        pages.append(key)
        if len(pages) == 2:
            pg_server.stop("immediate")
            raise psycopg.OperationalError("terminating connection")
        real_state(conn, key, value)

    monkeypatch.setattr(outbox, "set_state", cursor_then_die)
    try:
        with pytest.raises(psycopg.OperationalError):
            sync_once(ana.store, ana.session)
    finally:
        pg_server.start()
    monkeypatch.setattr(outbox, "set_state", real_state)
    ana.reopen()
    sync_once(ana.store, ana.session)
    sync_once(ana.store, ana.session)
    local = ana.store.list_memories(Reader(user="dana", workspace=ana.repo))
    assert sorted(m.statement for m in local) == sorted(f"rule number {i} holds" for i in range(N))
