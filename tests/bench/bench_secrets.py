"""Redaction recall and false positives on third-party labelled credential strings.

Data: ../shared/benchdata/secrets/secrets_labelled.jsonl.gz (Nosey Parker, Kingfisher, gitleaks,
detect-secrets; labels by those projects, not by us). Scored on `text_label`.

- A `secret` row counts as redacted when `redact()` changed it and no credential-shaped fragment
  survives. "Survives" is decided by the third-party rule that labelled the row wherever we can
  run it: the row's own Nosey Parker / Kingfisher / gitleaks pattern must no longer match the
  redacted text outside a redaction marker (detect-secrets keyword rows: the labelled
  `expected_secret` must not survive verbatim). Rows whose rule cannot run in Python `re` need
  only be changed; the per-method counts are reported.
- A `not_secret` row is a false positive when `redact()` changed it at all.
- Held-out check: every figure is also given per half of two deterministic splits. `text`: by
  sha256 of the row's text (what the issue asked for). `rule_group`: by sha256 of the connected
  group of rows that share a text or a rule id, so one rule's near-duplicate examples never sit
  in both halves. The detectors were tuned by looking only at rows in half 0 of *both* splits;
  half 1 of either split was never inspected row by row, so a gap between halves shows overfit.
- Reported apart, never dropped: rows whose exact text carries conflicting per-rule labels
  (secret for one rule, not_secret for another), rows with empty text (path-only gitleaks
  rules), rows whose own rule is categorised as an identifier/domain (bucket names, hostnames,
  client ids: URLs without credentials must survive by design), and the hard negatives (gitleaks
  `fps`, gitleaks generic-api-key, detect-secrets KeywordDetector).
- Throughput: redact() vs `str.lower` over the same texts (baseline, same run), on the labelled
  rows and on ordinary prompts/prose from tests/bench/corpus.py; also vs the redactor at git
  HEAD when it can be loaded (`previous_redactor`).

Run: .venv/bin/python tests/bench/bench_secrets.py
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import random
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import ROOT, SHARED, write_result  # noqa: E402
from memvet.daemon.redact import redact  # noqa: E402

DATA = SHARED / "benchdata" / "secrets"
_GLOBAL_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")


def compile_third_party(pattern: str) -> re.Pattern[str] | None:
    """Rust/Go rule syntax → Python re where the translation is mechanical; None otherwise."""
    flags = "".join(sorted(set("".join(_GLOBAL_FLAGS.findall(pattern)))))
    body = _GLOBAL_FLAGS.sub("", pattern)
    body = body.replace(r"\z", r"\Z").replace("[[:alnum:]]", "[A-Za-z0-9]")
    try:
        return re.compile((f"(?{flags})" if flags else "") + body)
    except re.error:
        return None


# Patterns that backtrack catastrophically in Python's `re` (tens of seconds on one row): their
# rows are scored "changed-only".
SLOW_IN_PYTHON_RE = frozenset({"np.phpmailer.1"})


def load_rows() -> list[dict]:
    with gzip.open(DATA / "secrets_labelled.jsonl.gz", "rt") as fh:
        return [json.loads(line) for line in fh]


def load_oracles() -> dict[str, re.Pattern[str]]:
    oracles: dict[str, re.Pattern[str]] = {}
    with gzip.open(DATA / "np_kf_rules.jsonl.gz", "rt") as fh:
        for line in fh:
            rule = json.loads(line)
            if rule["id"] in SLOW_IN_PYTHON_RE:
                continue
            compiled = compile_third_party(rule["pattern"])
            if compiled is not None:
                oracles[rule["id"]] = compiled
    for rule in tomllib.loads((DATA / "gitleaks.toml").read_text())["rules"]:
        if "regex" in rule and (compiled := compile_third_party(rule["regex"])) is not None:
            oracles[rule["id"]] = compiled
    return oracles


_MARKER = re.compile(r"\[REDACTED:[a-z\-]+\]")


def _surviving(pattern: re.Pattern[str], text: str) -> bool:
    """The rule still finds a credential outside every redaction marker."""
    markers = [m.span() for m in _MARKER.finditer(text)]
    for match in pattern.finditer(text):
        start, end = match.span()
        if match.group(0).strip() and not any(s < end and start < e for s, e in markers):
            return True
    return False


def score_secret_row(row: dict, redacted: str, changed: bool,
                     oracles: dict[str, re.Pattern[str]]) -> tuple[bool, str]:
    """(caught, method) for one secret row."""
    pattern = oracles.get(row["rule_id"])
    if pattern is not None and _surviving(pattern, row["text"]):
        return changed and not _surviving(pattern, redacted), "third-party-rule"
    expected = row.get("expected_secret")
    if expected:
        return changed and expected not in redacted, "expected-secret"
    return changed, "changed-only"


def identifier_rule_ids() -> set[str]:
    ids = set()
    with gzip.open(DATA / "np_kf_rules.jsonl.gz", "rt") as fh:
        for line in fh:
            rule = json.loads(line)
            cats = set(rule.get("categories") or ())
            if cats & {"identifier", "domain", "infrastructure"} and "secret" not in cats:
                ids.add(rule["id"])
    return ids


def _half(key: str) -> int:
    return hashlib.sha256(key.encode()).digest()[0] % 2


def split_halves(rows: list[dict]) -> dict[str, list[int]]:
    """Per row, its half (0 = tuning, 1 = held out) under the `text` and `rule_group` splits."""
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for row in rows:
        parent[find("t:" + row["text"])] = find("r:" + row["rule_id"])
    members: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        members[find("t:" + row["text"])].append(row["rule_id"])
    group_key = {root: min(ids) for root, ids in members.items()}  # stable name for the group
    return {"text": [_half(row["text"]) for row in rows],
            "rule_group": [_half(group_key[find("t:" + row["text"])]) for row in rows]}


def conflicting_texts(rows: list[dict]) -> set[str]:
    labels: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        labels[row["text"]].add(row["label"])
    return {text for text, seen in labels.items() if len(seen) > 1}


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


class Tally:
    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # secret, caught, neg, touched

    def add(self, bucket: str, is_secret: bool, hit: bool) -> None:
        c = self.counts[bucket]
        c[0 if is_secret else 2] += 1
        c[1 if is_secret else 3] += hit

    def figures(self, bucket: str) -> dict[str, object]:
        s, caught, n, touched = self.counts[bucket]
        return {"secret_rows": s, "recall": _ratio(caught, s), "missed": s - caught,
                "not_secret_rows": n, "fp_rate": _ratio(touched, n), "touched": touched}

    def table(self, prefix: str) -> dict[str, dict[str, object]]:
        return {key[len(prefix):]: self.figures(key) for key in sorted(self.counts) if key.startswith(prefix)}


def _previous_redactor():
    """redact() as committed at git HEAD, for an in-run speed comparison (None if unavailable)."""
    try:
        source = subprocess.run(["git", "show", "HEAD:daemon/redact.py"], cwd=ROOT, text=True,
                                capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    if "from memvet.daemon." in source:  # split into modules: HEAD's siblings would be needed too
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location("redact_at_head", fh.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module.redact


def _seconds(fn, texts: list[str], reps: int) -> float:
    best = float("inf")
    for _ in range(reps):  # best of `reps`: the least disturbed pass
        start = time.perf_counter()
        for text in texts:
            fn(text)
        best = min(best, time.perf_counter() - start)
    return best


def throughput(name: str, texts: list[str], previous) -> dict[str, object]:
    reps = 5
    base, ours = _seconds(str.lower, texts, reps), _seconds(redact, texts, reps)
    size = sum(len(t.encode()) for t in texts)
    out: dict[str, object] = {
        "texts": name, "rows": len(texts), "repeats": reps,
        "redact_mb_per_s": round(size / ours / 1e6, 2),
        "baseline_str_lower_mb_per_s": round(size / base / 1e6, 2),
        "redact_us_per_row": round(ours / len(texts) * 1e6, 2),
        "slowdown_vs_str_lower": round(ours / base, 1)}
    if previous is not None:
        prev = _seconds(previous, texts, reps)
        out["previous_redactor_us_per_row"] = round(prev / len(texts) * 1e6, 2)
        out["speedup_vs_previous_redactor"] = round(prev / ours, 2)
    return out


def ordinary_texts(count: int = 3000) -> list[str]:
    """User prompts, statements and prose as the daemon mostly sees them (no secrets)."""
    import corpus

    rng = random.Random(7)
    snippets = corpus.Snippets(rng)
    pool = corpus.STATEMENTS + corpus.PROMPTS + snippets.prose + snippets.commands
    return [rng.choice(pool) for _ in range(count)]


def main() -> int:
    if not DATA.is_dir():
        print(f"third-party data not found at {DATA}", file=sys.stderr)
        return 1
    rows = load_rows()
    oracles, identifiers = load_oracles(), identifier_rule_ids()
    halves, conflicts = split_halves(rows), conflicting_texts(rows)
    tally = Tally()
    methods: dict[str, int] = defaultdict(int)
    missed, false_pos = [], []
    for index, row in enumerate(rows):
        result = redact(row["text"])
        is_secret = row["text_label"] == "secret"
        if is_secret:
            hit, method = score_secret_row(row, result.text, result.changed, oracles)
            methods[method] += 1
            if not hit:
                missed.append(f"{row['id']} {row['rule_id']}")
        else:
            hit = result.changed
            if hit:
                false_pos.append(f"{row['id']} {row['rule_id']}")
        buckets = ["all", f"source:{row['source']}", f"family:{row['family']}",
                   f"split:text:{halves['text'][index]}", f"split:rule_group:{halves['rule_group'][index]}"]
        if halves["text"][index] == 0 and halves["rule_group"][index] == 0:
            buckets.append("split:tuned_on")
        if row["text"] in conflicts:
            buckets.append("subset:conflicting_rule_labels")
        else:
            buckets.append("subset:without_conflicting_rule_labels")
        if not row["text"].strip():
            buckets.append("subset:empty_text")
        if is_secret and row["rule_id"] not in identifiers:
            buckets.append("subset:secret_rows_excluding_identifier_rules")
        if row["source"] == "gitleaks":
            buckets.append("subset:gitleaks_tps_fps")
        if row["rule_id"] == "generic-api-key":
            buckets.append("subset:gitleaks_generic_api_key")
        if row["rule_id"] == "KeywordDetector":
            buckets.append("subset:detect_secrets_keyword_detector")
        for bucket in buckets:
            tally.add(bucket, is_secret, hit)

    total = tally.figures("all")
    previous = _previous_redactor()
    figures = {
        "third_party": True,
        "dataset": "secrets_labelled.jsonl.gz (noseyparker, kingfisher, gitleaks, detect-secrets), text_label",
        "secret_rows": total["secret_rows"], "not_secret_rows": total["not_secret_rows"],
        "recall": total["recall"],
        "recall_excluding_identifier_rules": tally.figures("subset:secret_rows_excluding_identifier_rules")["recall"],
        "identifier_rule_rows_excluded": total["secret_rows"]
        - tally.figures("subset:secret_rows_excluding_identifier_rules")["secret_rows"],
        "false_positive_rate": total["fp_rate"],
        "missed_secret_rows": total["missed"], "touched_not_secret_rows": total["touched"],
        "scoring_methods": dict(methods),
        "held_out": {"text_split": tally.table("split:text:"), "rule_group_split": tally.table("split:rule_group:"),
                     "tuned_on_rows": tally.figures("split:tuned_on")},
        "subsets": tally.table("subset:"),
        "per_source": tally.table("source:"), "per_family": tally.table("family:"),
        "missed_ids": missed, "false_positive_ids": false_pos,
        "throughput": throughput("labelled rows", [row["text"] for row in rows], previous),
        "throughput_ordinary_text": throughput("corpus.py prompts and prose", ordinary_texts(), previous),
    }
    write_result("secrets", figures, budgets={"recall": ">= 0.99", "false_positive_rate": "<= 0.02"},
                 notes=NOTES)
    return 0


NOTES = ("Labels are third-party and rule-relative (see benchdata/secrets/SOURCES.md). Many secret rows "
         "are rule examples that are placeholders or identifiers by our policy (aaaa…/xxxx…/abcdef123456… "
         "values, $VAR/%VAR%/#{…} templates, hostnames, bucket URLs, client ids, bare weak passwords "
         "with no context); many not_secret rows are rule-relative near-misses that are live-shaped "
         "credentials by our policy (allow-listed public AIza… keys, `password = 'super$ecret'`, "
         "42-char AWS secrets). redact() masks credential-shaped values and non-placeholder literals "
         "assigned to secret names, and leaves placeholders alone, so neither budget is met; the "
         "remaining rows are listed in missed_ids / false_positive_ids.")


if __name__ == "__main__":
    sys.exit(main())
