"""Codex's v1 memory layout (`[memories] version = "v1"`) keeps its rollout summaries in
`memories/rollout_summaries/`: the daemon queues them like the v2 layout's, and skips the
index `MEMORY.md` and the digest `memory_summary.md`."""

from __future__ import annotations

import os
from pathlib import Path

from memvet.daemon.hosts.codex_memories import import_new
from memvet.store import QueueFilter


def test_v1_rollout_summaries_are_queued_once(store):
    home = Path(os.environ["CODEX_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[features]\nmemories = true\n\n[memories]\nversion = "v1"\n')
    summaries = home / "memories" / "rollout_summaries"
    summaries.mkdir(parents=True)
    (summaries / "2026-12-01-thread-b.md").write_text("- Releases are cut from the main branch.\n")
    (home / "memories" / "MEMORY.md").write_text("# index\n")
    (home / "memories" / "memory_summary.md").write_text("digest\n")
    assert import_new(store) == 1
    assert import_new(store) == 0  # seen: name and content hash
    reader = store.reader_for(None, all_scopes=True)
    [candidate] = store.list_candidates(reader, QueueFilter(statuses=("pending",)))
    assert candidate.statement == "Releases are cut from the main branch."
