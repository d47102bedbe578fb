"""Flat daemon memory (issue 15): the heap a backfill freed goes back to the OS."""

from __future__ import annotations

import pytest
from memvet.daemon.memory import _malloc_trim, release_free_memory

MIB = 2**20


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


@pytest.mark.skipif(_malloc_trim() is None, reason="needs glibc's malloc_trim")
def test_freed_heap_fragmented_by_survivors_is_returned() -> None:
    """Like a backfill: many buffers freed, a few kept (candidates, checkpoints) pin the heap."""
    release_free_memory()
    before = rss_mib()
    blocks = [bytes(4096) + bytes([i % 251]) for i in range(25_000)]  # ~100 MiB through malloc
    kept = blocks[::64]
    del blocks
    freed_but_held = rss_mib()
    assert release_free_memory()
    after = rss_mib()
    assert freed_but_held - before > 50  # glibc kept the freed pages...
    assert freed_but_held - after > 50  # ...until they were trimmed
    assert len(kept) == 391


def test_elsewhere_it_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    _malloc_trim.cache_clear()
    monkeypatch.setattr("sys.platform", "darwin")
    try:
        assert release_free_memory() is False
    finally:
        monkeypatch.undo()
        _malloc_trim.cache_clear()
