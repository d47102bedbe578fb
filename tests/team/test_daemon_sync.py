"""The daemon's side: its sync thread runs only for a home in a team, and `daemon run --once`
with the server away logs the cause and keeps the outbox."""

from __future__ import annotations

import json
import logging
import time

from memvet.daemon.team_sync import run_team_once, team_sync
from memvet.store.records import Reader
from memvet.store.team import approval, outbox
from memvet.store.team.config import load_config
from memvet.store.team.share import propose_team
from memvet.store.team.sync import sync_once


def test_the_thread_syncs_a_team_home_and_nothing_runs_without_a_team(make_team, tmp_path):
    from memvet.store import open_store

    lone = open_store(tmp_path / "lone", user="dana")
    with team_sync(lone, tmp_path / "lone") as thread:
        assert thread is None
    lone.close()
    ana, ben = make_team(roles=("approver",))
    with team_sync(ben.store, ben.home) as thread:
        assert thread.is_alive()
        cid = propose_team(
            ana.store, ana.session.team_id, "tag releases as vX.Y.Z", "procedure", ana.repo
        )
        sync_once(ana.store, ana.session)
        approval.approve(ben.session, cid)
        deadline = time.monotonic() + 20
        reader = Reader(user="dana", workspace=ben.repo)
        while not ben.store.list_memories(reader) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [m.statement for m in ben.store.list_memories(reader)] == ["tag releases as vX.Y.Z"]
    assert not thread.is_alive()


def test_once_with_the_server_away_keeps_the_outbox_and_logs_no_text(make_team, caplog):
    (ana,) = make_team(roles=())
    config = load_config(ana.home)
    dead = config.model_copy(
        update={"url": config.url.replace(config.url.split("@")[1].split("/")[0], "127.0.0.1:1")}
    )
    (ana.home / "team.json").write_text(json.dumps(dead.model_dump()))
    propose_team(ana.store, config.team_id, "secret-ish statement text", "fact", None)
    with caplog.at_level(logging.INFO, logger="memvet.daemon.team_sync"):
        run_team_once(ana.store, ana.home)
    assert outbox.size(ana.store) == 1
    assert "secret-ish" not in caplog.text
