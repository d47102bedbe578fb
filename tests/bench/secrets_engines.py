"""For bench_secrets.py: the pinned rule set's own figures, and the keyword-prefilter engines
measured against each other on the same texts (pick by benchmark, pure-Python fallback).

Engines, each asked "which keywords occur in this lower-cased text" (the rules to wake):
- `str_in`: one `keyword in text` per distinct keyword (what rule_engine.RuleSet.woken does);
- `re_alternation`: one compiled `re` alternation of every keyword, a lookahead per position
  so that overlapping keywords are all found;
- `pyahocorasick`, `hyperscan`: multi-pattern automata (optional packages; "not installed");
- `re2_set`: google-re2's Set of the rules' *whole* regexes (not keywords): which rules match at
  all, the alternative to keyword gating. Rules RE2 rejects are counted.
Each engine's answers are compared with `str_in`'s (`identical`).
"""

from __future__ import annotations

import re
import time

from memvet.store.redaction.rule_engine import ruleset


def rule_set_figures() -> dict[str, object]:
    """Per pinned set: rules in use, translated, dropped (with reasons), left out by policy."""
    import json
    from importlib.resources import files

    from memvet.store.redaction.rule_engine import RULE_FILES

    loaded = ruleset()
    out: dict[str, object] = {
        "rules_in_use": len(loaded.rules),
        "distinct_keywords": len(loaded.keywords),
        "rules_without_keywords": len(loaded.always),
    }
    for name, path in RULE_FILES.items():
        document = json.loads(files("memvet.assets").joinpath(path).read_text())
        ids = {rule["id"] for rule in document["rules"]}
        out[name] = {
            "source": document["source"],
            "commit": loaded.commits[name],
            "rules_in_file": len(document["rules"]) + len(document["dropped"]),
            "rules_in_use": sum(rule.origin == name for rule in loaded.rules),
            "rules_translated": sum(r["translated"] for r in document["rules"]),
            "rules_dropped": len(document["dropped"]),
            "dropped": document["dropped"],
            "rules_excluded_by_policy": [i for i in loaded.excluded if i in ids],
        }
    return out


def _best(fn, texts: list[str], reps: int = 3) -> tuple[float, list]:
    best, answers = float("inf"), []
    for _ in range(reps):
        start = time.perf_counter()
        answers = [fn(text) for text in texts]
        best = min(best, time.perf_counter() - start)
    return best, answers


def keyword_engines(texts: list[str]) -> dict[str, object]:
    keywords = ruleset().keywords
    lowered = [text.lower() for text in texts]
    size = sum(len(t.encode()) for t in texts)
    out: dict[str, object] = {"texts": len(texts), "megabytes": round(size / 1e6, 3)}

    def str_in(text: str) -> frozenset:
        return frozenset(k for k in keywords if k in text)

    base, expected = _best(str_in, lowered)
    engines: dict[str, object] = {"str_in": base}
    alternation = re.compile(
        "(?=(" + "|".join(map(re.escape, sorted(keywords, key=len, reverse=True))) + "))"
    )

    def re_alt(text: str) -> frozenset:
        found = set()
        for match in alternation.finditer(text):
            found.update(k for k in keywords if text.startswith(k, match.start()))
        return frozenset(found)

    engines["re_alternation"] = _best(re_alt, lowered)
    try:
        import ahocorasick

        automaton = ahocorasick.Automaton()
        for keyword in keywords:
            automaton.add_word(keyword, keyword)
        automaton.make_automaton()
        engines["pyahocorasick"] = _best(
            lambda t: frozenset(v for _end, v in automaton.iter(t)), lowered
        )
    except ImportError:
        engines["pyahocorasick"] = None
    try:
        import hyperscan

        database = hyperscan.Database()
        database.compile(
            expressions=[re.escape(k).encode() for k in keywords],
            ids=list(range(len(keywords))),
            elements=len(keywords),
            flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(keywords),
        )
        scratch = hyperscan.Scratch(database)

        def hs(text: str) -> frozenset:
            found: set[str] = set()
            database.scan(
                text.encode(),
                match_event_handler=lambda i, *_: found.add(keywords[i]),
                scratch=scratch,
            )
            return frozenset(found)

        engines["hyperscan"] = _best(hs, lowered)
    except ImportError:
        engines["hyperscan"] = None
    out["re2_set_whole_regexes"] = _re2_set(texts)
    table = {}
    for name, result in engines.items():
        if result is None:
            table[name] = "not installed"
            continue
        seconds, answers = (result, expected) if name == "str_in" else result
        table[name] = {
            "mb_per_s": round(size / seconds / 1e6, 2),
            "relative_to_str_in": round(base / seconds, 2),
            "identical": answers == expected,
        }
    out["engines"] = table
    return out


