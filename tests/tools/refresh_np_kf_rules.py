"""Refresh memvet's pinned copy of the Nosey Parker and Kingfisher rules (Apache-2.0) and the JSON
the redactor loads from it.

    python tests/tools/refresh_np_kf_rules.py --noseyparker NP_CHECKOUT --np-commit SHA \
        --kingfisher KF_CHECKOUT --kf-commit SHA      # re-pin from the rule YAML of both
    python tests/tools/refresh_np_kf_rules.py          # re-derive the JSON from the pinned copy
    python tests/tools/refresh_np_kf_rules.py --check  # the JSON matches the pinned copy

The pinned copy, `assets/secret_rules/np_kf_rules.jsonl`, holds one line per rule with the fields
the redactor needs (`source`, `id`, `name`, `pattern`, `min_entropy`, `confidence`, `categories`,
`source_file`), read from `crates/noseyparker/data/default/builtin/rules/*.yml` and
`data/rules/*.yml`; the rules' examples are not copied. `np_kf.json` is derived from it: every
pattern translated from Rust `regex` syntax to Python `re` (verbose `(?x)` whitespace and comments
removed as Rust removes them, inside classes too; then the Go/Rust → Python rewrites of
refresh_secret_rules.translate), keywords derived from the pattern itself (a string one of which
every match contains, tests/tools/regex_literals.py: neither source declares keywords), the
entropy floor kept. A rule that does not compile is dropped and listed under "dropped"; rules for
what the policy calls public (identifier-only categories) are kept in the file and excluded by
the engine. The pinned file's sha256 goes into store/redaction_version.py (a new rule set makes
the daemon re-redact stored text). Then: `pytest -q tests/store/test_secret_rules.py` and
`python tests/bench/bench_secrets.py`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import re._parser as sre  # noqa: E402 - the standard library's own parser (tools only)

from refresh_secret_rules import _compiles, translate  # noqa: E402
from regex_literals import _longest_piece, _sequence, requirement  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "assets" / "secret_rules"
PINNED, DERIVED = FOLDER / "np_kf_rules.jsonl", FOLDER / "np_kf.json"
COMMITS = {  # what the pinned copy was read from (SOURCES.md of ../shared/benchdata/secrets)
    "noseyparker": "2e6e7f36ce36619852532bbe698d8cb7a26d2da7",
    "kingfisher": "ee7c0db3ef87575768f817820c24736249ffcdef",
}
RULE_FOLDERS = {
    "noseyparker": "crates/noseyparker/data/default/builtin/rules",
    "kingfisher": "data/rules",
}
FIELDS = ("source", "id", "name", "pattern", "min_entropy", "confidence", "categories")
# Marker kinds shared with the gitleaks rules and memvet's own detectors, by provider.
PROVIDER_KINDS = {
    "github": "github-token",
    "gitlab": "gitlab-token",
    "slack": "slack-token",
    "stripe": "stripe-key",
    "jwt": "jwt",
    "openai": "openai-key",
    "anthropic": "anthropic-key",
    "privkey": "private-key",
}
_FLAGS = re.compile(r"\(\?([a-zA-Z]+)\)")
_LEADING_FLAGS = re.compile(r"^(?:\(\?[a-zA-Z]+\))+")
# `(?:.|[\n\r])`, Kingfisher's "any character": one class, not an alternation Python backtracks.
_ANY_CHAR = re.compile(r"\(\?:\.\|\[(?:\\n\\r|\\r\\n)\]\)")
SHORTEST_KEYWORD = 2  # a rule whose best required string is shorter runs on every text
# Patterns that backtrack catastrophically in Python's `re` (minutes on one 2 KB text).
TOO_SLOW_IN_PYTHON = {"np.phpmailer.1": "backtracks catastrophically in Python re"}


def strip_verbose(pattern: str) -> str:
    """Rust's verbose mode: whitespace is ignored everywhere (inside classes too) unless escaped,
    `#` starts a comment to the end of the line, `(?#…)` is a comment."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
        elif pattern.startswith("(?#", i):
            i = pattern.index(")", i) + 1
        elif char == "#":
            end = pattern.find("\n", i)
            i = len(pattern) if end < 0 else end
        else:
            out.append("" if char.isspace() else char)
            i += 1
    return "".join(out)


def rust_to_python(pattern: str) -> str:
    flags = "".join(_FLAGS.findall(pattern))
    if "x" in flags:
        pattern = strip_verbose(pattern)
    pattern = _FLAGS.sub(lambda m: f"(?{m.group(1).replace('x', '')})".replace("(?)", ""), pattern)
    if lead := _LEADING_FLAGS.match(pattern):  # (?x)(?i) → one global group, as Python wants
        merged = "".join(sorted(set("".join(_FLAGS.findall(lead.group(0))))))
        pattern = f"(?{merged})" + pattern[lead.end() :]
    pattern = re.sub(r"\(\?<(?![=!])", "(?P<", pattern)  # named groups
    return _ANY_CHAR.sub(r"[\\s\\S]", translate(pattern, multiline="m" in flags))


def kind_of(rule: dict) -> str:
    provider = rule["id"].split(".")[1]
    if provider in PROVIDER_KINDS:
        return PROVIDER_KINDS[provider]
    return re.sub(r"[^a-z0-9]+", "-", rule["name"].lower()).strip("-")[:48] or provider


