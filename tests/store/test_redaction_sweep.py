"""Issue 14: a rule added after text was stored still reaches it. Text stored with redaction
switched off (as an older memvet would have stored it) is redacted again by the sweep: the
statement, its boundary, the evidence excerpt, the tombstone preview; a rejected statement
stays rejected under its new content key; the audit chain still verifies; the sweep runs once
per rule-set version."""

from __future__ import annotations

import getpass
from datetime import UTC, datetime

import memvet.store.redaction as redaction
import sqlalchemy as sa
from memvet.store import CandidateDraft, Evidence, QueueFilter, Scope, open_store
from memvet.store.redaction_sweep import META_KEY, reredact_stored
from store_internals import engine_of

TOKEN = "xoxo-5820348523-5820348524-5820348525-4f9a2b7c1d3e"


def _draft(text: str, workspace: str) -> CandidateDraft:
    return CandidateDraft(
        statement=text,
        kind="procedure",
        source_type="explicit_user",
        scope=Scope(user=getpass.getuser(), workspace=workspace, agent="claude-code"),
        evidence=Evidence(
            path="/t.jsonl", line=1, message_id=None, timestamp=None, excerpt=f"earlier: {text}"
        ),
    )


def test_the_sweep_redacts_what_was_stored_before_the_rule(tmp_path, monkeypatch) -> None:
    workspace = str(tmp_path / "repo")
    kept = f"We always post deploy notices with the Slack token {TOKEN} in this repo."
    rejected = f"Post the nightly report with {TOKEN} to the channel."
    store = open_store()
    try:
        with monkeypatch.context() as patch:
            patch.setattr(redaction, "redact", lambda text: redaction.RedactionResult(text, 0, ()))
            first = store.admit(_draft(kept, workspace), actor="test")
            second = store.admit(_draft(rejected, workspace), actor="test")
            store.approve(first.candidate_id, actor="test")
            store.reject(second.candidate_id, actor="test")
        [memory] = store.list_memories(store.reader_for(workspace))
        assert TOKEN in memory.statement  # stored as an older version would have

        counts = reredact_stored(store, datetime.now(UTC), force=True)
        assert (
            counts["memories"] == 1
            and counts["candidates"] == 2
            and counts["tombstones_doubled"] == 1
        )
        [memory] = store.list_memories(store.reader_for(workspace))
        assert TOKEN not in memory.statement and "[REDACTED:" in memory.statement
        shown = store.list_candidates(
            store.reader_for(None, all_scopes=True), QueueFilter(statuses=("rejected",))
        )
        assert shown and all(TOKEN not in c.statement for c in shown)
        with engine_of(store).connect() as conn:
            assert conn.execute(
                sa.text("SELECT value FROM store_meta WHERE key = :k"), {"k": META_KEY}
            ).scalar()
        assert store.verify_audit().ok
        assert reredact_stored(store, datetime.now(UTC)) is None  # once per rule-set version
        # the rejected statement, arriving again (redacted by today's rules), is still blocked
        again = store.admit(_draft(rejected, workspace), actor="test")
        assert again.outcome == "tombstoned", again
    finally:
        store.close()
    for name in ("memvet.db", "memvet.db-wal"):
        path = store.path.parent / name
        assert not path.exists() or TOKEN.encode() not in path.read_bytes()


def test_other_writers_get_in_while_the_sweep_runs(tmp_path, monkeypatch) -> None:
    """At 100k memories the sweep takes minutes. It once ran in one write transaction, so every
    approval and ingest meanwhile failed as "store busy" (what broke `queue approve` in the
    scale benchmark). Now it works in slices, and a writer waiting for the store gets in
    between two of them; the result is the same as in one go."""
    import threading
    import time

    import memvet.store.redaction_sweep as sweep

    workspace = str(tmp_path / "repo")
    store = open_store()
    try:
        with monkeypatch.context() as patch:
            patch.setattr(redaction, "redact", lambda text: redaction.RedactionResult(text, 0, ()))
            for i in range(6):
                store.admit(_draft(f"Step {i}: post the report with {TOKEN} here.", workspace))
        real_redact, started = sweep.redact, threading.Event()

        def slow_redact(text: str):  # a large store: every row takes a while
            started.set()
            time.sleep(0.1)
            return real_redact(text)

        monkeypatch.setattr(sweep, "redact", slow_redact)
        monkeypatch.setattr(sweep, "SLICE", 2, raising=False)
        got_in: list[float] = []

        def writer() -> None:
            assert started.wait(10)
            store.admit(_draft("We review pull requests within a day.", workspace))
            got_in.append(time.monotonic())

        thread = threading.Thread(target=writer)
        thread.start()
        counts = reredact_stored(store, datetime.now(UTC), force=True)
        swept = time.monotonic()
        thread.join(10)
        assert got_in and got_in[0] < swept  # committed while the sweep was still going
        assert counts["candidates"] == 6 and counts["evidence"] == 6
        shown = store.list_candidates(store.reader_for(None, all_scopes=True), QueueFilter())
        assert len(shown) == 7 and all(TOKEN not in c.statement for c in shown)
        assert store.verify_audit().ok
        assert reredact_stored(store, datetime.now(UTC)) is None
    finally:
        store.close()