def _re2_set(texts: list[str]) -> dict[str, object]:
    try:
        import re2
    except ImportError:
        return {"status": "not installed"}
    import tomllib
    from importlib.resources import files

    config = tomllib.loads(
        files("memvet.assets").joinpath("secret_rules/gitleaks.toml").read_text()
    )
    options = re2.Options()
    options.max_mem = 256 << 20
    rule_set, rejected = re2.Set.SearchSet(options), 0
    for rule in config["rules"]:
        if "regex" in rule and rule_set.Add(rule["regex"]) < 0:
            rejected += 1
    started = time.perf_counter()
    rule_set.Compile()
    compile_s = time.perf_counter() - started
    texts = texts[::10]  # a tenth: at its speed the whole set would take minutes
    seconds, _answers = _best(lambda t: rule_set.Match(t), texts, reps=1)
    size = sum(len(t.encode()) for t in texts)
    return {
        "mb_per_s": round(size / seconds / 1e6, 2),
        "compile_s": round(compile_s, 2),
        "rules_rejected": rejected,
        "note": "tells which rules match, not where: the secrets still need each rule's own regex",
    }


def pipeline_share(megabytes: int = 8) -> dict[str, object]:
    """The redaction stage's share of the pipeline's CPU, and the same with the gitleaks rules
    and memvet's detectors only (without the Nosey Parker / Kingfisher rules: the in-run
    baseline of what adding them costs)."""
    from functools import partial

    from memvet.store.redaction.redact import redact_layers

    full = _pipeline_share(megabytes, None)
    without = _pipeline_share(megabytes, partial(redact_layers, rules=frozenset({"gitleaks"})))
    return {
        **full,
        "without_np_kf_rules": without,
        "share_ratio_vs_without_np_kf": round(
            full["redaction_cpu_share"] / without["redaction_cpu_share"], 2
        ),
    }


def _pipeline_share(megabytes: int, redactor) -> dict[str, object]:  # noqa: ANN001
    """The redaction stage's share of the pipeline's CPU (parse + filter + redact + extract) on
    the ingest benchmark's corpus (corpus.generate, as bench_ingest.py builds it): redact() as the
    pipeline calls it (or `redactor`), timed from inside, over the whole pipeline's CPU time."""
    import os
    import tempfile
    from pathlib import Path

    import bench_ingest
    from corpus import generate
    from memvet.daemon import pipeline

    spent = [0.0, 0]
    original = pipeline.redact
    measured = redactor or original

    def timed(text: str):  # noqa: ANN202 - RedactionResult
        start = time.process_time()
        try:
            return measured(text)
        finally:
            spent[0] += time.process_time() - start
            spent[1] += 1

    with tempfile.TemporaryDirectory(prefix="memvet-bench-secrets-") as tmp:
        root = Path(tmp)
        saved = {
            k: os.environ.get(k) for k in ("MEMVET_HOME", "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME")
        }
        os.environ.update(
            MEMVET_HOME=str(root / "home"),
            HOME=str(root),
            CLAUDE_CONFIG_DIR=str(root / ".claude"),
            CODEX_HOME=str(root / ".codex"),
        )
        try:
            files = generate(
                root / ".claude", root / ".codex", megabytes * 10**6, statement_rate=0.03
            )
            bench_ingest.pipeline_only(files, "dana")  # warm: rules compiled, caches filled
            best = None
            for _ in range(3):
                spent[:] = [0.0, 0]
                pipeline.redact = timed
                try:
                    whole, _drafts = bench_ingest.pipeline_only(files, "dana")
                finally:
                    pipeline.redact = original
                share = spent[0] / whole.cpu
                if best is None or whole.cpu < best[0]:
                    best = (whole.cpu, share, spent[1])
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    cpu, share, calls = best
    return {
        "corpus_mb": megabytes,
        "pipeline_cpu_s": round(cpu, 3),
        "redact_calls": calls,
        "redaction_cpu_share": round(share, 4),
        "budget": "<= 0.25",
    }


def over_redaction(split: str = "test") -> dict[str, object]:
    """Redaction on the labelled durable statements of the extraction corpus (issue 10's split):
    how many it changes (budget <= 1 %) and empties (budget 0), and the whole messages too."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "corpus" / "extraction"))
    import labelled_corpus
    from memvet.store.redaction import redact

    messages = labelled_corpus.load(split)
    statements = [label["statement"] for m in messages for label in m["labels"]]
    changed = [s for s in statements if redact(s).text != s]
    marker = re.compile(r"\[REDACTED:[a-z0-9\-]+\]")
    emptied = [s for s in statements if not marker.sub("", redact(s).text).strip(" .,;:")]
    touched_messages = sum(redact(m["text"]).changed for m in messages)
    return {
        "split": split,
        "statements": len(statements),
        "changed": len(changed),
        "changed_share": round(len(changed) / len(statements), 4) if statements else None,
        "emptied": len(emptied),
        "messages": len(messages),
        "messages_changed": touched_messages,
        "budget": "changed_share <= 0.01, emptied == 0",
    }
