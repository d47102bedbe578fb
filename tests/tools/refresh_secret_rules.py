"""Refresh memvet's pinned copy of the gitleaks rules (MIT) and the JSON the redactor loads.

    python tests/tools/refresh_secret_rules.py --from PATH/TO/gitleaks/config/gitleaks.toml \
        --commit <40-hex commit of that gitleaks checkout>
    python tests/tools/refresh_secret_rules.py --check   # the JSON matches the pinned copy

`--from` copies the file verbatim to `assets/secret_rules/gitleaks.toml` and records the commit;
both modes derive `assets/secret_rules/gitleaks.json` from the pinned copy: every regex translated
from Go RE2 syntax to Python `re` (mid-pattern `(?i)` scoped to the rest of its group, `\\z`,
POSIX classes, literal `[` inside classes), keywords lower-cased, allowlists kept, each rule given
the marker kind memvet shows. A rule that cannot be translated, or is path-only, is dropped and
listed under "dropped" with the reason (the benchmark reports the count). The pinned file's
sha256 goes into store/redaction_version.py: a new rule set makes the daemon sweep stored text
again (store/redaction_sweep.py) and the no-daemon hook re-redact until it has. After a refresh: run
`pytest -q tests/store/test_secret_rules.py` and `python tests/bench/bench_secrets.py`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tomllib
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "assets" / "secret_rules"
PINNED, DERIVED = FOLDER / "gitleaks.toml", FOLDER / "gitleaks.json"
SOURCE = "https://github.com/gitleaks/gitleaks/blob/{commit}/config/gitleaks.toml"

# Marker kinds: memvet's families where a rule belongs to one, else the rule id itself.
FAMILIES = (
    ("aws-access-token", "aws-access-key"),
    ("github-", "github-token"),
    ("gitlab-", "gitlab-token"),
    ("slack-webhook", "slack-webhook"),
    ("slack-", "slack-token"),
    ("stripe-", "stripe-key"),
    ("private-key", "private-key"),
    ("jwt", "jwt"),
    ("generic-api-key", "secret-assignment"),
    ("curl-auth", "basic-auth"),
    ("kubernetes-secret", "secret-assignment"),
    ("openai-", "openai-key"),
    ("anthropic-", "anthropic-key"),
    ("gcp-api-key", "google-api-key"),
)
POSIX = {
    "alnum": "A-Za-z0-9",
    "alpha": "A-Za-z",
    "digit": "0-9",
    "xdigit": "0-9A-Fa-f",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r" \t\n\r\f\v",
    "word": r"\w",
    "punct": r"!-/:-@\[-`{-~",
}


def kind_of(rule_id: str) -> str:
    for prefix, kind in FAMILIES:
        if rule_id.startswith(prefix):
            return kind
    return rule_id


def translate(pattern: str, *, multiline: bool = False) -> str:
    """Go RE2 → Python re. Go's `(?i)` inside a pattern applies to the rest of its group,
    every later alternative of that group included: it becomes `(?i:…)` around each of them.
    `multiline`: the pattern sets `(?m)`, where `$` is the end of a line in both engines."""
    out: list[str] = []
    depth, i, in_class = 0, 0, False
    open_scopes: list[tuple[int, str]] = []  # (depth, opener) of each translated (?flags:
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            pair = pattern[i : i + 2]
            out.append(r"\Z" if pair == r"\z" else pair)  # \z: the very end, as Go's $ below
            i += 2
            continue
        if in_class:
            posix = re.match(r"\[:(\w+):\]", pattern[i:])
            if posix and posix.group(1) in POSIX:
                out.append(POSIX[posix.group(1)])
                i += posix.end()
                continue
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            elif c == "[" or pattern[i : i + 2] in ("&&", "--", "||", "~~"):
                out.append("\\" + c)  # literal in Go; a (future) set operation in Python
                i += 1
                continue
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            if pattern[i : i + 2] == "[^":
                out.append("[^")
                i += 2
                if pattern[i : i + 1] == "]":
                    out.append("\\]")
                    i += 1
                continue
            out.append("[")
            i += 1
            if pattern[i : i + 1] == "]":
                out.append("\\]")
                i += 1
            continue
        flags = re.match(r"\(\?([a-zA-Z]*(?:-[a-zA-Z]+)?)\)", pattern[i:])
        if flags:
            if i == 0 and depth == 0 and "-" not in flags.group(1):
                out.append(flags.group(0))  # a global flag at the start: Python takes it as is
            else:
                opener = f"(?{flags.group(1)}:"
                out.append(opener)
                open_scopes.append((depth, opener))
            i += flags.end()
            continue
        if c == "$" and not multiline:  # Go's $: the end of the text (Python's: or before a \n)
            out.append(r"\Z")
            i += 1
            continue
        if c == "(":
            depth += 1
        elif c == "|" and open_scopes and open_scopes[-1][0] == depth:
            active = [opener for d, opener in open_scopes if d == depth]
            out.append(")" * len(active) + "|" + "".join(active))  # the flags hold after | too
            i += 1
            continue
        elif c == ")":
            while open_scopes and open_scopes[-1][0] == depth:
                open_scopes.pop()
                out.append(")")
            depth -= 1
        out.append(c)
        i += 1
    out.append(")" * len(open_scopes))
    return "".join(out)


# gitleaks' generic rule shape starts with a lazy `[\w.-]{0,50}?` (some rules twice): it only
# stretches the match leftwards over the identifier before the keyword, never changes the secret,
# and costs Python's backtracking engine 50 (or 2,500) tries per position. It is cut off here and
# the engine stretches the match back by hand where an allowlist looks at the whole match.
_LEAD = re.compile(
    r"^(\(\?i\))?((?:\[\\w\.-\]\{0,(\d+)\}\?)*)(\(\?i:)?((?:\[\\w\.-\]\{0,(\d+)\}\?)*)"
)
_ONE_LEAD = re.compile(r"\[\\w\.-\]\{0,(\d+)\}\?")


def strip_lead(pattern: str) -> tuple[str, int]:
    """(pattern without its leading lazy identifier runs, how many characters they allowed)."""
    match = _LEAD.match(pattern)
    lead = sum(int(n) for n in _ONE_LEAD.findall(match.group(2) + match.group(5)))
    if not lead:
        return pattern, 0
    return (match.group(1) or "") + (match.group(4) or "") + pattern[match.end() :], lead


def _compiles(pattern: str) -> str | None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(pattern, re.ASCII)
        except (re.error, FutureWarning, DeprecationWarning) as exc:
            return str(exc)
    return None


def _allowlist(entry: dict) -> dict:
    return {
        "condition": entry.get("condition", "OR").upper(),
        "target": entry.get("regexTarget", "secret"),
        "regexes": [translate(r) for r in entry.get("regexes", [])],
        "stopwords": sorted({w.lower() for w in entry.get("stopwords", [])}),
        # memvet has no file paths: a path check never passes, so an AND allowlist with paths
        # (or one with nothing but paths) never allows anything
        "never_applies": bool(entry.get("paths"))
        and (
            entry.get("condition", "OR").upper() == "AND"
            or not (entry.get("regexes") or entry.get("stopwords"))
        ),
    }


def _without_flag(allowlist: dict) -> dict:
    return {k: v for k, v in allowlist.items() if k != "never_applies"}


def derive(toml_text: str, commit: str) -> dict:
    config = tomllib.loads(toml_text)
    rules, dropped = [], []
    for rule in config["rules"]:
        if "regex" not in rule:
            dropped.append({"id": rule["id"], "reason": "path-only rule (no content regex)"})
            continue
        python, lead = strip_lead(translate(rule["regex"]))
        problem = _compiles(python)
        allowlists = [_allowlist(a) for a in rule.get("allowlists", [])]
        problem = problem or next(
            (p for a in allowlists for r in a["regexes"] if (p := _compiles(r))), None
        )
        if problem:
            dropped.append(
                {"id": rule["id"], "reason": f"does not compile in Python re: {problem}"}
            )
            continue
        rules.append(
            {
                "id": rule["id"],
                "kind": kind_of(rule["id"]),
                "regex": python,
                "translated": python != rule["regex"],
                "lead": lead,
                "keywords": sorted({k.lower() for k in rule.get("keywords", [])}),
                "entropy": rule.get("entropy", 0.0),
                "secret_group": rule.get("secretGroup", 0),
                "allowlists": [_without_flag(a) for a in allowlists if not a["never_applies"]],
            }
        )
    glob = _allowlist(
        config.get("allowlist", {})
    )  # the global one: regexes and stopwords on the secret
    return {
        "source": SOURCE.format(commit=commit),
        "commit": commit,
        "licence": "MIT",
        "sha256": hashlib.sha256(toml_text.encode()).hexdigest(),
        "global_allowlist": {"regexes": glob["regexes"], "stopwords": glob["stopwords"]},
        "rules": rules,
        "dropped": dropped,
    }


def render(derived: dict) -> str:
    return json.dumps(derived, indent=1, ensure_ascii=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--from", dest="source", type=Path, help="a gitleaks config/gitleaks.toml to pin"
    )
    parser.add_argument("--commit", help="the gitleaks commit that file comes from (with --from)")
    parser.add_argument(
        "--check", action="store_true", help="only check the JSON against the pinned copy"
    )
    args = parser.parse_args(argv)
    if args.source is not None:
        if not args.commit or not re.fullmatch(r"[0-9a-f]{40}", args.commit):
            parser.error("--from needs --commit with the 40-hex gitleaks commit")
        PINNED.write_bytes(args.source.read_bytes())
        commit = args.commit
    else:
        commit = json.loads(DERIVED.read_text())["commit"]
    fresh = render(derive(PINNED.read_text(encoding="utf-8"), commit))
    if args.check:
        same = DERIVED.is_file() and DERIVED.read_text() == fresh
        print(
            "gitleaks.json is up to date" if same else "gitleaks.json is stale: run without --check"
        )
        return 0 if same else 1
    DERIVED.write_text(fresh)
    derived = json.loads(fresh)
    version = ROOT / "store" / "redaction_version.py"
    version.write_text(
        re.sub(
            r'GITLEAKS_SHA256 = "[0-9a-f]*"',
            f'GITLEAKS_SHA256 = "{derived["sha256"]}"',
            version.read_text(),
        )
    )
    print(
        f"{len(derived['rules'])} rules kept ({sum(r['translated'] for r in derived['rules'])} translated), "
        f"{len(derived['dropped'])} dropped -> {DERIVED.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
