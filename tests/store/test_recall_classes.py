"""Recall over classes of memories holding common words only (store/recall_classes.py) reads
exactly the memories, and decides exactly as, recall listing every holder (recall_index.py's
listed path, kept as the reference); and what recall reads never depends on set order."""

from __future__ import annotations

import random

import pytest
from memvet.store import open_store, recall_index
from memvet.store import recall_classes as rc
from memvet.store import term_index as ti
from memvet.store.candidates import QueueFilter
from memvet.store.recall import Recall, recall
from store_internals import cipher_of

from .conftest import draft

APP, OTHER = "/home/dana/src/app", "/home/dana/src/other"
COMMON = ["module", "service", "deploy", "worker"]
TOOLS = ["pytest", "redis", "celery", "postgres", "kafka", "nginx", "terraform", "react", "uv"]
PLACES = ["staging", "production", "dev"]
QUESTIONS = [
    "which tool do we use for module m3",
    "which tool does the service use?",
    "what port does the staging worker listen on?",
    "how do we deploy module m7 to production?",
    "can I use redis for the worker?",
    "which version of terraform do we pin?",
    "what did we decide about kubernetes?",
    "should the module use celery or kafka?",
    "what is the production deploy host?",
    "which service runs nginx",
]


def statement(rng: random.Random, i: int) -> str:
    common = rng.sample(COMMON, rng.randint(1, 3))
    tool, other = rng.sample(TOOLS, 2)
    parts = [f"For {' '.join(common)} m{i % 12} use {tool}, never {other}"]
    if rng.random() < 0.3:
        parts.append(f"on {rng.choice(PLACES)} port {rng.choice([5432, 6379, 8080])}")
    if rng.random() < 0.2:
        parts.append(f"pinned at {tool} {rng.randint(1, 3)}.{rng.randint(0, 9)}")
    return " ".join(parts)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """Two random stores: one scope holding every memory, one with other workspaces and
    stale memories (the ids classes must subtract)."""
    made = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMVET_KEY_PROVIDER", "file")
        for seed, spread in ((1, False), (2, True)):
            rng = random.Random(seed)
            store = open_store(tmp_path_factory.mktemp(f"classes{seed}"), user="dana")
            places = [APP, None, OTHER] if spread else [APP, None]
            kinds = ["preference", "constraint", "decision", "fact", "procedure"]
            store.import_memories(
                [
                    draft(statement(rng, i), kind=rng.choice(kinds), workspace=rng.choice(places))
                    for i in range(140)
                ],
                actor="dana",
            )
            store.admit(draft("We might move the worker deploy to fly", kind="fact"))
            if spread:  # stale: read whole, their postings out of every count
                with store.ctx.write() as conn:
                    conn.exec_driver_sql(
                        "INSERT INTO term_stale SELECT id FROM memories ORDER BY id LIMIT 7"
                    )
            made.append(store)
    yield made
    for store in made:
        store.close()


def read_and_decided(store, question: str, workspace: str | None, now):
    """What recall.recall reads (the ids) and decides, at one `now`."""
    reader = store.reader_for(workspace)
    candidates = store.list_candidates(
        reader, QueueFilter(statuses=("pending", "reserved", "stale")), limit=None
    )
    scope = recall_index.IndexedScope(store, reader, question, candidates)
    decided = Recall(question, scope.memories, candidates, now=now, index=scope).decide()
    return sorted(m.id for m in scope.memories), decided


@pytest.mark.parametrize("probe_max", [ti.PROBE_MAX, 0])
def test_classes_read_and_decide_as_listing_every_holder(stores, monkeypatch, probe_max):
    monkeypatch.setattr(ti, "PROBE_MAX", probe_max)
    monkeypatch.setattr(recall_index, "MAX_READ", 6)  # cuts through classes and ties
    monkeypatch.setattr(recall_index, "MAX_NEIGHBOURS", 5)
    monkeypatch.setattr(rc, "MAX_COMMON", 8)
    monkeypatch.setattr(rc, "WALK_BATCH", 4)  # walks in several steps
    real_plan, planned = rc.plan, []

    def counted(*args, **kwargs):
        found = real_plan(*args, **kwargs)
        planned.append(found is not None)
        return found

    for store in stores:
        now = store.now()
        for question in QUESTIONS:
            for workspace in (APP, None, OTHER):
                monkeypatch.setattr(rc, "plan", lambda *a, **k: None)
                listed = read_and_decided(store, question, workspace, now)
                for common_from in (3, 20):
                    monkeypatch.setattr(rc, "COMMON_FROM", common_from)
                    monkeypatch.setattr(rc, "plan", counted)
                    assert read_and_decided(store, question, workspace, now) == listed, (
                        question,
                        workspace,
                        common_from,
                    )
    assert sum(planned) > len(planned) // 2  # the classes did the ranking, mostly


