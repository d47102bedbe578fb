"""The Store is a facade over explicit parts (issue 11): no mixins, every public method a
one-line delegation to a part built with the shared context, parts that never reach the facade,
and closed vocabularies whose members are the very strings stored and printed."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import sqlalchemy as sa
from memvet.store import vocabulary
from memvet.store.context import StoreContext
from memvet.store.core import CAND
from memvet.store.delegate import Delegated
from memvet.store.store import Store
from store_internals import engine_of

from .conftest import draft

STORE_DIR = Path(__file__).resolve().parents[2] / "store"


def test_the_store_inherits_nothing_and_each_delegation_names_a_method_of_its_part(store):
    assert Store.__mro__ == (Store, object)
    delegations = {
        name: value for name, value in vars(Store).items() if isinstance(value, Delegated)
    }
    assert len(delegations) > 50
    for name, found in delegations.items():
        part = getattr(store, found.part)
        # The method is defined on the part's own class, and the facade calls it bound to it.
        assert getattr(type(part), found.method.__name__) is found.method, name
        assert getattr(store, name).__self__ is part, name
        assert inspect.signature(getattr(store, name)) == inspect.signature(
            found.method.__get__(part)
        )


def test_every_part_shares_the_one_context_and_no_part_imports_the_facade(store):
    parts = [v for v in vars(store).values() if hasattr(v, "ctx") and v is not store]
    assert len(parts) >= 14
    assert all(p.ctx is store.ctx for p in parts)
    assert isinstance(store.ctx, StoreContext)
    for part in parts:
        source = STORE_DIR / Path(inspect.getfile(type(part))).name
        imported = {
            node.module
            for node in ast.walk(ast.parse(source.read_text()))
            if isinstance(node, ast.ImportFrom)
        }
        assert "memvet.store.store" not in imported, source.name


def test_one_instance_can_still_be_patched_without_touching_other_stores(store, monkeypatch):
    calls = []
    monkeypatch.setattr(store, "admit", lambda d, **kw: calls.append(d.statement))
    store.admit(draft("a patched admission writes nothing"))
    assert calls == ["a patched admission writes nothing"]
    assert store.queue_counts(store.reader_for(None, all_scopes=True)).get("pending", 0) == 0


def test_vocabulary_members_are_the_stored_and_printed_strings(store):
    assert (
        vocabulary.KINDS
        == tuple(vocabulary.Kind)
        == (
            "preference",
            "constraint",
            "decision",
            "fact",
            "procedure",
        )
    )
    assert vocabulary.CANDIDATE_STATUSES == tuple(vocabulary.CandidateStatus)
    assert vocabulary.MEMORY_STATUSES == tuple(vocabulary.MemoryStatus)
    assert all(type(v) is str for v in vocabulary.KINDS + vocabulary.CANDIDATE_STATUSES)
    result = store.admit(draft("enum members are written as plain text"))
    assert result.outcome == vocabulary.AdmissionOutcome.QUEUED
    assert json.dumps({"outcome": result.outcome}) == '{"outcome": "queued"}'
    with engine_of(store).connect() as conn:
        stored = conn.execute(
            sa.select(CAND.c.status, sa.func.typeof(CAND.c.status)).where(
                CAND.c.id == result.candidate_id
            )
        ).one()
    assert tuple(stored) == ("pending", "text")
    memory = store.approve(result.candidate_id, actor="op")
    assert memory.status == "active" and store.verify_audit().ok
