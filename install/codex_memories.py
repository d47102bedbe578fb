"""Codex's own memories behind review, in config.toml: when `[features] memories` is on, Codex
writes memories from idle threads by itself and injects them into new sessions, unreviewed.
Setup adds a marked `[memories] use_memories = false` (injection off; generation goes on, and
the daemon queues what Codex writes for review); uninstall takes out exactly that. With the
feature off, nothing."""

from __future__ import annotations

from pathlib import Path

import tomlkit
from tomlkit.items import Item, Table, Trivia

OFF_MARK = "# memvet: Codex's memories go through memvet's review (uninstall removes this)"
FLIP_MARK = "# memvet set this to false (was true)"


def line_trivia(table: Table, key: str) -> Trivia:
    """The comment and spacing on the line of `key`, a switch (true/false) in `table`: a value
    is an Item; only a table whose parts lie apart in the file is a proxy, with no trivia."""
    item = table.item(key)
    assert isinstance(item, Item), key
    return item.trivia


def memories_on(doc: tomlkit.TOMLDocument) -> bool:
    features = doc.get("features")
    return isinstance(features, dict) and features.get("memories") is True


def gate(doc: tomlkit.TOMLDocument, path: Path) -> list[str]:
    if not memories_on(doc):
        return []
    table = doc.get("memories")
    if table is None:
        table = tomlkit.table()
        doc["memories"] = table
    if not isinstance(table, Table):
        return [
            f"{path}: [memories] is not a plain table; memvet left it (Codex injects its "
            "unreviewed memories)."
        ]
    current = table.get("use_memories")
    if current is False:
        return []
    table["use_memories"] = False
    trivia = line_trivia(table, "use_memories")
    if current is True:
        original = trivia.comment
        trivia.comment = FLIP_MARK + (" " + original if original else "")
    else:
        trivia.comment = OFF_MARK
    trivia.comment_ws = trivia.comment_ws or "  "
    return [
        f"{path}: Codex memories are on; memvet set [memories] use_memories = false so only "
        "reviewed memories reach Codex (its memory files are queued for review)."
    ]


def ungate(doc: tomlkit.TOMLDocument) -> list[str]:
    table = doc.get("memories")
    if not isinstance(table, Table) or "use_memories" not in table:
        return []
    trivia = line_trivia(table, "use_memories")
    if trivia.comment.startswith(FLIP_MARK):
        original = trivia.comment[len(FLIP_MARK) :].lstrip(" ")
        table["use_memories"] = True
        restored = line_trivia(table, "use_memories")
        restored.comment = original
        if not original:
            restored.comment_ws = ""
    elif trivia.comment.startswith(OFF_MARK):
        del table["use_memories"]
        if not table:
            del doc["memories"]
    else:
        return []
    return ["[memories] use_memories is as it was before memvet setup."]
