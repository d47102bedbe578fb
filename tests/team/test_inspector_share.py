"""The inspector's team key (`T` on the Memories and the Queue screens) through Textual's Pilot:
a memory or a candidate offered to a real team server reaches another member; with the server away it waits in the
outbox and the toast gives the exit-3 cause; a home without a team says how to make one."""

from __future__ import annotations

import json

from memvet.inspector.app import make_app
from memvet.store import open_store
from memvet.store.records import CandidateDraft, Scope
from memvet.store.team import outbox, reads

OWNER = "inspector pid 1000 on test"


def _draft(statement: str, workspace: str | None) -> CandidateDraft:
    return CandidateDraft(
        statement=statement,
        kind="fact",
        source_type="operator",
        scope=Scope(user="dana", workspace=workspace),
    )


async def _settle(pilot, rounds: int = 3) -> None:
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def _toasts(app) -> list[str]:  # noqa: ANN001
    return [n.message for n in app._notifications]


async def _memories(pilot):  # noqa: ANN202
    await _settle(pilot)
    await pilot.press("2")
    await _settle(pilot)
    return pilot.app.screen


async def test_t_offers_the_memory_to_the_team_and_says_when_the_server_is_away(make_team):
    ana, ben, _ = make_team()
    ana.store.import_memories(
        [_draft("the staging database is read-only", ana.repo), _draft("deploys on fridays", None)],
        actor="operator",
    )
    app = make_app(ana.store, owner=OWNER, poll_interval=30.0)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _memories(pilot)
        first = screen._current()
        await pilot.press("T")
        await _settle(pilot)
        assert (
            _toasts(app)[-1] == f"Offered to the team (a team approver decides): {first.statement}"
        )
        assert [c["statement"] for c in reads.candidates(ben.session)] == [first.statement]
        assert outbox.size(ana.store) == 0

        config = ana.home / "team.json"  # the server moves away: a port nothing listens on
        data = json.loads(config.read_text())
        data["url"] = "postgresql://memvet@127.0.0.1:1/gone"
        config.write_text(json.dumps(data))
        await pilot.press("j")
        second = screen._current()
        assert second.id != first.id
        await pilot.press("T")
        await _settle(pilot)
        last = _toasts(app)[-1]
        assert last.startswith(f"Queued for the team: {second.statement}.")
        assert "127.0.0.1:1/gone cannot be reached" in last and "outbox" in last
        assert outbox.size(ana.store) == 1  # nothing lost: it goes at the next sync
        assert [c["statement"] for c in reads.candidates(ben.session)] == [first.statement]


async def test_t_on_the_queue_offers_the_candidate_and_is_listed_in_help_and_palette(make_team):
    ana, ben, _ = make_team()
    statement = "the integration tests need docker running"
    cid = ana.store.admit(_draft(statement, ana.repo), actor="operator").candidate_id
    app = make_app(ana.store, owner=OWNER, poll_interval=30.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        assert app.screen.id == "queue" and app.screen.table.current_key == cid
        assert "To team" in {c.title for c in app.get_system_commands(app.screen)}
        await pilot.press("T")
        await _settle(pilot)
        assert _toasts(app)[-1] == f"Offered to the team (a team approver decides): {statement}"
        await pilot.press("T")  # offered once: the team id derives from the candidate
        await _settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert "queue-share-team" in str(app.screen.query_one("#help-body Static").render())
    [offered] = reads.candidates(ben.session)
    assert offered["statement"] == statement and offered["remote"] is not None
    assert ana.store.get_candidate(cid).status == "pending"  # still in this home's queue
    assert outbox.size(ana.store) == 0


async def test_t_in_a_home_without_a_team_says_how_to_make_one(tmp_path):
    home = tmp_path / "solo"
    store = open_store(home, user="dana")
    try:
        store.import_memories([_draft("use uv, not pip", None)], actor="operator")
        app = make_app(store, owner=OWNER, poll_interval=30.0)
        async with app.run_test(size=(120, 36)) as pilot:
            await _memories(pilot)
            await pilot.press("T")
            await _settle(pilot)
            last = _toasts(app)[-1]
            assert last.startswith("Not offered: this memvet home belongs to no team")
            assert "memvet team create URL --name NAME" in last and "memvet team join" in last
            assert app.screen.id == "memories"  # no crash, still on the screen
        assert outbox.size(store) == 0 and not (home / "team.json").exists()
    finally:
        store.close()


def test_memories_share_cli_sends_now_and_refuses_a_team_tombstone(make_team, monkeypatch, capsys):
    from memvet.install.launcher import main
    from memvet.store.team.share import propose_team
    from memvet.store.team.sync import sync_once
    from memvet.store.team.tombstones import reject

    ana, ben, _ = make_team()
    rule = "never run terraform apply from a laptop"
    cid = propose_team(ana.store, ana.session.team_id, rule, "constraint", ana.repo)
    sync_once(ana.store, ana.session)
    reject(ben.session, cid)  # the team tombstones the statement
    kept, banned = ana.store.import_memories(
        [_draft("the staging database is read-only", ana.repo), _draft(rule.upper(), ana.repo)],
        actor="operator",
    )
    monkeypatch.setenv("MEMVET_HOME", str(ana.home))

    def share(memory_id: str) -> tuple[int, dict]:
        capsys.readouterr()
        code = main(["memories", "share", memory_id, "--json"])
        return code, json.loads(capsys.readouterr().out)

    code, out = share(kept)
    assert code == 0 and out["memory_id"] == kept and out["offline"] is False
    assert [c["statement"] for c in reads.candidates(ben.session)] == [
        "the staging database is read-only"
    ]
    code, out = share(banned)
    assert code == 1 and out["error"]["code"] == "tombstoned"
    assert "team tombstone" in out["error"]["message"]
    assert outbox.size(ana.store) == 0  # refused for good, not retried
