"""Packaging lists every subpackage; the console script and command entry points resolve."""

from __future__ import annotations

import tomllib
from importlib.metadata import distribution, entry_points
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "store": "memvet.store",
    "daemon": "memvet.daemon",
    "inspector": "memvet.inspector",
    "install": "memvet.install",
    "assets": "memvet.assets",
}
NAMESPACE = "memvet"  # its own folder holds only __main__.py (`python -m memvet`), no __init__


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_folder_is_listed():
    listed = set(_config()["tool"]["setuptools"]["packages"])
    found = {NAMESPACE}
    for folder, name in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    assert found == listed


def test_package_dirs_map_the_design_card_folders():
    mapping = _config()["tool"]["setuptools"]["package-dir"]
    assert mapping == {NAMESPACE: "install/namespace"} | {
        name: folder for folder, name in FOLDERS.items()
    }
    assert not (ROOT / "install" / "namespace" / "__init__.py").exists()


def test_console_script_and_command_entry_points_resolve():
    scripts = {
        ep.name: ep for ep in distribution("memvet").entry_points if ep.group == "console_scripts"
    }
    assert scripts["memvet"].value == "memvet.install.launcher:main"
    assert callable(scripts["memvet"].load())
    names = {ep.name for ep in entry_points(group="memvet.commands")}
    assert names == {"store", "daemon", "inspector", "install"}
    for ep in entry_points(group="memvet.commands"):
        assert callable(ep.load())
