"""The wheel a user installs holds what memvet reads at run time: the data under assets (demo
transcripts, secret rules, rule and filter tables), the inspector's stylesheets, the
`python -m memvet` entry and the PEP 561 markers. Built from a copy of the sources, so the
checkout gains no build/ folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD_BUDGET_S = 30

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory) -> Path:
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheel")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copy(ROOT / config["project"]["readme"], src)
    tops = {
        Path(folder).parts[0] for folder in config["tool"]["setuptools"]["package-dir"].values()
    }
    for top in tops:
        shutil.copytree(ROOT / top, src / top)  # bytecode too: the build must leave it out
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "-w",
            str(out),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-2000:]
    assert took < BUILD_BUDGET_S, f"building the wheel took {took:.1f} s"
    (wheel,) = out.glob("memvet-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel_names(built_wheel) -> list[str]:
    with zipfile.ZipFile(built_wheel) as archive:
        return archive.namelist()


def _sources(folder: str, pattern: str) -> set[str]:
    return {
        p.relative_to(ROOT / folder).as_posix()
        for p in (ROOT / folder).rglob(pattern)
        if "__pycache__" not in p.parts
    }


def test_every_asset_file_ships(wheel_names):
    shipped = {
        n.removeprefix("memvet/assets/") for n in wheel_names if n.startswith("memvet/assets/")
    }
    expected = _sources("assets", "*")
    expected = {name for name in expected if (ROOT / "assets" / name).is_file()}
    assert expected - shipped == set()
    assert any(name.startswith("demo/") for name in shipped)
    assert any(name.startswith("secret_rules/") for name in shipped)
    assert not [name for name in shipped if "__pycache__" in name]


def test_stylesheets_main_entry_and_type_markers_ship(wheel_names):
    tcss = {f"memvet/inspector/{name}" for name in _sources("inspector", "*.tcss")}
    assert tcss and tcss <= set(wheel_names)
    assert "memvet/__main__.py" in wheel_names
    assert "memvet/__init__.py" not in wheel_names  # the namespace stays PEP 420
    for part in ("store", "daemon", "inspector", "install"):
        assert f"memvet/{part}/py.typed" in wheel_names


def test_wheel_metadata_declares_typed_and_bounds(built_wheel, wheel_names):
    (meta,) = [n for n in wheel_names if n.endswith(".dist-info/METADATA")]
    with zipfile.ZipFile(built_wheel) as archive:
        lines = archive.read(meta).decode().splitlines()
    assert "Classifier: Typing :: Typed" in lines
    requires = {
        line.removeprefix("Requires-Dist: ").replace(" ", "")
        for line in lines
        if line.startswith("Requires-Dist: ")
    }
    assert {"mcp<3,>=2", "watchdog<8,>=7.1"} <= requires
    assert any(r.startswith("sqlmodel") and "<" in r for r in requires)
    assert any(r.startswith("pytest") and 'extra=="test"' in r for r in requires)
    assert any(r.startswith("ruff") and 'extra=="lint"' in r for r in requires)
    assert not any(r.startswith("ruff") and 'extra=="test"' in r for r in requires)
