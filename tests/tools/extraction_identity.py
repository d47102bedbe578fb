"""Side-by-side identity check for speed work on extraction: the whole prompt path (filter,
redact, rules, adoption, learned scorer, scope cues) run over a large fixed text set, every
candidate (statement, kind, scope, confidence, polarity, hint) written down, then compared.

    python tests/tools/extraction_identity.py record /tmp/before.jsonl   # before the change
    python tests/tools/extraction_identity.py compare /tmp/before.jsonl  # after: 0 differences

Text set: the training corpus messages (tests/corpus/extraction, train + dev, with their
previous assistant turn, in their own host), the real transcripts of ../shared/fixtures and the
MemoryCode dialogues of ../shared/benchdata (replayed as transcripts, as bench_extraction does).
The record goes to a path you name (outside the repo: it quotes ../shared data). Record against
the rule and weight files as they are right before your change: others edit them too.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bench"))
from bench_extraction import (  # noqa: E402
    FIXTURES,
    MEMORYCODE,
    claude_lines,
    codex_lines,
    memorycode_turns,
)

CORPUS = ROOT / "tests" / "corpus" / "extraction" / "messages.jsonl"


def sessions(max_dialogues: int | None) -> Iterator[tuple[str, str, list[bytes]]]:
    """(host, name, transcript lines) of the whole text set, in a fixed order."""
    build = {"claude-code": claude_lines, "codex": codex_lines}
    with CORPUS.open(encoding="utf-8") as fh:
        for line in fh:
            message = json.loads(line)
            if message["split"] not in ("train", "dev"):
                continue
            turns = [("assistant", message["previous_assistant"])] * bool(
                message["previous_assistant"]
            )
            turns.append(("user", message["text"]))
            host = message["host"]
            yield host, message["id"], build[host](message["id"], "/id/repo", turns)
    if FIXTURES.is_dir():
        for path in sorted(FIXTURES.rglob("*.jsonl")):
            host = "codex" if "codex" in str(path) else "claude-code"
            yield host, str(path.relative_to(FIXTURES)), path.read_bytes().splitlines()
    if (MEMORYCODE / "memorycode_dialogues.jsonl.gz").is_file():
        with gzip.open(MEMORYCODE / "memorycode_dialogues.jsonl.gz", "rt") as fh:
            for index, raw in enumerate(fh):
                if max_dialogues is not None and index >= max_dialogues:
                    break
                dialogue = json.loads(raw)
                mentor = dialogue["context"]["mentor"]
                turns = [t for s in dialogue["sessions"] for t in memorycode_turns(s, mentor)]
                host = "claude-code" if index % 2 == 0 else "codex"
                name = f"memorycode-{index}"
                yield host, name, build[host](name, "/id/repo", turns)


def candidates(max_dialogues: int | None) -> Iterator[dict]:
    from memvet.daemon.pipeline import FilePipeline, load_rules

    rules = load_rules()
    for host, name, lines in sessions(max_dialogues):
        feed = FilePipeline(host, f"/id/{name}", rules=rules, user="identity").feed
        for n, line in enumerate(lines, 1):
            for d in feed(line, n):
                yield {
                    "where": f"{name}:{n}",
                    "statement": d.statement,
                    "kind": d.kind,
                    "global": d.scope.workspace is None,
                    "confidence": d.confidence,
                    "polarity": d.polarity,
                    "supersedes_hint": d.supersedes_hint,
                    "reasons": list(d.reasons),
                }


def _switch_off_speedups() -> None:
    from memvet.daemon.extraction.extract import Extractor

    Extractor.worth_scoring = lambda self, sentence: True  # type: ignore[method-assign]
    Extractor.reject_first = True  # every sized sentence through the reject rules first
    import importlib

    from memvet.store.redaction.rule_engine import ruleset

    redact = importlib.import_module("memvet.store.redaction.redact")
    redact._GATES._built, redact._GATES._automaton = True, None  # each gate asked on its own
    ruleset()._woken = _Unremembered()  # woken rules found again for every text


class _Unremembered(dict):
    def __setitem__(self, key: object, value: object) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("record", "compare"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--max-dialogues", type=int, default=None, help="MemoryCode dialogues")
    parser.add_argument("--reasons", action="store_true", help="compare the reasons too")
    parser.add_argument(
        "--without-speedups",
        action="store_true",
        help="the same code with the speed work switched off (the second look's early "
        "stop, rejects asked first, redaction gates one by one, no woken-rule memo): "
        "record with it and compare without it, right after each "
        "other, and the rule and weight files others edit are the same on both sides",
    )
    args = parser.parse_args()
    if args.without_speedups:
        _switch_off_speedups()
    os.environ["MEMVET_HOME"] = tempfile.mkdtemp(prefix="memvet-identity-")  # no user rules
    found = list(candidates(args.max_dialogues))
    if args.mode == "record":
        with args.path.open("w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(c, sort_keys=True) + "\n" for c in found)
        print(f"recorded {len(found)} candidates to {args.path}")
        return 0
    with args.path.open(encoding="utf-8") as fh:
        before = [json.loads(line) for line in fh]
    if not args.reasons:
        for c in (*before, *found):
            c.pop("reasons", None)
    old = {json.dumps(c, sort_keys=True) for c in before}
    new = {json.dumps(c, sort_keys=True) for c in found}
    gone, added = sorted(old - new), sorted(new - old)
    for line in gone[:20]:
        print("- " + line)
    for line in added[:20]:
        print("+ " + line)
    print(f"{len(before)} before, {len(found)} now: {len(gone)} gone, {len(added)} new")
    return 1 if gone or added or len(before) != len(found) else 0


if __name__ == "__main__":
    sys.exit(main())
