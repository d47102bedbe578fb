"""The demo's story end to end (issue 13): the bundled transcripts ingested by the real daemon,
reviewed through the command line and the inspector (Pilot), and after each step what the hook
would tell the agent and what recall answers.

Before issue 13 this story ended with recall answering VERIFIED with both ports, "how do I
install dependencies?" answered with `poetry install`, and the session-start hook handing the
agent every line, superseded or contradicted."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.install import demo
from memvet.store import QueueFilter, open_store
from memvet.store import context_pack as cp
from memvet.store import hook_reply as reply
from memvet.store.recall import recall

TIDEWATER = "/home/maya/src/tidewater-api"
PORT_QUESTION = "what port does staging postgres listen on?"
INSTALL_QUESTION = "how do I install dependencies?"
LAUNCHER = (sys.executable, "-m", "memvet.install.launcher")


def play_demo(folder: Path) -> dict[str, str]:
    """Both halves of the demo ingested, last week's candidates approved (as `memvet demo`)."""
    env = demo.demo_env(folder)
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        demo.place(folder, "earlier")
        demo.ingest_once(env)
        demo.approve_all(Path(env["MEMVET_HOME"]))
        demo.place(folder, "later")
        demo.ingest_once(env)
    return env


def review_links(home: Path) -> dict[str, dict]:
    """For each pending statement, the memories it links to, by statement (ids differ per run)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEMVET_KEY_PROVIDER", "file")
        store = open_store(home)
        try:
            reader = store.reader_for(None, all_scopes=True)
            said = {m.id: m.statement for m in store.list_memories(reader)}
            out = {}
            for c in store.list_candidates(reader, QueueFilter(statuses=("pending",)), limit=None):
                d = store.candidate_detail(c.id)
                out[c.statement] = {
                    "supersedes": d.supersedes.statement if d.supersedes else None,
                    "conflicts": sorted(m.statement for m in d.conflicts),
                    "preselect": sorted(said[i] for i in d.preselect),
                }
            return out
        finally:
            store.close()


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """One demo run, shared: its links are read before the story test changes the store."""
    env = play_demo(tmp_path_factory.mktemp("demo-first"))
    return env, review_links(Path(env["MEMVET_HOME"]))


@pytest.fixture
def story(first_run, monkeypatch):
    env, _ = first_run
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    store = open_store(Path(env["MEMVET_HOME"]))
    yield store
    store.close()


@pytest.mark.slow
def test_the_demo_links_the_same_memories_on_every_run(first_run, tmp_path):
    _, links = first_run
    correction = next(s for s in links if "moved from poetry to uv" in s)
    assert links[correction]["supersedes"] and "poetry install" in links[correction]["supersedes"]
    again = review_links(Path(play_demo(tmp_path)["MEMVET_HOME"]))
    assert again == links


def pending(store, needle: str) -> str:
    found = [
        c.id
        for c in store.list_candidates(
            store.reader_for(None, all_scopes=True), QueueFilter(statuses=("pending",)), limit=None
        )
        if needle in c.statement
    ]
    assert len(found) == 1, needle
    return found[0]


def cli(*args: str) -> tuple[int, dict]:
    done = subprocess.run(
        [*LAUNCHER, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, json.loads(done.stdout)


def session_start(store) -> str:
    """What the no-daemon session-start hook hands the agent in tidewater-api: its own reply
    over its own SQL source (the demo's workspace is not a folder here, which the hook process
    would decline as outside any project)."""
    conn = sqlite3.connect(str(store.path))
    try:
        source = store.direct_source(conn, TIDEWATER)
        out = reply.respond(
            source, "session-start", {"session_id": None}, str(store.home), cp.stamp(store.now())
        )
    finally:
        conn.close()
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def served(store, question: str):
    out = recall(store, question, workspace=TIDEWATER)
    return out, [m.statement for m in out.memories]


@pytest.mark.slow
async def test_the_demo_story_through_cli_inspector_and_hook(story):
    from memvet.inspector.app import make_app
    from memvet.inspector.widgets.queue_table import QueueTable

    store = story
    start = session_start(store)
    assert "5433" in start and "poetry" in start  # last week's approvals

    # 1. The contradicting port, on the command line: no choice is refused, naming the memory.
    port = pending(store, "listens on port 5432")
    rc, out = cli("queue", "approve", port)
    result = out["results"][0]
    assert rc == 1 and result["code"] == "conflict" and result["status"] == "pending"
    rival = result["conflicts"][0]
    assert "5433" in rival["statement"] and rival["relation"] == "negation"
    assert cli("queue", "approve", port, "--keep-both")[0] == 1  # "not 5432" cannot be kept both
    assert served(store, PORT_QUESTION)[0].state == "VERIFIED"  # nothing changed yet
    rc, out = cli("queue", "approve", port, "--dispute")
    assert rc == 0 and out["results"][0]["status"] == "committed"
    answer, _ = served(store, PORT_QUESTION)
    assert (answer.state, answer.reason_code) == ("UNKNOWN", "unresolved_conflict")
    start = session_start(store)
    assert "5432" not in start and "5433" not in start
    assert "ask the user which is current" in start and "staging postgres port" in start

    # 2. The poetry -> uv correction, in the inspector: every poetry memory is pre-selected.
    correction = pending(store, "moved from poetry to uv")
    poetry = [
        m.id for m in store.list_memories(store.reader_for(TIDEWATER)) if "poetry" in m.statement
    ]
    app = make_app(store, owner="demo reviewer", poll_interval=30.0)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        app.screen.query_one(QueueTable).move_to_key(correction)
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "SupersedeDialog"
        assert set(app.screen.selected()) == set(poetry)
        await pilot.press("enter")  # supersede the selected
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
    assert store.get_candidate(correction).status == "committed"
    assert {store.get_memory(mid).status for mid in poetry} == {"superseded"}
    answer, statements = served(store, INSTALL_QUESTION)
    assert not any("poetry install" in s for s in statements)
    start = session_start(store)
    assert "uv sync" in start and "poetry install" not in start
