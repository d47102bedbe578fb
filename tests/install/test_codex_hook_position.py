"""Codex keys its hook trust by position (event, group index, handler index): a memvet hook
that moved would be untrusted again and silently skipped. So setup never moves memvet's
entries: a re-run (memvet moved, a group of the user's before and after it) updates them in
place, at the position Codex trusted."""

from __future__ import annotations

import json

from memvet.install.codex_trust import hook_key


def memvet_positions(doc: dict) -> dict[str, tuple[int, int]]:
    found = {}
    for event, groups in doc["hooks"].items():
        for g, group in enumerate(groups):
            for h, handler in enumerate(group["hooks"]):
                if " hook codex " in handler["command"]:
                    found[event] = (g, h)
    return found


def test_a_rerun_keeps_memvet_hooks_where_codex_trusted_them(memvet, codex_dir):
    hooks = codex_dir / "hooks.json"
    mine = {"hooks": [{"type": "command", "command": "/usr/local/bin/audit-prompt"}]}
    hooks.write_text(json.dumps({"hooks": {"SessionStart": [mine]}}))
    memvet("setup", "codex")
    doc = json.loads(hooks.read_text())
    trusted = memvet_positions(doc)
    assert trusted == {"SessionStart": (1, 0), "UserPromptSubmit": (0, 0)}
    for event in ("SessionStart", "UserPromptSubmit"):  # memvet moved since: an old command
        for group in doc["hooks"][event]:
            for handler in group["hooks"]:
                program, memvets, rest = handler["command"].partition(" hook codex ")
                if memvets:
                    handler["command"] = f"/old/venv/bin/memvet{memvets}{rest}"
    doc["hooks"]["UserPromptSubmit"].insert(0, mine)  # the user's, before memvet's, since trust
    doc["hooks"]["SessionStart"].append(mine)
    hooks.write_text(json.dumps(doc))
    moved_user = memvet_positions(doc)
    memvet("setup", "codex")
    after = json.loads(hooks.read_text())
    assert memvet_positions(after) == moved_user  # updated in place, not re-appended
    assert "/old/venv/bin/memvet" not in hooks.read_text()
    assert hook_key(str(hooks), "SessionStart", 1, 0).endswith(":session_start:1:0")
