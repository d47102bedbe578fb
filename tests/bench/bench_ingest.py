"""Ingest throughput: the daemon's whole path (tail + parse + filter + extract + admit, with
store writes and checkpoints) against a bare `json.loads` loop over the same files, same run.

Budgets: whole ingest >= 0.5 x the json.loads baseline (architecture.md); issue 12 asks for the
pipeline alone >= 1 x and the whole ingest >= 0.7 x in CPU.

Two more figures say what the ratio depends on. `parse_only`: the host parsers alone (lines
decoded into their declared types, hosts/formats.py). `real_transcripts`: the pipeline on the
real host transcripts of ../shared/fixtures, measured the same way; bench_extraction's
`ingest_throughput` uses that corpus. It has fewer prompts per second of `json.loads` (short
bookkeeping lines are slow to `json.loads`, and prompts are rarer), and prompts are what the
pipeline spends its time on: `prompts_per_json_loads_ms` puts both corpora side by side.
Run: python tests/bench/bench_ingest.py [--mb 60] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import SHARED, write_result  # noqa: E402
from corpus import generate  # noqa: E402


class Timer:
    """Wall and CPU time of this process (all the work here runs on one thread, so CPU time
    is the steadier figure on a machine busy with other work)."""

    def __enter__(self) -> Timer:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def json_baseline(files: list[Path]) -> Timer:
    with Timer() as t:
        for path in files:
            with path.open("rb") as f:
                for line in f:
                    json.loads(line)
    return t


def _host(path: Path | str) -> str:
    return "codex" if Path(path).name.startswith("rollout-") else "claude-code"


def parse_only(files: list[Path]) -> tuple[Timer, int]:
    """The host parsers alone over the same files: (time, user prompts found)."""
    from memvet.daemon.hosts import SessionState, parser_for

    prompts = 0
    with Timer() as t:
        for path in files:
            parse = parser_for(_host(path), str(path), SessionState()).parse
            with path.open("rb") as f:
                for n, line in enumerate(f, 1):
                    turns, _ = parse(line.rstrip(b"\n"), n)
                    prompts += sum(1 for turn in turns if turn.role == "user")
    return t, prompts


def distinct_prompts(files: list[Path]) -> int:
    """How many different prompt texts the corpus has (the generator repeats a few templates:
    what is remembered per text or per word is warm here more often than in real transcripts)."""
    from memvet.daemon.hosts import SessionState, parser_for

    texts = set()
    for path in files:
        parse = parser_for(_host(path), str(path), SessionState()).parse
        with path.open("rb") as f:
            for n, line in enumerate(f, 1):
                texts.update(t.text for t in parse(line.rstrip(b"\n"), n)[0] if t.role == "user")
    return len(texts)


def real_transcripts(repeat: int) -> dict | None:
    """The pipeline on ../shared/fixtures/transcripts against json.loads over the same lines:
    CPU, best of `repeat`, interleaved (null when ../shared is absent)."""
    folder = SHARED / "fixtures" / "transcripts"
    files = sorted(folder.rglob("*.jsonl")) if folder.is_dir() else []
    if not files:
        return None
    from memvet.daemon.pipeline import FilePipeline, load_rules

    rules = load_rules()
    data = [
        ("codex" if "codex" in str(p) else "claude-code", str(p), p.read_bytes().splitlines())
        for p in files
    ]

    def loads() -> None:
        for _, _, lines in data:
            for line in lines:
                json.loads(line)

    def pipeline() -> None:
        for host, path, lines in data:
            feed = FilePipeline(host, path, rules=rules, user="bench").feed
            for n, line in enumerate(lines, 1):
                feed(line, n)

    base = run = float("inf")
    for _ in range(repeat):
        base, run = min(base, _cpu(loads)), min(run, _cpu(pipeline))
    prompts = _prompts(data)
    size = sum(len(line) for _, _, lines in data for line in lines)
    return {
        "mb": round(size / 1e6, 2),
        "lines": sum(len(lines) for _, _, lines in data),
        "prompts": prompts,
        "prompts_per_mb": round(prompts / (size / 1e6), 1),
        "prompts_per_json_loads_ms": round(prompts / (base * 1000), 2),
        "json_loads_mb_s": round(size / 1e6 / base, 1),
        "cpu_ratio_pipeline_vs_json_loads": round(base / run, 3),
    }


def _cpu(fn) -> float:  # noqa: ANN001
    start = time.process_time()
    fn()
    return time.process_time() - start


def _prompts(data: list[tuple[str, str, list[bytes]]]) -> int:
    from memvet.daemon.hosts import SessionState, parser_for

    count = 0
    for host, path, lines in data:
        parse = parser_for(host, path, SessionState()).parse
        for n, line in enumerate(lines, 1):
            count += sum(1 for turn in parse(line, n)[0] if turn.role == "user")
    return count


def pipeline_only(files: list[Path], user: str) -> tuple[Timer, int]:
    """Parse + filter + extract, no store: separates the pipeline's cost from admission's."""
    from memvet.daemon.commands import pipeline_factory

    make = pipeline_factory(user)
    drafts = 0
    with Timer() as t:
        for path in files:
            pipeline = make(_host(path), str(path), None)
            with path.open("rb") as f:
                for n, line in enumerate(f, 1):
                    drafts += len(pipeline.feed(line.rstrip(b"\n"), n))
    return t, drafts


def whole_ingest(home: Path) -> tuple[Timer, dict]:
    from memvet.daemon.admission_policy import load_policy
    from memvet.daemon.commands import pipeline_factory
    from memvet.daemon.roots import all_roots
    from memvet.daemon.service import Daemon
    from memvet.daemon.settings import DaemonSettings
    from memvet.store import open_store

    store = open_store(home, schema="upgrade")
    try:
        daemon = Daemon(
            store,
            DaemonSettings(),
            load_policy(None),
            all_roots(),
            pipeline_factory=pipeline_factory(store.user),
        )
        daemon.ingestor.load()
        with Timer() as t:
            daemon.worker.scan_all()  # what run_once does, minus the sweeps
        return t, daemon.ingestor.stats.to_json()
    finally:
        store.close()


def prompt_heavy(repeat: int = 5) -> dict | None:
    """WORST CASE, reported apart: every other line a long prompt (the first 40 MemoryCode
    dialogues replayed as transcripts, as in bench_extraction). Parse + filter + extract (no
    store) against json.loads over the same lines; CPU time, best of `repeat`, interleaved."""
    from bench_extraction import MEMORYCODE, prompt_heavy_corpus
    from memvet.daemon.extraction.extract import Extractor
    from memvet.daemon.pipeline import FilePipeline, load_rules

    if not MEMORYCODE.is_dir():
        return None
    data = prompt_heavy_corpus()
    rules = load_rules()
    extractor = Extractor(rules)
    prompts = [json.loads(line) for _, _, lines in data for line in lines]
    texts = [d["message"]["content"] for d in prompts if d.get("type") == "user"]
    texts += [
        d["payload"]["content"][0]["text"]
        for d in prompts
        if d.get("type") == "response_item" and d["payload"].get("role") == "user"
    ]
    sentences = sum(len(extractor.sentences(t)) for t in texts)

    def loads() -> None:
        for _, _, lines in data:
            for line in lines:
                json.loads(line)

    def pipeline() -> None:
        for host, path, lines in data:
            feed = FilePipeline(host, path, rules=rules, user="bench").feed
            for n, line in enumerate(lines, 1):
                feed(line, n)

    base, run = [], []
    for _ in range(repeat):
        for fn, times in ((loads, base), (pipeline, run)):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
    size = sum(len(line) for _, _, lines in data for line in lines) / 1e6
    share, slowest = rule_costs(data, min(run))
    return {
        "lines": sum(len(lines) for _, _, lines in data),
        "prompts": len(texts),
        "prompt_sentences": sentences,
        "mb": round(size, 2),
        "json_loads_mb_s": round(size / min(base), 1),
        "pipeline_mb_s": round(size / min(run), 2),
        "cpu_ratio_pipeline_vs_json_loads": round(min(base) / min(run), 3),
        "pipeline_us_per_prompt_sentence": round(min(run) / sentences * 1e6, 1),
        "rule_regex_cpu_share": share,
        "slowest_rules": slowest,
    }


def rule_costs(data: list, pipeline_cpu: float, top: int = 5) -> tuple[float, list[dict]]:
    """One more (untimed) pass with every extraction rule's regex searches timed on their own
    (thread CPU time): their share of the pipeline's CPU time, and the rules that cost most
    (what a rule author can make cheaper: tighter `words`, less backtracking)."""
    from memvet.daemon.pipeline import FilePipeline, load_rules

    rules = load_rules()  # a copy of its own: its patterns are wrapped below
    spent: dict[str, list[int]] = {}
    clock = time.thread_time_ns
    sections = (
        rules.reject,
        rules.durable,
        rules.kinds,
        rules.correction,
        rules.scope,
        rules.polarity,
    )
    for rule in (rule for section in sections for rule in section):
        search, cost = rule.pattern.search, spent.setdefault(rule.name, [0, 0])

        def timed(text: str, *args: int, _search=search, _cost=cost):  # noqa: ANN001, ANN202
            start = clock()
            found = _search(text, *args)
            _cost[0] += clock() - start
            _cost[1] += 1
            return found

        rule.pattern.__dict__["search"] = timed  # LazyPattern keeps attributes in its __dict__
    for host, path, lines in data:
        feed = FilePipeline(host, path, rules=rules, user="bench").feed
        for n, line in enumerate(lines, 1):
            feed(line, n)
    total = sum(ns for ns, _ in spent.values()) / 1e9
    worst = sorted(spent.items(), key=lambda item: -item[1][0])[:top]
    return round(total / pipeline_cpu, 3), [
        {"rule": name, "searches": n, "us_per_search": round(ns / n / 1e3, 1)}
        for name, (ns, n) in worst
        if n
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=60)
    parser.add_argument("--quick", action="store_true", help="15 MB, best of 3")
    args = parser.parse_args()
    repeat = 3 if args.quick else 5
    if args.quick:
        args.mb = 15
    with tempfile.TemporaryDirectory(prefix="memvet-bench-ingest-") as tmp:
        root = Path(tmp)
        os.environ.update(
            MEMVET_HOME=str(root / "home"),
            HOME=str(root),
            CLAUDE_CONFIG_DIR=str(root / ".claude"),
            CODEX_HOME=str(root / ".codex"),
            MEMVET_KEY_PROVIDER="file",
        )
        files = generate(root / ".claude", root / ".codex", args.mb * 10**6, statement_rate=0.03)
        size = sum(p.stat().st_size for p in files)
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        json_baseline(files)  # warm the page cache
        distinct = distinct_prompts(files)
        # Best of five of each, interleaved, each whole ingest into a fresh store (the CPU speed
        # of this kind of machine drifts by tens of percent within a run: more samples).
        bases, parses, onlys, wholes = [], [], [], []
        for rep in range(repeat):
            bases.append(json_baseline(files))
            parsed, prompts = parse_only(files)
            parses.append(parsed)
            only, drafts = pipeline_only(files, "dana")
            onlys.append(only)
            whole, stats = whole_ingest(root / f"home{rep}")
            wholes.append(whole)
    mb = size / 1e6
    base_w, only_w, whole_w = (min(t.wall for t in ts) for ts in (bases, onlys, wholes))
    base_c, only_c, whole_c = (min(t.cpu for t in ts) for ts in (bases, onlys, wholes))
    parse_c = min(t.cpu for t in parses)
    figures = {
        "corpus_mb": round(mb, 1),
        "files": len(files),
        "lines": lines,
        "prompts": prompts,
        "prompts_per_mb": round(prompts / mb, 1),
        "distinct_prompt_texts": distinct,
        "prompts_per_json_loads_ms": round(prompts / (base_c * 1000), 2),
        "drafts": drafts,
        "outcomes": stats["outcomes"],
        "json_loads_s": round(base_w, 3),
        "json_loads_mb_s": round(mb / base_w, 1),
        "pipeline_only_s": round(only_w, 3),
        "pipeline_only_mb_s": round(mb / only_w, 1),
        "whole_ingest_s": round(whole_w, 3),
        "whole_ingest_mb_s": round(mb / whole_w, 1),
        "ratio_whole_vs_json_loads": round(base_w / whole_w, 3),
        "ratio_pipeline_only_vs_json_loads": round(base_w / only_w, 3),
        "cpu_ratio_whole_vs_json_loads": round(base_c / whole_c, 3),
        "cpu_ratio_pipeline_only_vs_json_loads": round(base_c / only_c, 3),
        "cpu_ratio_parse_only_vs_json_loads": round(base_c / parse_c, 3),
        "cpu_share_of_runtime": round(1 - only_c / whole_c, 3),
        "load_average_1m": os.getloadavg()[0],
        "real_transcripts": real_transcripts(repeat),
        "worst_case_prompt_heavy": prompt_heavy(repeat),
    }
    write_result(
        "ingest",
        figures,
        budgets={
            "ratio_whole_vs_json_loads": ">= 0.5 (architecture.md)",
            "cpu_ratio_whole_vs_json_loads": ">= 0.7 (issue 12)",
            "cpu_ratio_pipeline_only_vs_json_loads": ">= 1.0 (issue 12)",
        },
        notes="Generated corpus (tests/bench/corpus.py): both hosts, mostly tool calls "
        "and output, user statements in ~3% of prompts. Whole ingest = "
        "the daemon's scan in-process (walk roots, tail, pipeline, policy, "
        "store.ingest per batch; no sweeps). Baseline = bare json.loads loop. Each "
        "figure is the best of 5 (--quick: 3) interleaved runs, page cache warm. "
        "parse_only = the host parsers alone (declared msgspec types). "
        "real_transcripts = the pipeline on ../shared/fixtures/transcripts (the corpus of "
        "extraction.json's ingest_throughput; CPU, best of 5): fewer prompts per ms of "
        "json.loads, hence a higher ratio. "
        "cpu_share_of_runtime = the part of the whole ingest's CPU time spent "
        "outside the pipeline (tailing, checkpoints, admission, store). "
        "worst_case_prompt_heavy is a separate, deliberately adverse figure (every "
        "other line a long MemoryCode prompt; pipeline only, CPU, best of 5; null "
        "when ../shared is absent): it is not what the budget is measured on. Its "
        "rule_regex_cpu_share and slowest_rules come from one more, untimed pass with each "
        "extraction rule's regex searches timed apart (thread CPU time). "
        "distinct_prompt_texts: the generated corpus repeats a few prompt templates.",
    )


if __name__ == "__main__":
    main()
