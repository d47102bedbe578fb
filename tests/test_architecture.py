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


def _calls_of_private_store_helpers(roots: list[Path]) -> list[str]:
    """`store._read()`, `self.store._audit(...)`…: the facade's internals reached from outside."""
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            text = path.read_text()
            if (
                "store._" not in text
            ):  # the only spelling that can match: parse the few that have it
                continue
            for node in ast.walk(ast.parse(text, filename=str(path))):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and (
                        (isinstance(node.value, ast.Name) and node.value.id == "store")
                        or (isinstance(node.value, ast.Attribute) and node.value.attr == "store")
                    )
                ):
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno} .{node.attr}")
    return found


def test_the_store_facade_has_no_private_shims_and_nothing_reaches_one():
    tree = ast.parse((ROOT / "store" / "store.py").read_text())
    [facade] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Store"]
    names = [n.name for n in facade.body if isinstance(n, ast.FunctionDef)] + [
        t.id
        for n in facade.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    ]
    assert "approve" in names  # the walk sees the facade's members
    shims = [n for n in names if n.startswith("_") and not n.startswith("__")]
    assert shims == []  # the unit of work is `store.ctx`, decoding `store.rows`
    roots = [ROOT / part for part in (*COMPONENTS, "tests")]
    assert _calls_of_private_store_helpers(roots) == []


def test_the_private_helper_check_catches_a_call(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "m.py").write_text("with store._read() as c:\n    self.store._audit(c)\n")
    assert len(_calls_of_private_store_helpers([tmp_path / "x"])) == 2


def test_key_derivation_and_the_ciphertext_header_are_written_once():
    """codec.py alone derives the data key's keys and spells the MV1 header and the AADs (the
    team's ECIES wrap, team/wrapping.py, is a format of its own)."""
    spellings = (
        "def derive_key",
        'b"\\0" * 32',
        'b"MV\\x01"',
        '"memvet/field/v1',
        'b"memvet/dek/v1',
    )
    found = []
    for path in sorted((ROOT / "store").rglob("*.py")):
        text = path.read_text()
        found += [f"{path.name}: {s}" for s in spellings if s in text and path.name != "codec.py"]
    assert found == []
    codec = (ROOT / "store" / "codec.py").read_text()
    assert all(s in codec for s in ('b"\\0" * 32', '"memvet/field/v1', 'b"memvet/dek/v1'))


ENGINE_CIPHER = {"engine", "cipher"}
STORE_INTERNALS = {"ctx", "rows", *ENGINE_CIPHER}


def _reaches_into_a_store(files: list[Path], internals: set[str]) -> list[str]:
    """`store.cipher`, `self.store.ctx.engine`…: a Store's insides read outside store/ (a call,
    such as a team session's `session.cipher()`, is a method of another object)."""
    found = []
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or node.attr not in internals:
                continue
            owner = node.value  # engine/cipher of any name; ctx/rows of a `store`
            any_name = isinstance(owner, ast.Name) and node.attr in ENGINE_CIPHER
            if (any_name or _names_a_store(owner)) and id(node) not in called:
                found.append(f"{path}:{node.lineno} .{node.attr}")
    return found


def _names_a_store(node: ast.expr | None) -> bool:
    return (isinstance(node, ast.Name) and node.id == "store") or (
        isinstance(node, ast.Attribute) and node.attr == "store"
    )


def test_nothing_outside_store_reaches_a_stores_engine_cipher_or_context():
    """Callers go through named Store methods (`log_tag`, `direct_source`…); tests reach the
    engine and the cipher only through tests/support/store_internals.py."""
    from memvet.store import Store

    assert not ENGINE_CIPHER & set(dir(Store))
    outside = [
        p for part in ("daemon", "inspector", "install") for p in (ROOT / part).rglob("*.py")
    ]
    assert _reaches_into_a_store(outside, STORE_INTERNALS) == []
    support = ROOT / "tests" / "support"
    not_a_store = ROOT / "tests" / "store" / "test_scope_rule.py"  # its `db`: a table and engine
    tests = [
        p for p in (ROOT / "tests").rglob("*.py") if support not in p.parents and p != not_a_store
    ]
    assert _reaches_into_a_store(tests, ENGINE_CIPHER) == []


def test_the_store_internals_check_catches_a_reach(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "m.py").write_text(
        "fr.DirectSource(conn, self.store.cipher)\nwith db.engine.begin(): store.ctx.read()\n"
        "session.cipher()\n"
    )
    assert len(_reaches_into_a_store([tmp_path / "x" / "m.py"], STORE_INTERNALS)) == 3
