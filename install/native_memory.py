"""Claude Code's own auto memory, behind memvet's review (`--native-memory gate`, the default).

Claude Code writes `MEMORY.md` and topic files into `projects/<slug>/memory/` under its folder
(or `autoMemoryDirectory`) with its ordinary Write/Edit tools — the main agent and a background
extraction agent alike — and nobody is asked. memvet's PreToolUse hook
(`memvet hook claude-code pre-tool-use`) turns each such write into a pending `model_inference`
candidate (one per memory entry; source "Claude Code auto memory"; evidence: the file, session
and agent id) and denies the write, so the folder stays empty and the memory comes back only
once approved, at session start. The `MEMORY.md` index is denied without a candidate; a shell
command that plainly writes text into a file there (a here-document, `echo`/`printf` of a
quoted string) is taken like a Write of that text; other shell commands that write into the
folder are denied. It fails closed: when memvet cannot take the
write, the write is denied all the same.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

from memvet.store.hosts import CLAUDE_CODE
from memvet.store.vocabulary import Kind, SourceType

SOURCE = "Claude Code auto memory"
DENY_REASON = "queued in memvet for review; approved memories return at session start"
INDEX = "MEMORY.md"
WRITE_TOOLS = ("Write", "Edit", "MultiEdit")
# A shell command that names the folder and one of these writes into it (fail closed: a read
# that happens to match is denied too, with the reason).
_SHELL_WRITES = re.compile(
    r">|\btee\b|\bmv\b|\bcp\b|\brm\b|\btouch\b|\bmkdir\b|\bsed\s+-i|\bdd\b"
    r"|\binstall\b|\bln\b|\btruncate\b|python|perl|node"
)
_FRONT_MATTER = re.compile(r"\A---\s*\n(?P<head>.*?)\n---\s*\n?", re.S)
# Claude Code's memory types -> memvet kinds.
KIND_OF_TYPE = {
    "user": Kind.PREFERENCE,
    "feedback": Kind.PREFERENCE,
    "project": Kind.FACT,
    "reference": Kind.FACT,
}
MAX_STATEMENT = 1000


def claude_dir() -> str:
    value = os.environ.get("CLAUDE_CONFIG_DIR")
    return os.path.realpath(os.path.expanduser(value or "~/.claude"))


def custom_memory_dir() -> str | None:
    """`autoMemoryDirectory` from the user settings, when set."""
    try:
        with open(os.path.join(claude_dir(), "settings.json"), encoding="utf-8") as handle:
            value = json.load(handle).get("autoMemoryDirectory")
    except (OSError, ValueError, AttributeError):
        return None
    return os.path.realpath(os.path.expanduser(value)) if isinstance(value, str) and value else None


def in_memory_folder(path: str, cwd: str = "") -> bool:
    real = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
    projects = os.path.join(claude_dir(), "projects") + os.sep
    if real.startswith(projects):
        parts = real[len(projects) :].split(os.sep)
        if len(parts) >= 3 and parts[1] == "memory":
            return True
    custom = custom_memory_dir()
    return bool(custom) and (real == custom or real.startswith(custom + os.sep))


def shell_writes_memory(command: str) -> bool:
    custom = custom_memory_dir()
    folders = [os.path.join(claude_dir(), "projects"), custom or ""]
    named = any(folder and folder in command for folder in folders) and "/memory" in command
    return (named or bool(custom and custom in command)) and bool(_SHELL_WRITES.search(command))


# What a shell command writes where, when it says so plainly: a here-document into a file
# (`cat > F <<'EOF'`, `cat <<EOF > F`, `tee F <<EOF`) or `echo`/`printf` of one quoted string.
_HEREDOC_HEAD = re.compile(
    r"""\A\s*(?:cat\s*>>?\s*(?P<a>\S+)\s*<<-?\s*['"]?(?P<tag>\w+)['"]?"""
    r"""|cat\s*<<-?\s*['"]?(?P<tag2>\w+)['"]?\s*>>?\s*(?P<b>\S+)"""
    r"""|tee\s+(?:-a\s+)?(?P<c>\S+)\s*(?:>\s*/dev/null\s*)?<<-?\s*['"]?(?P<tag3>\w+)['"]?"""
    r"""(?:\s*>\s*/dev/null)?)\s*\Z"""
)
_ECHO = re.compile(
    r"""\A\s*(?P<cmd>echo(?:\s+-[neE]+)?|printf)\s+(?P<q>['"])(?P<body>(?:(?!(?P=q)).)*)"""
    r"""(?P=q)\s*>>?\s*(?P<a>\S+)\s*\Z""",
    re.S,
)


def shell_write(command: str) -> tuple[str, str] | None:
    """(file, content) of a shell command that writes readable text into one file and does
    nothing else; None for a cp, mv, script or anything whose content the gate cannot read."""
    match = _ECHO.match(command)
    if match:
        body = match.group("body")
        if match.group("cmd") == "printf" or "-e" in match.group("cmd"):
            body = body.replace("\\n", "\n")
        return match.group("a").strip("'\""), body
    head, _, rest = command.partition("\n")
    match = _HEREDOC_HEAD.match(head)
    if not match:
        return None
    tag = match.group("tag") or match.group("tag2") or match.group("tag3")
    lines = rest.split("\n")
    ends = [n for n, line in enumerate(lines) if line.strip() == tag]
    if not ends or any(line.strip() for line in lines[ends[0] + 1 :]):
        return None  # an unterminated document, or more commands after it
    target = match.group("a") or match.group("b") or match.group("c")
    return target.strip("'\""), "\n".join(lines[: ends[0]])


def entries(tool: str, tool_input: dict[str, Any]) -> Iterator[str]:
    """The memory text a write carries: the file for Write, each replacement for Edit/MultiEdit."""
    if tool == "Write":
        yield str(tool_input.get("content") or "")
    elif tool == "Edit":
        yield str(tool_input.get("new_string") or "")
    elif tool == "MultiEdit":
        for edit in tool_input.get("edits") or []:
            if isinstance(edit, dict):
                yield str(edit.get("new_string") or "")


def parse_entry(text: str) -> tuple[str, str] | None:
    """(statement, kind) of one memory entry: front matter gives the type (and a description
    when the body is empty); None when nothing is left to review."""
    kind, description = Kind.FACT, ""
    match = _FRONT_MATTER.match(text)
    if match:
        for line in match.group("head").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "type":
                kind = KIND_OF_TYPE.get(value.strip().lower(), Kind.FACT)
            elif key.strip() == "description":
                description = value.strip()
        text = text[match.end() :]
    body = " ".join(
        line.strip().lstrip("-*# ").strip() for line in text.splitlines() if line.strip()
    )
    statement = (body or description).strip()[:MAX_STATEMENT]
    return (statement, kind) if statement else None


def deny(reason: str = DENY_REASON) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def queue(
    statements: list[tuple[str, str]],
    payload: dict[str, Any],
    path: str,
    actor: str = "claude-code auto memory",
) -> list[str]:
    """Admit each entry as a pending model_inference candidate; the ids (or outcomes)."""
    from datetime import UTC, datetime

    from memvet.store import CandidateDraft, Evidence, Scope, open_store
    from memvet.store.workspace import resolve_workspace

    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    agent = payload.get("agent_id") if isinstance(payload.get("agent_id"), str) else None
    store = open_store()
    try:
        scope = Scope(
            user=store.user,
            workspace=resolve_workspace(cwd) if cwd else None,
            agent=CLAUDE_CODE,
            session=session,
        )
        drafts = [
            CandidateDraft(
                statement=statement,
                kind=kind,
                source_type=SourceType.MODEL_INFERENCE,
                scope=scope,
                host=CLAUDE_CODE,
                confidence=0.5,
                reasons=(f"source: {SOURCE}", f"agent: {agent or 'main'}"),
                evidence=Evidence(
                    path=path,
                    line=0,
                    message_id=payload.get("tool_use_id"),
                    timestamp=datetime.now(UTC),
                    excerpt=statement[:300],
                    session=session,
                ),
            )
            for statement, kind in statements
        ]
        results = store.admit_many(drafts, actor=actor)
    finally:
        store.close()
    return [r.candidate_id or r.outcome for r in results]


def pre_tool_use(raw: bytes) -> str | None:
    """The hook's stdout: a deny for a write into the memory folder, else nothing (allowed)."""
    try:
        payload = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    tool, tool_input = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    cwd = payload.get("cwd")
    cwd = cwd if isinstance(cwd, str) else ""
    if tool == "Bash":
        command = tool_input.get("command")
        if not (isinstance(command, str) and shell_writes_memory(command)):
            return None
        written = shell_write(command)
        if written is None or not in_memory_folder(written[0], cwd):
            return json.dumps(
                deny(
                    "shell writes into Claude Code's memory folder are off: memvet "
                    "reviews memories first (use the Write tool)"
                )
            )
        # A plain write whose text the gate can read: the same as a Write of that file.
        tool, path = "Write", written[0]
        tool_input = {"file_path": path, "content": written[1]}
    else:
        path = tool_input.get("file_path")
        if tool not in WRITE_TOOLS or not isinstance(path, str) or not in_memory_folder(path, cwd):
            return None
    if os.path.basename(path) == INDEX:
        return json.dumps(deny("the memory index is kept by memvet; " + DENY_REASON))
    try:
        found = [entry for text in entries(tool, tool_input) if (entry := parse_entry(text))]
        if found:
            queue(found, payload, os.path.realpath(os.path.join(cwd, path)))
    except Exception:  # noqa: BLE001 - fail closed: no memory goes unreviewed
        return json.dumps(
            deny(
                "memvet could not queue this memory for review, so it was not "
                "written; see `memvet doctor`"
            )
        )
    return json.dumps(deny())