def test_a_scope_leaving_out_too_many_memories_is_listed(stores, monkeypatch):
    monkeypatch.setattr(rc, "COMMON_FROM", 3)
    monkeypatch.setattr(rc, "OUTSIDE_MAX", 2)
    store = stores[1]
    scope = recall_index.IndexedScope(store, store.reader_for(APP), QUESTIONS[0], [])
    assert scope.plan is None
    monkeypatch.setattr(rc, "OUTSIDE_MAX", 10_000)
    scope = recall_index.IndexedScope(store, store.reader_for(APP), QUESTIONS[0], [])
    assert scope.plan is not None and scope.plan.classes  # counted, not listed


def test_the_memories_read_do_not_depend_on_set_order(stores, monkeypatch):
    """Neighbours tied on every count and on record time (one bulk import) were cut in the
    order a set of terms happened to iterate: another PYTHONHASHSEED, another answer."""
    real = recall_index.tt

    class Ordered:
        def __init__(self, reverse: bool) -> None:
            self.reverse = reverse

        def __getattr__(self, name):
            return getattr(real, name)

        def terms(self, text):
            return sorted(real.terms(text), reverse=self.reverse)

    monkeypatch.setattr(recall_index, "MAX_NEIGHBOURS", 5)
    for question in QUESTIONS:
        seen = []
        for reverse in (False, True):
            monkeypatch.setattr(recall_index, "tt", Ordered(reverse))
            seen.append(recall(stores[0], question, workspace=APP))
        assert seen[0] == seen[1], question


PROMPTS = [
    "set up celery with redis for module m3",
    "fix the staging deploy of the worker service",
    "bump terraform in module m5 to production",
    "why does the module worker use kafka",
]


def prompt_pack(store, conn, prompt: str, workspace: str) -> list[tuple[str, str]]:
    """What the no-daemon prompt hook ranks for `prompt`: (id, statement), in order."""
    from memvet.store import context_pack as cp
    from memvet.store import fast_read as fr

    now = cp.stamp(store.now())
    source = fr.DirectSource(conn, cipher_of(store), "dana", workspace)
    return [(i.id, i.statement) for i in source.relevant(prompt, set(), now)]


def test_the_prompt_hook_ranks_as_listing_every_holder(stores, monkeypatch):
    """The no-daemon hook's scores over classes (fast_read.DirectSource._class_scores) are
    those of listing every holder, or it lists them (a class that reaches the floor)."""
    import sqlite3

    from memvet.store import fast_read as fr

    classes, walked = [], []
    real, rows = fr.DirectSource._class_scores, fr.DirectSource._class_rows

    def counted(self, *args):
        found = real(self, *args)
        classes.append(found is not None)
        return found

    def members(self, *args):
        walked.append(args[0])
        return rows(self, *args)

    for store in stores:
        conn = sqlite3.connect(str(store.path), isolation_level=None)
        try:
            for prompt in PROMPTS:
                for workspace in (APP, OTHER):
                    monkeypatch.setattr(rc, "plan", lambda *a, **k: None)
                    listed = prompt_pack(store, conn, prompt, workspace)
                    monkeypatch.undo()
                    monkeypatch.setattr(rc, "MAX_COMMON", 8)
                    monkeypatch.setattr(fr.DirectSource, "_class_scores", counted)
                    monkeypatch.setattr(fr.DirectSource, "_class_rows", members)
                    for common_from in (3, 20):
                        monkeypatch.setattr(rc, "PROMPT_COMMON_FROM", common_from)
                        assert prompt_pack(store, conn, prompt, workspace) == listed, prompt
        finally:
            conn.close()
    assert any(classes) and walked  # some answered from the classes, their members read
