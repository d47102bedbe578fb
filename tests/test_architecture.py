"""The layering of architecture.md, enforced on the source (static imports) and at run time."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMPONENTS = ("store", "daemon", "inspector", "install")
ALLOWED_OURS = {
    "store": {"store"},
    "daemon": {"store", "daemon"},
    "inspector": {"store", "inspector"},
    "install": {"store", "install"},
}
TUI = {"textual", "rich"}
WATCH = {"watchdog", "apscheduler"}
BARE = {"store", "daemon", "inspector", "install", "assets"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _violations() -> list[str]:
    problems = []
    for component in COMPONENTS:
        for path in sorted((ROOT / component).rglob("*.py")):
            for line, name in _imports(path):
                top = name.split(".")[0]
                where = f"{path.relative_to(ROOT)}:{line} imports {name}"
                if top in BARE:
                    problems.append(f"{where} (bare folder name; use memvet.*)")
                if top == "memvet":
                    part = name.split(".")[1] if "." in name else ""
                    if part not in ALLOWED_OURS[component] and part != "assets":
                        problems.append(f"{where} (layering)")
                if top in TUI and component != "inspector":
                    problems.append(f"{where} (Textual outside the inspector)")
                if top in WATCH and component != "daemon":
                    problems.append(f"{where} (watchdog/apscheduler outside the daemon)")
    return problems


def test_layering_holds_in_the_source():
    assert _violations() == []


def test_the_checker_itself_catches_a_violation(tmp_path, monkeypatch):
    fake = tmp_path / "store"
    fake.mkdir()
    (fake / "bad.py").write_text("import textual\nfrom memvet.daemon import x\nimport daemon\n")
    for other in COMPONENTS[1:]:
        (tmp_path / other).mkdir()
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = _violations()
    assert len(found) == 3 and any("layering" in f for f in found)


def test_headless_parts_do_not_load_the_tui_or_watchers_at_run_time():
    code = (
        "import sys, memvet.store, memvet.store.store, memvet.store.cli, memvet.install.launcher;"
        "bad = [m for m in ('textual', 'rich', 'watchdog', 'apscheduler') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_importing_the_store_package_is_light():
    code = "import sys, memvet.store; print('sqlalchemy' in sys.modules, 'sqlmodel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_no_bare_top_level_module_is_importable():
    code = "import importlib.util as u; print([n for n in ('store','daemon','inspector','install') if u.find_spec(n)])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/"
    )
    assert out.stdout.strip() == "[]"
