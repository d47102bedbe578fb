"""Statuses, kinds, source types, retire reasons and polarities are named by their StrEnum members
(store/vocabulary.py), never spelled as bare strings where code compares, filters or passes them:
a typo in a bare string is a silent no-match, a typo in a member name an AttributeError."""

from __future__ import annotations

import ast
from pathlib import Path

from memvet.store.vocabulary import (
    CandidateStatus,
    Kind,
    MemoryStatus,
    Polarity,
    RetireReason,
    SourceType,
)

ROOT = Path(__file__).resolve().parents[1]
COMPONENTS = ("store", "daemon", "inspector", "install")
VALUES = {
    m.value
    for enum in (CandidateStatus, MemoryStatus, Kind, SourceType, RetireReason, Polarity)
    for m in enum
}
PAYLOAD_KEYS = {"status", "kind", "source_type", "reason", "retired_reason"}

# (file, the flagged source text) -> why the bare string there is not a vocabulary value.
ALLOWED = {
    ("inspector/jobs.py", 'action in ("false_write", "forget")'): "inspector action names",
    ("inspector/jobs.py", 'action == "false_write"'): "an inspector action name",
    ("inspector/jobs.py", 'action == "forget"'): "an inspector action name",
    ("store/cli_handlers.py", 'args.action == "forget"'): "a `memories change` action name",
    ("store/team/sync.py", 'op == "false_write"'): "a team outbox operation",
    ("store/team/sync.py", 'link.state != "retired"'): "a team link state",
    ("store/team/sync.py", 'link.state in ("applied", "retired", "pushed")'): "team link states",
    ("inspector/screens/recovery.py", 'state == "stale"'): "a display state, 'stale' or 'held'",
    ("install/native_memory_setup.py", 'actor="import"'): "an audit actor",
    ("store/admission.py", '"import"'): "the default audit actor",
    ("store/bulk.py", '"import"'): "the default audit note",
    ("store/team/members.py", 'status="pending"'): "a team member's status",
    ("store/team/members.py", '"pending"'): "a team member's status",
    ("store/team/members.py", 'status != "pending"'): "a team member's status",
    ("store/team/errors.py", 'status == "pending"'): "a team member's status",
    ("store/team/tombstones.py", '"rejected"'): "a caller's free-text note ('stale lease')",
}


def _is_value(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in VALUES


def _holds_value(node: ast.AST) -> bool:
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_value(e) for e in node.elts)
    return _is_value(node)


def _flagged(tree: ast.AST) -> list[ast.AST]:
    """Comparisons, keyword arguments, parameter defaults and payload entries that use a bare
    value, then literal tuples made only of values (a hand-written list of statuses)."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(_holds_value(o) for o in (node.left, *node.comparators)):
                found.append(node)
        elif isinstance(node, ast.keyword):
            if _holds_value(node.value):
                found.append(node)
        elif isinstance(node, ast.arguments):
            defaults = [*node.defaults, *(d for d in node.kw_defaults if d is not None)]
            found += [d for d in defaults if _holds_value(d)]
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in PAYLOAD_KEYS:
                    if _holds_value(value):
                        found.append(value)
    covered = {id(sub) for node in found for sub in ast.walk(node)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and id(node) not in covered:
            if node.elts and all(_is_value(e) for e in node.elts):
                found.append(node)
    return found


def _bare_literals(root: Path, components: tuple[str, ...]) -> list[str]:
    problems = []
    for component in components:
        for path in sorted((root / component).rglob("*.py")):
            if path.name in ("vocabulary.py", "vocabulary_values.py"):
                continue  # where the values are defined
            rel = path.relative_to(root).as_posix()
            source = path.read_text()
            flagged = _flagged(ast.parse(source, filename=rel))
            for node in sorted(flagged, key=lambda n: (n.lineno, n.col_offset)):
                text = ast.get_source_segment(source, node) or ""
                if (rel, text) not in ALLOWED:
                    problems.append(f"{rel}:{node.lineno}: {text}")
    return problems


def test_no_bare_vocabulary_literal_in_the_source():
    assert _bare_literals(ROOT, COMPONENTS) == []


def test_every_allowed_exception_still_exists():
    """An exception whose line has gone must leave the list, or it would excuse a new one."""
    present = set()
    for rel, _ in ALLOWED:
        source = (ROOT / rel).read_text()
        for node in _flagged(ast.parse(source)):
            present.add((rel, ast.get_source_segment(source, node)))
    assert set(ALLOWED) - present == set()


def test_the_checker_catches_each_shape(tmp_path):
    fake = tmp_path / "store"
    fake.mkdir()
    (fake / "bad.py").write_text(
        "from memvet.store.vocabulary import CandidateStatus\n"
        "ok = m.status == CandidateStatus.PENDING\n"
        'a = m.status == "disputed"\n'
        'b = m.kind in ("fact", CandidateStatus.PENDING)\n'
        'c = store.search(statuses=("active",))\n'
        'def d(reason="false_write"): ...\n'
        'e = {"status": "committed", "id": 1}\n'
        'F = ("pending", "stale")\n'
        'g = {"sent": 0, "stale": 0}\n'  # a count keyed by a status is a label, not a use
    )
    found = _bare_literals(tmp_path, ("store",))
    assert [p.split(":")[1] for p in found] == ["3", "4", "5", "6", "7", "8"]
