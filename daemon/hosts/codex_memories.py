"""Codex's own memories into memvet's review queue. With `[features] memories = true` Codex
summarises idle threads into `$CODEX_HOME/memories_v2/rollout_summaries/` (0.171's default
layout; `memories/` and `memories/rollout_summaries/` with `[memories] version = "v1"`)
without asking anyone. On each rescan the daemon queues each new file as a pending
`model_inference` candidate (source "Codex memories"), keyed by file name and content hash
(MEMVET_HOME/run/codex-memories.json), so a rewrite of the same summary — Codex rewrites a
deleted one from its database — is not a new candidate.
With the feature off: nothing."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tomllib
from datetime import UTC, datetime
from pathlib import Path

from memvet.store import CandidateDraft, Evidence, Scope, Store
from memvet.store.hosts import CODEX
from memvet.store.paths import codex_home, run_dir
from memvet.store.vocabulary import Kind, SourceType

log = logging.getLogger(__name__)
SOURCE = "Codex memories"
# 0.171's v2 layout, then the v1 layout (`[memories] version = "v1"`), which keeps its rollout
# summaries in `memories/rollout_summaries/`.
FOLDERS = ("memories_v2/rollout_summaries", "memories_v2", "memories/rollout_summaries", "memories")
SKIPPED_NAMES = {"MEMORY.md", "memory_summary.md"}  # indexes and the injected digest
SEEN_FILE = "codex-memories.json"
MAX_STATEMENT = 1000


def memories_on(home: Path) -> bool:
    try:
        with open(home / "config.toml", "rb") as handle:
            features = tomllib.load(handle).get("features", {})
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return isinstance(features, dict) and features.get("memories") is True


def _statement(text: str) -> str:
    lines = (line.strip().lstrip("-*# ").strip() for line in text.splitlines())
    return " ".join(line for line in lines if line)[:MAX_STATEMENT]


def import_new(store: Store) -> int:
    """Queue the memory files not seen yet; returns how many candidates were admitted."""
    home = codex_home()
    if not memories_on(home):
        return 0
    seen_path = run_dir() / SEEN_FILE
    try:
        seen = set(json.loads(seen_path.read_text()))
    except (OSError, ValueError, TypeError):
        seen = set()
    drafts, keys = [], []
    for folder in FOLDERS:
        for path in sorted((home / folder).glob("*.md")):
            if path.name in SKIPPED_NAMES or not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            key = f"{path.name}:{hashlib.sha256(text.encode()).hexdigest()}"
            statement = _statement(text)
            if key in seen or not statement:
                continue
            keys.append(key)
            drafts.append(
                CandidateDraft(
                    statement=statement,
                    kind=Kind.FACT,
                    source_type=SourceType.MODEL_INFERENCE,
                    host=CODEX,
                    scope=Scope(user=store.user, workspace=None, agent=CODEX),
                    confidence=0.4,
                    reasons=(f"source: {SOURCE}",),
                    evidence=Evidence(
                        path=str(path),
                        line=0,
                        message_id=None,
                        timestamp=datetime.now(UTC),
                        excerpt=statement[:300],
                    ),
                )
            )
    if not drafts:
        return 0
    store.admit_many(drafts, actor="daemon")
    seen.update(keys)
    seen_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = seen_path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(sorted(seen), out)
    os.replace(tmp, seen_path)
    log.info("queued %d Codex memory file(s) for review", len(drafts))
    return len(drafts)
