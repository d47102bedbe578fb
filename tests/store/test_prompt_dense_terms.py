"""The direct prompt hook over classes (recall_classes.py) when one word is held by nearly
every memory, or by every one: its posting list is probed within the other words' holders, or
not read at all, and the hook picks exactly what reading every memory picks."""

from __future__ import annotations

import sqlite3
from itertools import combinations

import pytest
from memvet.store import context_pack as cp
from memvet.store import fast_read as fr
from memvet.store import prompt_match as pm
from memvet.store import recall_classes as rc
from memvet.store import term_index as ti
from store_internals import cipher_of

from .conftest import draft

A = "/home/dana/src/app"
TOOLS = ["redis", "celery", "postgres", "kafka", "nginx", "terraform", "pytest", "vite"]
PROMPTS = [
    "set up celery with redis for module m4",  # module: every memory (not read)
    "which service uses kafka",  # service: nine in ten (probed)
    "does the service module use nginx or vite",
    "pin terraform for the worker service",
    "what about kubernetes",
]


def walked(plan: rc.Plan, bits: tuple[int, ...]) -> int:
    """Memories holding every pair of `bits`, counted by SQLite: one list walked, the rest probed."""
    first, *rest = bits
    has = "EXISTS (SELECT 1 FROM term_postings b WHERE b.token = ? AND b.field = ? AND b.memory_id = a.memory_id)"
    sql = "SELECT count(*) FROM term_postings a WHERE a.token = ? AND a.field = ?" + "".join(
        f" AND {has}" for _ in rest
    )
    return plan.run(sql, tuple(x for b in (first, *rest) for x in plan.tok(b)))[0][0]


def statement(i: int) -> str:
    service = "" if i % 10 == 3 else " service"
    tail = " on the worker" if i % 4 == 0 else ""
    return f"For module m{i % 9}{service} use {TOOLS[i % 8]}, never {TOOLS[(i * 3 + 1) % 8]}{tail}"


@pytest.fixture
def seeded(store):
    drafts = [
        draft(statement(i), kind="fact", workspace=None if i % 3 == 0 else A) for i in range(240)
    ]
    drafts += [draft(statement(i), kind="fact", user="eve") for i in range(240, 270)]
    store.import_memories(drafts, actor="operator")
    return store


def test_a_dense_word_is_read_within_the_others_and_the_picks_do_not_change(seeded, monkeypatch):
    monkeypatch.setattr(rc, "PROMPT_COMMON_FROM", 20)  # the class path at this size
    monkeypatch.setattr(rc, "DENSE_RATIO", 1)  # two tools a memory: their union is wide
    branches = []
    real = rc.Plan.read_holders

    def spy(self, counts, everyone):  # noqa: ANN001
        real(self, counts, everyone)
        branches.append(
            "none" if not self._within else "all" if max(counts) == everyone else "probed"
        )
        sbits = self.bits(ti.STATEMENT)
        for size in range(2, len(sbits) + 1):
            for bits in combinations(sbits, size):  # each count against one walked in SQL
                assert self.holding_all(bits, counts) == walked(self, bits)

    monkeypatch.setattr(rc.Plan, "read_holders", spy)
    now = cp.stamp(seeded.now())
    conn = sqlite3.connect(str(seeded.path), isolation_level=None)
    try:
        conn.execute("PRAGMA query_only = ON")
        for workspace in (A, None):
            source = fr.DirectSource(conn, cipher_of(seeded), "dana", workspace)
            index = source.index()  # the reference: every memory in scope decrypted
            for prompt in PROMPTS:
                for given in (set(), {index.items[0].id}):
                    want = [i.id for i in pm.relevant(index, prompt, given, now)]
                    got = [i.id for i in source.relevant(prompt, given, now)]
                    assert got == want, prompt
            assert any(list(source.relevant(p, set(), now)) for p in PROMPTS)
    finally:
        conn.close()
    assert {"all", "probed"} <= set(branches), branches
