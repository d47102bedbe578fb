"""memvet's part of Codex's `config.toml`: the `[mcp_servers.memvet]` table, and `[features]`
switches that would keep hooks off (host-formats.md §4.1, §4.3).

tomlkit keeps the user's comments and layout, but it moves blank lines around when a table is
added or removed. So the table is appended (and later cut out) as text, and each result is
checked against what tomllib reads; if the check fails, tomlkit's own edit is used instead.
"""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import tomlkit
from memvet.install import codex_memories
from memvet.install.memvet_entries import looks_like_memvet_command
from memvet.install.setup_common import ConfigFileError
from tomlkit.exceptions import ParseError
from tomlkit.items import Table

# `[features] hooks` is the current key, `codex_hooks` its deprecated alias (both off = no hooks).
FEATURE_KEYS = ("hooks", "codex_hooks")
# Written beside a switch memvet turned on, so uninstall can turn it off again.
FLIP_MARK = "# memvet setup turned this on (was false)"
TABLE_NOTE = "# Added by `memvet setup codex`; `memvet setup codex --uninstall` removes it."
_HEADER = re.compile(
    r"^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*(?:memvet|\"memvet\"|'memvet')[ \t]*\][^\n]*\n?",
    re.MULTILINE,
)
_ANY_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)
_OWN_SUBTABLE = re.compile(r"[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*\"?memvet\"?[ \t]*\.")


def parse(text: str, path: Path) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except ParseError as exc:
        raise ConfigFileError(
            f"{path}:{exc.line}:{exc.col}: not valid TOML ({_reason(exc)}); left alone",
            path=str(path),
            line=exc.line,
            column=exc.col,
        ) from exc


def add(text: str, path: Path, entry: dict[str, Any]) -> tuple[str, list[str]]:
    doc = parse(text, path)
    notes = _enable_hooks(doc, path) + codex_memories.gate(doc, path)
    servers = doc.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise ConfigFileError(f"{path}: mcp_servers is not a table; left alone", path=str(path))
    current = servers.get("memvet") if servers is not None else None
    if current is not None:
        if not looks_like_memvet_command(current.get("command"), current.get("args")):
            notes.append(f'{path}: replaced an MCP server named "memvet" that did not run memvet.')
        _update_in_place(current, entry)
        return tomlkit.dumps(doc), notes
    base = tomlkit.dumps(doc)
    expected = tomllib.loads(base)
    expected.setdefault("mcp_servers", {})["memvet"] = entry
    appended = base + ("" if not base else "\n" if base.endswith("\n") else "\n\n") + _block(entry)
    if _reads_as(appended, expected):
        return appended, notes
    # e.g. mcp_servers written as an inline table: a [header] cannot extend it
    if servers is None:
        doc["mcp_servers"] = tomlkit.table(is_super_table=True)
    doc["mcp_servers"]["memvet"] = entry
    return tomlkit.dumps(doc), notes


def remove(text: str, path: Path) -> tuple[str, list[str]]:
    doc = parse(text, path)
    notes = _restore_features(doc) + codex_memories.ungate(doc)
    servers = doc.get("mcp_servers")
    current = servers.get("memvet") if isinstance(servers, dict) else None
    if current is None:
        return tomlkit.dumps(doc), notes
    if not looks_like_memvet_command(current.get("command"), current.get("args")):
        notes.append(f'{path}: the MCP server "memvet" does not run memvet; left alone.')
        return tomlkit.dumps(doc), notes
    base = tomlkit.dumps(doc)
    expected = tomllib.loads(base)
    del expected["mcp_servers"]["memvet"]
    cut = _cut_block(base)
    if cut is not None and _reads_as(cut, expected):
        return cut, notes
    del doc["mcp_servers"]["memvet"]
    if not doc["mcp_servers"]:
        del doc["mcp_servers"]
    return tomlkit.dumps(doc), notes


def _enable_hooks(doc: tomlkit.TOMLDocument, path: Path) -> list[str]:
    features = doc.get("features")
    if not isinstance(features, dict):
        return []  # hooks are on by default in current Codex
    notes = []
    for key in FEATURE_KEYS:
        if features.get(key) is not False:
            continue
        features[key] = True
        if isinstance(features, Table):
            trivia = codex_memories.line_trivia(features, key)
            original = trivia.comment
            trivia.comment = FLIP_MARK + (" " + original if original else "")
            trivia.comment_ws = trivia.comment_ws or "  "
            notes.append(
                f"{path}: [features] {key} was false, which keeps every hook off; "
                "memvet set it to true (uninstall sets it back)."
            )
        else:
            notes.append(
                f"{path}: features.{key} was false; memvet set it to true "
                "(uninstall cannot mark and restore this inline form)."
            )
    return notes


def _restore_features(doc: tomlkit.TOMLDocument) -> list[str]:
    features = doc.get("features")
    if not isinstance(features, Table):
        return []
    notes = []
    for key in FEATURE_KEYS:
        if key not in features or not codex_memories.line_trivia(features, key).comment.startswith(
            FLIP_MARK
        ):
            continue
        original = codex_memories.line_trivia(features, key).comment[len(FLIP_MARK) :].lstrip(" ")
        features[key] = False
        trivia = codex_memories.line_trivia(features, key)
        trivia.comment = original
        if not original:
            trivia.comment_ws = ""
        notes.append(f"[features] {key} is false again, as it was before memvet setup.")
    return notes


def _update_in_place(table: Any, entry: dict[str, Any]) -> None:
    for key in ("command", "args"):
        if table.get(key) != entry[key]:
            table[key] = entry[key]
    if "startup_timeout_sec" in entry and "startup_timeout_sec" not in table:
        table["startup_timeout_sec"] = entry["startup_timeout_sec"]  # a value of the user's stays
    if "env" in entry:
        if table.get("env") != entry["env"]:
            env = tomlkit.inline_table()
            env.update(entry["env"])
            table["env"] = env
    elif set(table.get("env", {})) == {"MEMVET_HOME"}:
        del table["env"]  # memvet pinned it earlier; MEMVET_HOME is no longer set


def _block(entry: dict[str, Any]) -> str:
    lines = ["[mcp_servers.memvet]", TABLE_NOTE]
    for key in ("command", "args", "startup_timeout_sec"):
        if key in entry:
            lines.append(f"{key} = {tomlkit.item(entry[key]).as_string()}")
    if "env" in entry:
        env = tomlkit.inline_table()
        env.update(entry["env"])
        lines.append(f"env = {env.as_string()}")
    return "\n".join(lines) + "\n"


def _cut_block(text: str) -> str | None:
    """The text without memvet's table: its header up to the next other table's header."""
    headers = list(_HEADER.finditer(text))
    if len(headers) != 1:
        return None
    start, end = headers[0].start(), len(text)
    for match in _ANY_HEADER.finditer(text, headers[0].end()):
        if not _OWN_SUBTABLE.match(text, match.start()):
            end = match.start()
            break
    before = text[:start]
    if end == len(text) and before.endswith("\n\n"):
        before = before[:-1]  # the blank line `add` put in front of the table
    return before + text[end:]


def _reads_as(text: str, expected: dict[str, Any]) -> bool:
    try:
        return _drop_empty_servers(tomllib.loads(text)) == _drop_empty_servers(expected)
    except tomllib.TOMLDecodeError:
        return False


def _drop_empty_servers(data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    if data.get("mcp_servers") == {}:
        del data["mcp_servers"]
    return data


def _reason(exc: ParseError) -> str:
    return str(exc).split(" at line ")[0]