def _required_sets(items) -> list[frozenset[str]]:  # noqa: ANN001 - a parsed sequence
    """Every top-level item of a sequence must match, so what each requires, the whole pattern
    requires too (groups looked into): candidates beside the whole pattern's own requirement."""
    found, run = [], ""
    for op, av in items:
        if op is sre.LITERAL and chr(av).isascii():  # consecutive literals: one required string
            run += chr(av).lower()
            continue
        found += [frozenset({run})] * bool(run)
        run = ""
        if op is sre.SUBPATTERN:
            found += _required_sets(av[3])
        elif (required := _sequence([(op, av)])[3]) is not None:
            found.append(frozenset(_longest_piece(s) for s in required))
    return found + [frozenset({run})] * bool(run)


def keywords_of(python: str) -> list[str]:
    """The most selective set of strings one of which every match contains: the longest
    shortest string wins (`requestfinance` over `reques`, `hashicorp|vault|…` over `s.`)."""
    compiled = re.compile(python, re.ASCII)
    _words, pieces = requirement(compiled)
    candidates = [pieces] if pieces else []
    candidates += _required_sets(sre.parse(compiled.pattern, compiled.flags))
    candidates = [c for c in candidates if c and len(c) <= 16]
    if not candidates:
        return []
    best = max(candidates, key=lambda c: (min(map(len, c)), -len(c)))
    return sorted(best) if min(map(len, best)) >= SHORTEST_KEYWORD else []


def derive(pinned_text: str) -> dict:
    rules, dropped = [], []
    for line in pinned_text.splitlines():
        rule = json.loads(line)
        python = rust_to_python(rule["pattern"])
        if problem := TOO_SLOW_IN_PYTHON.get(rule["id"]):
            dropped.append({"id": rule["id"], "reason": problem})
            continue
        if problem := _compiles(python):
            dropped.append(
                {"id": rule["id"], "reason": f"does not compile in Python re: {problem}"}
            )
            continue
        rules.append(
            {
                "id": rule["id"],
                "name": rule["name"],
                "kind": kind_of(rule),
                "regex": python,
                "translated": python != rule["pattern"],
                "lead": 0,
                "keywords": keywords_of(python),
                "entropy": rule["min_entropy"] or 0.0,
                "secret_group": 0,
                "every_group": True,  # Nosey Parker reports every capture group as the finding
                "categories": sorted(rule["categories"] or ()),
                "allowlists": [],
            }
        )
    return {
        "source": {
            name: f"https://github.com/{repo}/tree/{COMMITS[name]}/{RULE_FOLDERS[name]}"
            for name, repo in (
                ("noseyparker", "praetorian-inc/noseyparker"),
                ("kingfisher", "mongodb/kingfisher"),
            )
        },
        "commit": " ".join(f"{name}@{sha}" for name, sha in COMMITS.items()),
        "licence": "Apache-2.0",
        "sha256": hashlib.sha256(pinned_text.encode()).hexdigest(),
        "global_allowlist": {"regexes": [], "stopwords": []},
        "rules": rules,
        "dropped": dropped,
    }


def from_yaml(source: str, checkout: Path) -> list[str]:
    """The pinned lines for one source's rule YAML files (PyYAML: a tool-only dependency)."""
    import yaml

    lines = []
    for path in sorted((checkout / RULE_FOLDERS[source]).glob("*.yml")):
        for rule in yaml.safe_load(path.read_text(encoding="utf-8")).get("rules") or ():
            entry = {key: rule.get(key) for key in FIELDS}
            entry["source"] = source
            entry["source_file"] = f"{RULE_FOLDERS[source]}/{path.name}"
            lines.append(json.dumps(entry, ensure_ascii=False))
    return lines


def render(derived: dict) -> str:
    return json.dumps(derived, indent=1, ensure_ascii=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--noseyparker", type=Path, help="a Nosey Parker checkout to pin")
    parser.add_argument("--np-commit", help="that checkout's 40-hex commit")
    parser.add_argument("--kingfisher", type=Path, help="a Kingfisher checkout to pin")
    parser.add_argument("--kf-commit", help="that checkout's 40-hex commit")
    parser.add_argument("--check", action="store_true", help="only check the JSON")
    args = parser.parse_args(argv)
    if args.noseyparker or args.kingfisher:
        commits = (args.np_commit or "", args.kf_commit or "")
        if not (args.noseyparker and args.kingfisher) or not all(
            re.fullmatch(r"[0-9a-f]{40}", c) for c in commits
        ):
            parser.error("pin both sources, each with its 40-hex commit")
        lines = from_yaml("noseyparker", args.noseyparker) + from_yaml(
            "kingfisher", args.kingfisher
        )
        PINNED.write_text("\n".join(lines) + "\n", encoding="utf-8")
        COMMITS.update(noseyparker=commits[0], kingfisher=commits[1])
        this = Path(__file__).read_text()
        for name, sha in COMMITS.items():
            this = re.sub(rf'"{name}": "[0-9a-f]{{40}}"', f'"{name}": "{sha}"', this)
        Path(__file__).write_text(this)
    fresh = render(derive(PINNED.read_text(encoding="utf-8")))
    if args.check:
        same = DERIVED.is_file() and DERIVED.read_text() == fresh
        print("np_kf.json is up to date" if same else "np_kf.json is stale: run without --check")
        return 0 if same else 1
    DERIVED.write_text(fresh)
    derived = json.loads(fresh)
    version = ROOT / "store" / "redaction_version.py"
    version.write_text(
        re.sub(
            r'NP_KF_SHA256 = "[0-9a-f]*"',
            f'NP_KF_SHA256 = "{derived["sha256"]}"',
            version.read_text(),
        )
    )
    keyless = sum(not r["keywords"] for r in derived["rules"])
    print(
        f"{len(derived['rules'])} rules kept ({keyless} without keywords), "
        f"{len(derived['dropped'])} dropped -> {DERIVED.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
