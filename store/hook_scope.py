"""Which workspace a hook call may serve. Standard library only, like hook_reply.py.

The host runs the hook in the session's project (its process cwd) and says in the payload which
`cwd` the session is in. The payload is input like any other: its `cwd` is resolved with
realpath (symlinks followed) and must lie inside the workspace of the hook's own cwd; and when
the session's transcript (`transcript_path`) already records a cwd, the two must be the same
workspace. Anything else gets nothing: a prompt-injected payload cannot pull another project's
memories into this session.
"""

from __future__ import annotations

import os

from memvet.store import hook_json
from memvet.store.fast_keys import FastReadError
from memvet.store.workspace import resolve_workspace

HEAD_BYTES = 1 << 20  # how much of a transcript is read to find its recorded cwd
HEAD_LINES = 200


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def recorded_cwd(transcript: object) -> str | None:
    """The first cwd a Claude Code (top-level `cwd`) or Codex (`session_meta` payload) transcript
    records, or None (no transcript yet, unreadable, none recorded in its head)."""
    if not isinstance(transcript, str) or not transcript:
        return None
    try:
        with open(transcript, "rb") as handle:
            for _ in range(HEAD_LINES):
                line = handle.readline(HEAD_BYTES)
                if not line or handle.tell() > HEAD_BYTES:
                    return None
                if b'"cwd"' not in line:
                    continue
                try:
                    doc = hook_json.loads(line)
                except ValueError:
                    continue
                if not isinstance(doc, dict):
                    continue
                inner = doc.get("payload")
                cwd = doc.get("cwd") or (inner.get("cwd") if isinstance(inner, dict) else None)
                if isinstance(cwd, str) and cwd:
                    return cwd
    except OSError:
        return None
    return None


def session_workspace(payload: dict, process_cwd: str) -> str:
    """The workspace to serve, or FastReadError("outside_project")."""
    cwd = payload.get("cwd")
    asked = os.path.join(process_cwd, cwd) if isinstance(cwd, str) and cwd else process_cwd
    real = os.path.realpath(asked)
    project = os.path.realpath(resolve_workspace.__wrapped__(os.path.realpath(process_cwd)))
    if not _inside(real, project):
        raise FastReadError("outside_project")
    # Served as written (memories carry the workspace as the host names it), compared resolved.
    workspace = resolve_workspace.__wrapped__(asked)
    recorded = recorded_cwd(payload.get("transcript_path"))
    if recorded is not None and os.path.realpath(
        resolve_workspace.__wrapped__(recorded)
    ) != os.path.realpath(workspace):
        raise FastReadError("cwd_not_the_sessions")
    return workspace
