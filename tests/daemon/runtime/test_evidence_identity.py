"""Issue 9: the same transcript bytes read again (an editor's atomic save, rsync, a restore, a
truncation and rewrite) add no evidence: evidence is identified by (file identity, line,
message id), and a repeat is absorbed. Real files, the real pipeline, a real store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memvet.store import QueueFilter
from store_internals import cipher_of, engine_of

from .conftest import claude_root, claude_tool_result, claude_user, make_ingestor, real_pipeline

STATEMENTS = [
    "We always use uv for Python packaging in this repo.",
    "Never commit directly to the main branch.",
]


def counts(store) -> dict[str, int]:  # noqa: ANN001
    reader = store.reader_for(None, all_scopes=True)
    return {
        c.statement: c.evidence_count
        for c in store.list_candidates(reader, QueueFilter(statuses=("pending",)), limit=None)
    }


def evidence_rows(store) -> int:  # noqa: ANN001
    import sqlalchemy as sa

    with engine_of(store).connect() as conn:
        return conn.execute(sa.text("SELECT count(*) FROM evidence")).scalar_one()


@pytest.fixture
def session_file(claude_project: Path) -> tuple[Path, bytes]:
    data = b"".join(claude_user(t) + claude_tool_result("ok") for t in STATEMENTS)
    path = claude_project / "s-1.jsonl"
    path.write_bytes(data)
    return path, data


def test_an_atomic_save_of_the_same_bytes_adds_no_evidence(store, roots, session_file) -> None:
    path, data = session_file
    ingestor = make_ingestor(store, factory=real_pipeline())
    ingestor.process(str(path), claude_root(roots))
    first = counts(store)
    assert first and set(first.values()) == {1}
    rows = evidence_rows(store)
    for _ in range(3):  # 1→2→3→4 before the fix
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        keep = path.with_suffix(".old")
        os.link(path, keep)  # the new file cannot reuse the old inode number
        os.replace(tmp, path)
        keep.unlink()
        ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.resets["replaced"] == 3
    assert counts(store) == first and evidence_rows(store) == rows


def test_a_truncation_and_rewrite_adds_no_evidence_but_a_new_line_does(
    store, roots, session_file
) -> None:
    path, data = session_file
    ingestor = make_ingestor(store, factory=real_pipeline())
    ingestor.process(str(path), claude_root(roots))
    first = counts(store)
    with path.open("r+b") as f:  # same inode, shorter, then the same bytes again
        f.truncate(0)
    ingestor.process(str(path), claude_root(roots))
    path.write_bytes(data)
    ingestor.process(str(path), claude_root(roots))
    assert ingestor.stats.resets["truncated"] == 1
    assert counts(store) == first
    # The same statement said again in a new line is new evidence.
    with path.open("ab") as f:
        f.write(claude_user(STATEMENTS[0]))
    ingestor.process(str(path), claude_root(roots))
    assert counts(store)[STATEMENTS[0]] == 2 and counts(store)[STATEMENTS[1]] == 1


def test_a_fresh_ingestor_rereading_from_scratch_adds_nothing(store, roots, session_file) -> None:
    """A lost checkpoint (a restored database, `daemon forget`): the file is read from 0."""
    path, _ = session_file
    make_ingestor(store, factory=real_pipeline()).process(str(path), claude_root(roots))
    first = counts(store)
    store.forget_checkpoint(str(path))
    make_ingestor(store, factory=real_pipeline()).process(str(path), claude_root(roots))
    assert counts(store) == first


def test_evidence_from_before_the_migration_gets_its_key(store, roots, session_file) -> None:
    """m005 computes the keys of rows written before it (here: keys wiped, as they were)."""
    import sqlalchemy as sa
    from memvet.store.evidence_identity import backfill_identities

    path, _ = session_file
    make_ingestor(store, factory=real_pipeline()).process(str(path), claude_root(roots))
    first = counts(store)
    with engine_of(store).begin() as conn:
        conn.execute(sa.text("UPDATE evidence SET identity_key = NULL"))
        assert backfill_identities(conn, cipher_of(store)) == len(first)
    store.forget_checkpoint(str(path))
    make_ingestor(store, factory=real_pipeline()).process(str(path), claude_root(roots))
    assert counts(store) == first
