"""Write each packaged rule's requirement into its table, from the pattern itself.

    python tests/tools/declare_rule_words.py          # add what is missing
    python tests/tools/declare_rule_words.py --check  # exit 1 when a rule lacks it

Extraction rules (assets/rules.toml) get `words = [...]` (whole words one of which every match
has), or, where the pattern has no such words, `contains = [...]` (strings one of which every
match contains); strip filters (assets/filters.toml) get `contains`. The line goes right under
the table's `name` and follows the pattern: rewritten when the pattern changed (this tool is
the lines' only author; tests/daemon/test_declared_words.py proves them). Run it after adding a
rule or editing a pattern: a rule declaring nothing still works, it is only tried on every
sentence.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from regex_literals import requirement  # noqa: E402

ASSETS = Path(__file__).resolve().parents[2] / "assets"
EXTRACTION = ("reject", "durable", "kind", "correction", "scope", "polarity")


def declared(section: str, pattern: str) -> tuple[str, list[str]] | None:
    """What a table of `section` with `pattern` should declare: (key, values), or None."""
    words, strings = requirement(re.compile(pattern))
    if section in EXTRACTION and words is not None:
        return "words", sorted(words)
    if (section in EXTRACTION or section == "strip") and strings is not None:
        return "contains", sorted(strings)
    return None


def wanted(section: str, table: dict) -> tuple[str, list[str]] | None:
    """The line to write when the table's declaration is missing or stale: (key, values; empty:
    remove the line), else None."""
    if "pattern" not in table:
        return None
    line = declared(section, table["pattern"])
    have = next(((k, table[k]) for k in ("words", "contains") if k in table), None)
    if line is not None and have != line:
        return line
    return (have[0], []) if line is None and have is not None else None


def declare(path: Path) -> list[str]:
    """Adds the missing lines to `path`; returns the names of the tables changed."""
    text = path.read_text(encoding="utf-8")
    doc = tomllib.loads(text)
    changed = []
    for section, tables in doc.items():
        if not isinstance(tables, list):
            continue
        for table in tables:
            line = wanted(section, table)
            if line is None:
                continue
            # the table's name line, and the words line the tool wrote under it before (if any)
            name_line = re.compile(
                rf"(\[\[{section}\]\]\n(?:#.*\n)*name = {re.escape(json.dumps(table['name']))}\n)"
                r"(?:(?:words|contains) = \[.*\]\n)?"
            )
            values = ", ".join(json.dumps(v, ensure_ascii=not v.isprintable()) for v in line[1])
            new_line = f"{line[0]} = [{values}]\n" if line[1] else ""
            text, count = name_line.subn(
                lambda m, new_line=new_line: m.group(1) + new_line, text, count=1
            )
            if count:
                changed.append(f"{section}.{table['name']}")
    path.write_text(text, encoding="utf-8")
    return changed


def missing(path: Path) -> list[str]:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    return [
        f"{section}.{table['name']}"
        for section, tables in doc.items()
        if isinstance(tables, list)
        for table in tables
        if wanted(section, table) is not None
    ]


def main(argv: list[str]) -> int:
    files = [ASSETS / "rules.toml", ASSETS / "filters.toml"]
    if "--check" in argv:
        lacking = [name for path in files for name in missing(path)]
        print("\n".join(lacking) or "every rule declares its requirement")
        return 1 if lacking else 0
    for path in files:
        for name in declare(path):
            print(f"{path.name}: {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
