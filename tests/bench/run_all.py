"""Run every benchmark and rewrite docs/benchmarks/*.json: one command for all committed figures.

    python tests/bench/run_all.py [--quick] [--only NAME ...] [--doc-only] [--refresh-quotes]

Each `tests/bench/bench_*.py` runs in its own subprocess, one after the other (so they never
compete for the machine), with `--quick` passed through to the scripts whose source mentions it.
At the end it says which scripts wrote their JSON (the file's `date` moved) and which did not;
the exit code is non-zero when any script failed or wrote nothing.

It then rewrites the generated appendix of docs/benchmarks.md (between `<!-- figures:begin -->`
and `<!-- figures:end -->`): every figure of every docs/benchmarks/*.json, in the quoted form
tests/test_quoted_figures.py checks (`--doc-only` does only this). Figures quoted by hand
elsewhere are then listed by `pytest -q tests/test_quoted_figures.py` if they went stale;
`--refresh-quotes` rewrites each of them to its JSON value with the decimals it had (then reread
the sentences around them: a figure that moved may change what they should say).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT_DIR = ROOT / "docs" / "benchmarks"
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- figures:begin -->", "<!-- figures:end -->"
SKIP = ("failing_cases",)  # per-case detail, not figures


def scripts(only: list[str] | None = None) -> list[Path]:
    # bench_eval.py last: it copies extraction.json's third-party figures into eval.json.
    found = sorted(HERE.glob("bench_*.py"), key=lambda p: (p.stem == "bench_eval", p.name))
    if only:
        found = [p for p in found if p.stem.removeprefix("bench_") in only]
    return found


def supports_quick(script: Path) -> bool:
    return "--quick" in script.read_text(encoding="utf-8")


def stamp(name: str) -> str | None:
    """The `date` of docs/benchmarks/<name>.json, or None when it does not exist or is unreadable."""
    path = OUT_DIR / f"{name}.json"
    try:
        return json.loads(path.read_text())["date"]
    except (OSError, ValueError, KeyError):
        return None


def run_one(script: Path, quick: bool) -> dict:
    name = script.stem.removeprefix("bench_")
    before = stamp(name)
    command = [sys.executable, str(script)] + (
        ["--quick"] if quick and supports_quick(script) else []
    )
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    after = stamp(name)
    return {
        "name": name,
        "command": " ".join(command[1:]),
        "exit": done.returncode,
        "seconds": round(time.perf_counter() - start, 1),
        "wrote": after is not None and after != before,
        "tail": (done.stderr or done.stdout).strip().splitlines()[-3:],
    }


def leaves(value: object, prefix: str = "") -> list[tuple[str, object]]:
    if isinstance(value, dict):
        return [
            leaf
            for k, v in value.items()
            if k not in SKIP
            for leaf in leaves(v, f"{prefix}.{k}" if prefix else str(k))
        ]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in leaves(v, f"{prefix}.{i}")]
    if isinstance(value, str) and len(value) > 60:
        return []
    return [(prefix, value)]


def shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value and abs(value) < 1e-4:
        return f"{value:.8f}".rstrip("0")  # never scientific notation: the checker reads decimals
    return str(value)


def appendix() -> str:
    parts = [BEGIN, ""]
    for path in sorted(OUT_DIR.glob("*.json")):
        doc = json.loads(path.read_text())
        parts += [
            f"### {path.name}",
            "",
            f"`{doc.get('command', '?')}` · commit {doc.get('commit', '?')} · "
            f"{doc.get('date', '?')}",
            "",
            "| figure | value |",
            "|---|---|",
        ]
        parts += [
            f"| {key} | `{shown(v)}`<!-- {path.name}: {key} --> |"
            for key, v in leaves(doc.get("figures", {}))
        ]
        parts.append("")
    parts.append(END)
    return "\n".join(parts)


def rewrite_doc() -> bool:
    """Replace the generated block of docs/benchmarks.md; False when the markers are missing."""
    if not DOC.is_file():
        return False
    text = DOC.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        return False
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    DOC.write_text(head + appendix() + tail, encoding="utf-8")
    return True


def refresh_quotes() -> list[str]:
    """Rewrite stale quoted figures in README.md and docs/*.md; returns what changed."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "quoted", ROOT / "tests" / "test_quoted_figures.py"
    )
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)  # type: ignore[union-attr]
    changes: list[str] = []

    def fresh(match: re.Match[str], where: str) -> str:
        quoted, name, key = match.groups()
        try:
            value = checker.lookup(json.loads((OUT_DIR / name).read_text()), key)
        except (OSError, ValueError, KeyError):
            return match.group(0)
        number = checker.NUMBER.match(quoted.strip())
        if checker.matches(quoted, value) or not number or not isinstance(value, int | float):
            return match.group(0)
        decimals, suffix = len(number.group(2) or ""), number.group(3)
        new = f"{(value * 100 if suffix == '%' else value):.{decimals}f}{suffix}"
        changes.append(f"{where}: {quoted} -> {new} ({name}: {key})")
        return match.group(0).replace(f"`{quoted}`", f"`{new}`", 1)

    for doc in checker.documents():
        text = doc.read_text(encoding="utf-8")
        new_text = checker.QUOTE.sub(lambda m, d=doc.name: fresh(m, d), text)
        if new_text != text:
            doc.write_text(new_text, encoding="utf-8")
    return changes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="pass --quick to the benchmarks that support it"
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="e.g. --only store eval")
    parser.add_argument(
        "--doc-only",
        action="store_true",
        help="only rewrite the generated appendix of docs/benchmarks.md",
    )
    parser.add_argument(
        "--refresh-quotes",
        action="store_true",
        help="also rewrite stale hand-quoted figures to their JSON values",
    )
    args = parser.parse_args(argv)
    if args.doc_only:
        print(
            "docs/benchmarks.md appendix " + ("rewritten" if rewrite_doc() else "markers missing")
        )
        for change in refresh_quotes() if args.refresh_quotes else []:
            print(f"  {change}")
        return 0
    results = []
    for script in scripts(args.only):
        print(f"running {script.name} ...", flush=True)
        result = run_one(script, args.quick)
        results.append(result)
        status = "wrote" if result["wrote"] else "DID NOT WRITE"
        print(
            f"  {status} docs/benchmarks/{result['name']}.json "
            f"(exit {result['exit']}, {result['seconds']} s)",
            flush=True,
        )
        if result["exit"] != 0 or not result["wrote"]:
            for line in result["tail"]:
                print(f"    {line}")
    bad = [r["name"] for r in results if r["exit"] != 0 or not r["wrote"]]
    print(
        f"\n{len(results) - len(bad)}/{len(results)} benchmarks wrote their JSON"
        + (f"; failed or wrote nothing: {', '.join(bad)}" if bad else "")
    )
    if rewrite_doc():
        print(
            "docs/benchmarks.md appendix rewritten; now run: pytest -q tests/test_quoted_figures.py"
        )
    for change in refresh_quotes() if args.refresh_quotes else []:
        print(f"  {change}")
    return 1 if bad or not results else 0


if __name__ == "__main__":
    sys.exit(main())
