"""The runtime stands on public APIs only (issue 11): no third-party module whose path has a
private segment (`cryptography.hazmat.bindings._rust`), and none of the standard library's regex
internals (`re._parser`, `sre_parse`), whose shape changes between Python versions. Tests and
tools may use them (tests/daemon/test_declared_words.py proves rule words with `re._parser`).
The standard library's C halves (`_socket`, `_thread`, `_signal`) are how the hook stays
import-light; they are allowed."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ("store", "daemon", "install", "inspector")
REGEX_INTERNALS = frozenset({"sre_parse", "sre_compile", "sre_constants"})


def private_uses(source: str, filename: str = "<source>") -> list[str]:
    """Each import or `re._x` attribute in `source` that reaches a private API, as `line: name`."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "re"
            and node.attr.startswith("_")
        ):
            names = [f"re.{node.attr}"]
        private = [name for name in names if _is_private(name)]
        if private:  # one finding a statement: `from a._b import c` names `a._b` once
            found.append(f"{getattr(node, 'lineno', 0)}: {private[0]}")
    return found


def _is_private(name: str) -> bool:
    top, *rest = name.split(".")
    if top in ("memvet", "__future__"):
        return False
    private = any(part.startswith("_") for part in rest)
    if top in REGEX_INTERNALS or (top == "re" and private):
        return True
    return top not in sys.stdlib_module_names and (top.startswith("_") or private)


def test_the_runtime_uses_no_private_api():
    offending = {
        str(path.relative_to(ROOT)): uses
        for package in RUNTIME
        for path in sorted((ROOT / package).rglob("*.py"))
        if (uses := private_uses(path.read_text(encoding="utf-8"), str(path)))
    }
    assert offending == {}


def test_the_check_catches_each_kind_of_private_use():
    source = (
        "import re._parser\n"
        "import sre_parse\n"
        "from cryptography.hazmat.bindings._rust import openssl\n"
        "from cryptography.hazmat.bindings import _rust\n"
        "import re\n"
        "tree = re._parser.parse('a')\n"
        "import _socket, json\n"  # the standard library's C half: allowed
        "from memvet.store import _lazy\n"  # our own: allowed
    )
    assert [use.split(": ")[1] for use in private_uses(source)] == [
        "re._parser",
        "sre_parse",
        "cryptography.hazmat.bindings._rust",
        "cryptography.hazmat.bindings._rust",
        "re._parser",
    ]
