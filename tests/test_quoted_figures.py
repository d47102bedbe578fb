"""Every figure quoted in README.md and docs/*.md matches the committed JSON it names.

A quoted figure is written as a code span followed by its source, visibly in prose or (in
tables, where it would crowd the cell) in an HTML comment right after the span:

    `0.35` (eval.json: end_to_end.current_state_accuracy)
    `1.07×` (store.json: round_trip_ratio_encrypted_vs_plaintext)
    `34.8%`<!-- eval.json: end_to_end.current_state_accuracy -->

The key is a dotted path inside the file's `figures` (list items by index). A figure from an
earlier run names the commit that holds that file: `0.35` (eval.json@5e9f523: end_to_end.…) is
read with `git show 5e9f523:docs/benchmarks/eval.json` (skipped, not failed, outside a git
checkout). Rules:
* a plain number or one ending in `×` must equal the JSON value rounded to the decimals shown
  (`0.35` matches 0.3484..0.3549...; `2` matches 2 only within ±0.5, so quote counts exactly);
* `%` means the JSON value is a fraction: `34.8%` is 0.348 × 100, rounded the same way;
* `true`/`false`, `pass`/`fail` compare with a JSON boolean; `null`/`n/a` with null; anything
  else must equal the JSON string exactly.
In README.md and docs/benchmarks.md, a number directly followed by `×` or `%` that is not in
this form (and not a budget such as `≤ 1.3×`) is an error: such figures cannot be traced.
After `python tests/bench/run_all.py`, update the quotes this test lists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "docs" / "benchmarks"
# A unit may stand between the figure and its source: `0.34` s (inspector.json: first_paint_s).
QUOTE = re.compile(
    r"`([^`\n]+)`(?:\s*(?:[A-Za-zµ/%]{1,5}\s*)?\(|<!--\s*)([\w.\-]+\.json(?:@[0-9a-f]{7,40})?):\s*([\w.\-+]+)\s*(?:\)|-->)"
)
NUMBER = re.compile(r"^([+-]?\d+(?:\.(\d+))?)\s*(×|x|%|)$")
BARE = re.compile(r"(?<![\w.`])(?<![≤≥<>]\s)(?<![≤≥<>])\d+(?:\.\d+)?\s?[×%](?!`)")
STRICT = ("README.md", "docs/benchmarks.md")


def load(name: str, bench_dir: Path) -> dict | None:
    """The JSON a quote names: the committed file, or (`file.json@commit`) the one in git."""
    if "@" not in name:
        path = bench_dir / name
        return json.loads(path.read_text()) if path.is_file() else None
    import subprocess

    file, commit = name.split("@")
    rel = (bench_dir / file).relative_to(ROOT) if bench_dir.is_relative_to(ROOT) else Path(file)
    done = subprocess.run(
        ["git", "show", f"{commit}:{rel.as_posix()}"], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        inside = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=ROOT, capture_output=True)
        return {} if inside.returncode != 0 else None  # {}: not a checkout, cannot check
    return json.loads(done.stdout)


def documents() -> list[Path]:
    return [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if p.is_file()]


def lookup(doc: dict, path: str) -> object:
    value: object = doc.get("figures", {})
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise KeyError(path)
    return value


def matches(quoted: str, value: object) -> bool:
    text = quoted.strip()
    if isinstance(value, bool):
        return text.lower() in (("true", "pass") if value else ("false", "fail"))
    if value is None:
        return text.lower() in ("null", "n/a", "none")
    number = NUMBER.match(text.replace(",", ""))
    if number and isinstance(value, int | float):
        decimals = len(number.group(2) or "")
        target = value * 100 if number.group(3) == "%" else value
        return abs(float(number.group(1)) - target) <= 0.5 * 10**-decimals + 1e-9
    return isinstance(value, str) and text == value


def check_text(
    text: str, where: str, bench_dir: Path = BENCH, strict: bool = False
) -> tuple[int, list[str]]:
    """(figures checked, problems) for one document."""
    problems, count, cache = [], 0, {}
    for line_no, line in enumerate(text.splitlines(), 1):
        for quoted, name, key in QUOTE.findall(line):
            count += 1
            if name not in cache:
                cache[name] = load(name, bench_dir)
            doc = cache[name]
            if doc is None:
                problems.append(f"{where}:{line_no}: {name} does not exist")
                continue
            if doc == {}:
                continue  # an earlier commit's file outside a git checkout
            try:
                value = lookup(doc, key)
            except KeyError:
                problems.append(f"{where}:{line_no}: {name} has no figure {key}")
                continue
            if not matches(quoted, value):
                problems.append(f"{where}:{line_no}: `{quoted}` but {name} {key} = {value!r}")
        if strict:
            bare = BARE.findall(QUOTE.sub("", line))
            problems += [
                f"{where}:{line_no}: untraceable figure {b!r} (quote it with its JSON)"
                for b in bare
            ]
    return count, problems


def test_every_quoted_figure_matches_its_json():
    total, problems = 0, []
    for doc in documents():
        rel = str(doc.relative_to(ROOT))
        count, found = check_text(doc.read_text(encoding="utf-8"), rel, strict=rel in STRICT)
        total += count
        problems += found
    assert not problems, "quoted figures differ from docs/benchmarks/*.json:\n" + "\n".join(
        problems
    )
    assert total >= 10, f"only {total} traceable figures found in README.md and docs/*.md"


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    (tmp_path / "store.json").write_text(
        json.dumps(
            {
                "figures": {
                    "ratio": 1.0712,
                    "share": 0.3484,
                    "count": 176,
                    "ok": True,
                    "nested": {"list": [0.5, 2]},
                }
            }
        )
    )
    return tmp_path


def test_a_quote_can_name_the_commit_of_an_earlier_run():
    first = "5e9f523"  # the blind run of the gold evaluation
    if not load(f"eval.json@{first}", BENCH):
        pytest.skip("not a git checkout with the commit of the first gold-evaluation run")
    assert check_text(f"`0.35` (eval.json@{first}: end_to_end.current_state_accuracy)", "doc") == (
        1,
        [],
    )
    count, problems = check_text(
        f"`0.95` (eval.json@{first}: end_to_end.current_state_accuracy)", "doc"
    )
    assert count == 1 and len(problems) == 1


def test_the_checker_accepts_correct_quotes(bench):
    text = (
        "`1.07×` (store.json: ratio) and `34.8%` (store.json: share), `0.35` (store.json: share),"
        " `176` (store.json: count), `pass` (store.json: ok), `2` (store.json: nested.list.1)"
        " | `0.348`<!-- store.json: share --> |"
    )
    assert check_text(text, "doc", bench, strict=True) == (7, [])


@pytest.mark.parametrize(
    "wrong",
    [
        "`1.09×` (store.json: ratio)",
        "`35.8%` (store.json: share)",
        "`0.34` (store.json: share)",
        "`175` (store.json: count)",
        "`fail` (store.json: ok)",
        "`1.07×` (store.json: missing)",
        "`1.07×` (other.json: ratio)",
        "| `0.349`<!-- store.json: share --> |",
    ],
)
def test_the_checker_catches_a_planted_wrong_figure(bench, wrong):
    count, problems = check_text(f"intro {wrong} outro", "doc", bench)
    assert count == 1 and len(problems) == 1


def test_strict_documents_may_not_quote_figures_without_a_source(bench):
    _, problems = check_text("encryption costs 1.07× and recall is 93%", "doc", bench, strict=True)
    assert len(problems) == 2
    _, problems = check_text("budget ≤ 1.3× and ≥ 0.5×", "doc", bench, strict=True)
    assert problems == []


def test_the_generated_appendix_passes_the_checker(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "run_all", ROOT / "tests" / "bench" / "run_all.py"
    )
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    (tmp_path / "x.json").write_text(
        json.dumps(
            {
                "command": "c",
                "figures": {
                    "a": 0.000012,
                    "b": True,
                    "c": None,
                    "d": [1, 2.5],
                    "e": {"f": "short"},
                    "failing_cases": {"x": ["long cause"]},
                },
            }
        )
    )
    monkeypatch.setattr(run_all, "OUT_DIR", tmp_path)
    text = run_all.appendix()
    assert check_text(text, "appendix", tmp_path, strict=True) == (6, [])
