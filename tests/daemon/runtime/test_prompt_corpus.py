"""The daemon's pack answers a prompt among the holders of its weightier words only
(daemon/prompt_corpus.py) and keeps the session-start footer's count as memories change
(context_cache.CachedSource): the same answers as scoring the whole pack, before and after
changes, over random packs where one word is held by nearly every memory (issue 15)."""

from __future__ import annotations

import random
from collections import Counter

from memvet.daemon import prompt_corpus as pc
from memvet.daemon.context_cache import WALK_FROM, CachedSource
from memvet.store import context_pack as cp
from memvet.store import prompt_match as pm

NOW = "2026-06-01 12:00:00.000000"
WORDS = [
    "docker", "pnpm", "yarn", "postgres", "redis", "celery", "ruff", "pytest", "staging",
    "prod", "port", "version", "deploy", "changelog", "cache", "terraform", "lint", "ci",
]  # fmt: skip
VALUES = ["5432", "1.9.2", "db-01", "api.example.dev", "v3"]
PROMPTS = [
    "set up celery with redis for module m7",
    "use ruff for module m3 in ci",
    "which port does postgres use",
    "bump the terraform version",
    "deploy to staging with docker",
    "which package manager for module m11",
    "module",
    "keep the changelog in step for the cache",
    "deploy to prod",
    "nothing here matches at all",
]


def _item(rng: random.Random, i: int) -> cp.PackItem:
    words = rng.sample(WORDS, rng.randint(1, 3)) + rng.sample(VALUES, rng.randint(0, 1))
    statement = f"For module m{i % 40} use " + " and ".join(words)
    if rng.random() < 0.1:
        statement = "Keep the changelog in step"  # no "module": not every memory holds it
    day = f"2026-0{rng.randint(1, 5)}-{rng.randint(10, 28)} 10:00:00.000000"
    ends = rng.random() < 0.15
    item = cp.PackItem(
        f"m{i:05d}-{rng.randint(0, 9)}",
        rng.choice(["fact", "preference", "decision"]),
        "disputed" if rng.random() < 0.05 else "active",
        rng.choice(["explicit_user", "operator", "import", "model_inference"]),
        rng.randint(0, 2),
        day,
        day if rng.random() < 0.95 else "2026-07-01 00:00:00.000000",  # a few not yet in force
        rng.choice(["2026-05-30 00:00:00.000000", "2027-01-01 00:00:00.000000"]) if ends else None,
        "2026-06-02 00:00:00.000000" if rng.random() < 0.05 else None,
        len(statement.encode()),
        0,
    )
    item.statement = statement
    return item


def _same_as_scoring_everything(pack: CachedSource, items: list[cp.PackItem]) -> None:
    whole = pm.TermIndex(cp.ranked(items))
    assert [i.id for i in pack.ranked()] == [i.id for i in cp.ranked(items)]
    for prompt in PROMPTS:
        given = {items[0].id} if items else set()
        assert [i.id for i in pack.relevant(prompt, given, NOW)] == [
            i.id for i in pm.relevant(whole, prompt, given, NOW)
        ], prompt
    for now in (NOW, "2026-05-31 00:00:00.000000", "2026-08-01 00:00:00.000000"):
        assert pack.count_active(now) == cp.count_active(items, now), now


def test_prompt_answers_and_counts_match_the_whole_pack_through_changes():
    rng = random.Random(15)
    items = cp.ranked(_item(rng, i) for i in range(1500))
    pack = CachedSource(list(items))
    _same_as_scoring_everything(pack, items)
    for step in range(6):
        held = rng.sample(items, 40)
        edited = held[20:]  # the first 20 are retired: dropped, not replaced
        new = [_item(rng, 2000 + 100 * step + k) for k in range(30)]
        changed = [_item(rng, int(old.id[1:6])) for old in edited]
        for old, fresh in zip(edited, changed, strict=True):
            fresh.id = old.id  # the same memory's new state
        pack.update({i.id for i in held} | {i.id for i in new}, [*changed, *new])
        gone = {i.id for i in held}
        items = [i for i in items if i.id not in gone] + changed + new
        _same_as_scoring_everything(pack, items)


def test_a_prompt_lists_far_fewer_candidates_than_its_commonest_word_holds():
    rng = random.Random(7)
    items = cp.ranked(_item(rng, i) for i in range(1500))
    pack = CachedSource(items)
    terms = pc.PackTerms(pack.index())
    corpus = pc.prompt_corpus(terms, "set up celery with redis for module m7")
    assert corpus is not None
    module = len(pack.index().corpus.postings["modul"])
    assert module > 1200
    assert len(corpus._within) < module / 3
    assert pc.prompt_corpus(terms, "which port does postgres use") is None  # a value type


def test_a_prompt_past_the_branch_limit_takes_the_cruder_cut_with_the_same_answers(monkeypatch):
    monkeypatch.setattr(pc, "MAX_BRANCHES", 2)
    rng = random.Random(3)
    items = cp.ranked(_item(rng, i) for i in range(800))
    pack = CachedSource(list(items))
    assert pc._reaching([{1}, {1, 2}, {2}], [3.0, 2.0, 1.0], 2.5) is None
    _same_as_scoring_everything(pack, items)


def test_a_prompt_most_of_the_pack_matches_is_read_in_the_full_sorts_order():
    """Thousands share one score (they hold the same units), and many of those tie on rank down
    to the id: the pack picks them off its best-first list (context_cache.best_first) rather
    than sorting them all, in the same order, however far the hook reads."""
    rng = random.Random(58)
    items = [_item(rng, i) for i in range(3000)]
    for item in items[::3]:  # the same tier, importance and time: only the id orders them
        item.source_type, item.importance = "explicit_user", 1
        item.recorded_at = item.valid_from = "2026-03-03 10:00:00.000000"
    items = cp.ranked(items)
    pack, whole = CachedSource(list(items)), pm.TermIndex(items)
    widest = max(Counter(s for _, s in pm.prompt_scores(whole.corpus, "module")).values())
    assert widest**2 > 100 * WALK_FROM * len(items)  # one score: walked, not sorted
    given = {item.id for item in items[::7]}
    for prompt in ("module", "deploy to staging with docker", "use ruff in ci", "redis postgres"):
        want = [i.id for i in pm.relevant(whole, prompt, given, NOW)]
        assert len(want) > 300, prompt
        assert [i.id for i in pack.relevant(prompt, given, NOW)] == want, prompt
        read = pack.relevant(prompt, given, NOW)
        assert [next(read).id for _ in range(40)] == want[:40], prompt  # a reader that stops
