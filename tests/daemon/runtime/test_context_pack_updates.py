"""The daemon's context packs follow memory changes in place (context_cache.CachedSource.update):
after approvals, retirements and disputes the pack is the one a rebuild would give, without the
rebuild."""

from __future__ import annotations

import os
from pathlib import Path

from memvet.daemon.context_cache import CachedSource
from memvet.daemon.context_server import ContextServer
from memvet.store import CandidateDraft, Edits, Scope, open_store
from memvet.store import context_pack as cp
from memvet.store import fast_read as fr
from store_internals import cipher_of

APP = "/home/dana/src/app"
PROMPTS = [
    "set up docker for the tests",
    "deploy to staging",
    "which package manager?",
    "bump the go version in ci",
]


def approve(store, statement: str, workspace: str | None = APP, importance: int = 1):
    d = CandidateDraft(
        statement=statement,
        kind="fact",
        source_type="explicit_user",
        scope=Scope(user="dana", workspace=workspace),
        host="claude-code",
        polarity="assert",
        importance=importance,
    )
    return store.approve(store.admit(d).candidate_id, actor="dana", edits=Edits())


def same_as_rebuilt(server: ContextServer, store, pack: CachedSource, now: str) -> None:
    direct = fr.DirectSource(server._conn, cipher_of(store), "dana", APP)
    fresh = CachedSource(direct.all_items())
    assert [i.id for i in pack.ranked()] == [i.id for i in fresh.ranked()]
    assert [(i.status, i.conflict) for i in pack.ranked()] == [
        (i.status, i.conflict) for i in fresh.ranked()
    ]
    for prompt in PROMPTS:
        assert [i.id for i in pack.relevant(prompt, set(), now)] == [
            i.id for i in fresh.relevant(prompt, set(), now)
        ], prompt
    assert _postings(pack) == _postings(fresh)  # the term index too, term by term
    assert pack.count_active(now) == fresh.count_active(now)


def _postings(pack: CachedSource) -> dict[str, list[str]]:
    """The pack's term index by memory id: each posting ascending (as bisection needs)."""
    index = pack.index()
    out = {}
    for term, positions in index.corpus.postings.items():
        assert positions == sorted(positions), term
        out[term] = sorted(index.items[p].id for p in positions)
    assert index.corpus.n == sum(item is not None for item in index.items)
    return out


def test_a_pack_is_updated_in_place_after_each_change():
    store = open_store(user="dana")
    sock = Path(os.environ["MEMVET_HOME"]) / "run" / "daemon.sock"
    server = ContextServer(store, sock).start()
    try:
        first = [
            approve(store, s, importance=i % 3)
            for i, s in enumerate(
                [
                    "Tests run in docker compose",
                    "Deploys go to staging through Heroku",
                    "We use pnpm, never npm",
                    "The Go version is pinned in go.mod",
                ]
            )
        ]
        pack = server.source(APP)
        now = cp.stamp(store.now())
        assert any(pack.relevant("deploy to staging", set(), now))
        approve(store, "Staging deploys need the VPN", importance=2)
        approve(store, "CI runs the Go tests with -race", workspace=None)
        assert server.source(APP) is pack  # updated, not rebuilt
        same_as_rebuilt(server, store, pack, now)
        store.retire(first[1].id, actor="dana")
        store.dispute(first[0].id, actor="dana")
        assert server.source(APP) is pack
        same_as_rebuilt(server, store, pack, now)
        assert first[1].id not in {i.id for i in pack.ranked()}
        store.restore(first[1].id, actor="dana")
        assert server.source(APP) is pack
        same_as_rebuilt(server, store, pack, now)
    finally:
        server.stop()
        store.close()


def test_forget_supersede_and_many_changes_at_once_equal_a_rebuild():
    """Forget (a retirement), supersede (the new memory in, the old out, in one commit) and
    a dozen retirements applied in one update (each shared term filtered once, not searched
    once per item): after each, the pack is the one a full rebuild gives."""
    store = open_store(user="dana")
    sock = Path(os.environ["MEMVET_HOME"]) / "run" / "daemon.sock"
    server = ContextServer(store, sock).start()
    try:
        many = [approve(store, f"Service {i} deploys to staging with docker") for i in range(12)]
        old = approve(store, "We use npm for the frontend")
        kept = approve(store, "The Go version is pinned in go.mod")
        pack = server.source(APP)
        now = cp.stamp(store.now())
        store.forget(kept.id, actor="dana")
        assert server.source(APP) is pack
        same_as_rebuilt(server, store, pack, now)
        assert kept.id not in {i.id for i in pack.ranked()}
        d = CandidateDraft(
            statement="We use pnpm for the frontend, never npm",
            kind="fact",
            source_type="explicit_user",
            scope=Scope(user="dana", workspace=APP),
            host="claude-code",
            polarity="assert",
        )
        new = store.approve(
            store.admit(d).candidate_id, actor="dana", edits=Edits(supersede_id=old.id)
        )
        assert server.source(APP) is pack
        same_as_rebuilt(server, store, pack, now)
        ids = {i.id for i in pack.ranked()}
        assert new.id in ids and old.id not in ids
        for memory in many:
            store.retire(memory.id, actor="dana")
        assert server.source(APP) is pack  # one update of 12 items, in place
        same_as_rebuilt(server, store, pack, now)
        assert {m.id for m in many}.isdisjoint(i.id for i in pack.ranked())
        for memory in many[:3]:
            store.restore(memory.id, actor="dana")
        assert server.source(APP) is pack
        same_as_rebuilt(server, store, pack, now)
    finally:
        server.stop()
        store.close()
