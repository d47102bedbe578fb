"""Adjudicate the third-party labelled secrets (../shared/benchdata/secrets) against memvet's
policy (docs/threat-model.md, "What counts as a secret"), once, into a committed file:

    tests/corpus/secrets/adjudicated.tsv   row id <TAB> policy label <TAB> one-line reason

Only rows whose policy label differs from the corpus' `text_label` are listed. The criteria look
at the row (its text, its rule's name and categories), never at what memvet's redactor does with
it, so the adjudicated figures do not grade the detector by its own answers:

- secret → not_secret
  * identifier: the row's rule finds a public identifier (rule categories identifier / domain /
    infrastructure without "secret", or a rule named "… ID", "… Domain", "… URL", "… Username",
    "… Bucket", "… Hostname", "ARN"; never a rule whose name says key, token, secret, password)
    and the text has no secret word (secret, passw, token, pwd, private, webhook) besides;
  * placeholder: the credential (detect-secrets' expected secret, else what the row's own rule
    captures, last group) is a documentation placeholder — mostly one character (aaaa…), a run of x, *****,
    #####, a whole-value template (${VAR}, $VAR, #{…}, %VAR%, {{…}}, <…>), an example word
    (example, sample, dummy, placeholder, your…), or the RFC 4122 example UUID 123e4567-e89b-….
    Typed sequences (abcdef123456…) are NOT placeholders: next to a secret name a person may use
    one as a real, weak secret ("when unsure, redact");
  * empty: the row has no text (a path-only rule).
- not_secret → secret
  * live-shaped Google API key: AIza + 35 characters, published in code (gitleaks lists such keys
    as false positives because they are often public Firebase keys; by policy an API key grants
    access and is redacted);
  * file-type keyword case: a detect-secrets keyword negative whose value the same corpus labels
    a secret in another file type (the label depends on a file extension the text lacks).

    python tests/tools/adjudicate_secrets.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "corpus" / "secrets" / "adjudicated.tsv"
_IDENTIFIER_NAME = re.compile(r"(?i)\b(?:id|domain|url|uri|username|user name|bucket|hostname|host|"
                              r"arn|account name|storage name|org(?:anization)? id|endpoint)\b")
_SECRETISH_NAME = re.compile(r"(?i)secret|token|key|password|credential|private")
_PLACEHOLDER = re.compile(r"(?i:xxxx)|\*\*\*\*\*|#####|"
                          r"^\s*[\"']?(?:\$\{[\w.\-]+\}|\$[A-Za-z_]\w*|#\{[^}]*\}|%[A-Za-z_]+%|\{\{[^}]*\}\}|<[^<>]+>)[\"']?\s*$|"
                          r"(?i:example|sample|dummy|placeholder|your[_\-]?(?:pass|key|token|secret|api))|123e4567-e89b-12d3")


def placeholder(value: str) -> str | None:
    """What makes `value` a documentation placeholder, or None."""
    if len(value) >= 6 and max(map(value.count, set(value))) * 5 >= len(value) * 3:
        return "one character repeated"
    found = _PLACEHOLDER.search(value)
    return f"contains {found.group(0)[:12]!r}" if found else None


_SECRET_WORD = re.compile(r"(?i)secret|passw|token|pwd|private|webhook")
_GOOGLE_KEY = re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])")


def _value(row: dict, oracles: dict) -> str | None:
    """The credential the row is about: detect-secrets' expected secret, else what the row's own
    third-party rule captures (its last non-empty group: in a (user, password) rule, the password), else None (not judged: the whole text
    would put a placeholder host next to a real password)."""
    if row.get("expected_secret"):
        return row["expected_secret"]
    pattern = oracles.get(row["rule_id"])
    match = pattern.search(row["text"]) if pattern is not None else None
    if match is None:
        return None
    return next((g for g in reversed(match.groups()) if g), match.group(0))


def adjudicate(rows: list[dict], rules: list[dict], oracles: dict) -> list[tuple[str, str, str]]:
    categories = {r["id"]: set(r.get("categories") or ()) for r in rules}
    names = {r["id"]: r.get("name", "") for r in rules}
    keyword_secrets = {row["expected_secret"] for row in rows if row["rule_id"] == "KeywordDetector"
                       and row["text_label"] == "secret" and row.get("expected_secret")}
    out = []
    for row in rows:
        rule, text = row["rule_id"], row["text"]
        if row["text_label"] == "secret":
            cats, name = categories.get(rule, set()), names.get(rule, row.get("rule_name", ""))
            if not text.strip():
                out.append((row["id"], "not_secret", "empty text: a path-only rule, nothing to redact"))
            elif not _SECRETISH_NAME.search(name) and not _SECRET_WORD.search(text) and (
                    (cats & {"identifier", "domain", "infrastructure"} and "secret" not in cats)
                    or _IDENTIFIER_NAME.search(name)):
                out.append((row["id"], "not_secret", f"public identifier: rule '{name}' finds an id/host/name"))
            elif (value := _value(row, oracles)) is not None and (why := placeholder(value)) is not None:
                out.append((row["id"], "not_secret", f"documentation placeholder: {why}"))
        else:
            if rule == "gcp-api-key" and _GOOGLE_KEY.search(text) and not _PLACEHOLDER.search(text):
                out.append((row["id"], "secret", "live-shaped Google API key (AIza…): an API key grants access"))
            elif rule == "KeywordDetector" and any(value in text for value in keyword_secrets):
                out.append((row["id"], "secret", "keyword case labelled secret in another file type; no extension here"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = parser.parse_args(argv)
    data = args.shared / "benchdata" / "secrets"
    with gzip.open(data / "secrets_labelled.jsonl.gz", "rt") as fh:
        rows = [json.loads(line) for line in fh]
    with gzip.open(data / "np_kf_rules.jsonl.gz", "rt") as fh:
        rules = [json.loads(line) for line in fh]
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    from bench_secrets import load_oracles  # the third-party rules, compiled as the bench does

    decided = adjudicate(rows, rules, load_oracles())
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# row id\tpolicy label\treason  (tests/tools/adjudicate_secrets.py; policy: docs/threat-model.md)"]
    lines += ["\t".join(entry) for entry in decided]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    flips = sum(label == "secret" for _, label, _ in decided)
    print(f"{len(decided)} rows adjudicated ({len(decided) - flips} secret→not_secret, {flips} not_secret→secret)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
