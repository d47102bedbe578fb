"""Transcript lines of a type the parsers do not know are counted by host and host version, so
a format change in one new host release stands out in `daemon status` and `doctor`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from memvet.daemon.commands import pipeline_factory
from memvet.daemon.ingestor import Ingestor
from memvet.daemon.lock import InstanceLock
from memvet.daemon.roots import all_roots

from .conftest import claude_root, review_policy


def _line(version: str, kind: str, uuid: str) -> str:
    return (
        json.dumps(
            {
                "type": kind,
                "uuid": uuid,
                "sessionId": "s-1",
                "version": version,
                "cwd": "/home/dana/src/app",
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {"role": "user", "content": "hello there"},
            }
        )
        + "\n"
    )


def test_the_daemon_counts_unknown_line_types_by_host_version(store, claude_project):
    from memvet.daemon.settings import DaemonSettings
    from memvet.install.status import collect

    old = claude_project / "old.jsonl"
    old.write_text(_line("2.1.332", "user", "u-1") + _line("2.1.332", "mode", "u-2"))
    new = claude_project / "new.jsonl"
    new.write_text(
        _line("2.2.0", "user", "u-3")
        + _line("2.2.0", "brand-new-type", "u-4")
        + _line("2.2.0", "brand-new-type", "u-5")
    )
    ingestor = Ingestor(
        store, review_policy(), DaemonSettings(), pipeline_factory=pipeline_factory(store.user)
    )
    ingestor.load()
    root = claude_root(all_roots())
    for path in (old, new):
        ingestor.process(str(path), root)
    counts = ingestor.stats.to_json()
    assert counts["unknown_types"] == {"claude-code": {"2.2.0": 2}}  # "mode" is a known type
    assert counts["skipped"]["unknown_type"] == 2

    run = Path(os.environ["MEMVET_HOME"]) / "run"
    run.mkdir(parents=True, exist_ok=True)
    (run / "daemon-stats.json").write_text(json.dumps({"roots": [], "stats": counts}))
    with InstanceLock(run):  # what a running daemon holds; this process stands in for it
        report = collect()  # what `status --json` prints and `doctor` judges
    assert report["daemon"]["unknown_types"] == {"claude-code": {"2.2.0": 2}}
    check = {c["name"]: c for c in report["checks"]}["daemon.line_types"]
    assert check["level"] == "warn" and "claude-code 2.2.0: 2" in check["message"]
