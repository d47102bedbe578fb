"""Render gold-case sessions as real-shaped host transcripts (stdlib only).

Each session of a case becomes one file in the layout and line format the host itself writes
(see shared/research/host-formats.md §1 and §3):

* Claude Code: ``<claude>/projects/<slug(cwd)>/<session_id>.jsonl`` — progress/hook lines,
  ``file-history-snapshot`` lines, one ``user`` line per prompt, one ``assistant`` line per
  content block (thinking, tool_use, text) grouped by ``message.id``, ``tool_result`` user
  lines with ``toolUseResult``, ``system/turn_duration``, ``summary`` titles; optional
  ``isMeta`` system-reminder injections, ``compact_boundary`` + ``isCompactSummary`` lines,
  and Task sub-agent files under ``<session_id>/subagents/agent-<id>.jsonl``.
* Codex: ``<codex>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`` —
  ``session_meta``, developer ``<permissions instructions>``, AGENTS.md and
  ``<environment_context>`` injections, ``turn_context``, ``task_started``/``task_complete``,
  ``response_item`` messages, reasoning, ``function_call``/``function_call_output``,
  ``event_msg`` ``user_message``/``agent_message``/``token_count``, and ``compacted`` +
  ``context_compacted``. Three eras: ``legacy`` (0.125, default), ``2025`` (0.77, ``shell``
  tool, ``instructions`` string) and ``paginated`` (0.153, ``item_completed`` events, ``ordinal``).

Every human prompt appears exactly once as a typed prompt; everything else (assistant text,
tool output, injected context, compaction summaries, sub-agent prompts) is host or model
text, which is what the hard negatives of the cases point at.

Usage::

    python render.py --out /tmp/eval-render                 # every case
    python render.py --out /tmp/x --case update_007 --root /tmp/x/fs

``--root`` prefixes every synthetic absolute path (cwd, workspaces, query cwd) and creates the
case's workspace folders with an empty ``.git`` directory, so that "git root of the cwd"
resolves as the case intends. A ``manifest.json`` per case maps every turn reference
(``s0:u1``, ``s1:injected``, ``s0:compact``) to the file, 1-based line numbers and host ids,
which is how a harness matches a produced candidate's evidence to a gold memory id.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATEGORIES = [
    "extraction",
    "cross_session",
    "temporal",
    "update",
    "abstention",
    "forgetting",
    "conflict",
    "cross_agent",
]


# ----------------------------------------------------------------------------- helpers
def _t(s: str) -> dt.datetime:
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def _ms(d: dt.datetime) -> str:
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"


def _h(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


def _uuid(*parts: object) -> str:
    h = _h(*parts)
    return f"{h[0:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def _uuid7(when: dt.datetime, *parts: object) -> str:
    h = _h(*parts)
    p = f"{int(when.timestamp() * 1000):012x}"
    return f"{p[:8]}-{p[8:12]}-7{h[0:3]}-{'89ab'[int(h[3], 16) % 4]}{h[4:7]}-{h[7:19]}"


def _b62(*parts: object, n: int = 24) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    x = int(hashlib.sha512("\x1f".join(map(str, parts)).encode()).hexdigest(), 16)
    out = []
    for _ in range(n):
        x, r = divmod(x, 62)
        out.append(alphabet[r])
    return "".join(out)


def claude_slug(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def load_cases(cases_dir: Path = HERE) -> list[dict]:
    out = []
    for cat in CATEGORIES:
        p = cases_dir / f"{cat}.json"
        if p.exists():
            out.extend(json.loads(p.read_text())["cases"])
    return out


def remap_case(case: dict, root: str | None) -> dict:
    """Return a copy of the case with every synthetic absolute path prefixed by ``root``."""
    if not root:
        return case
    root = root.rstrip("/")

    def m(p):
        return None if p is None else root + p

    c = json.loads(json.dumps(case))
    c["workspace"] = m(c["workspace"])
    if "repos" in c:
        c["repos"] = [m(r) for r in c["repos"]]
    for s in c["sessions"]:
        s["cwd"] = m(s["cwd"])
        s["workspace"] = m(s["workspace"])
    for mem in c["memories"]:
        if mem.get("workspace"):
            mem["workspace"] = m(mem["workspace"])
    c["query"]["cwd"] = m(c["query"]["cwd"])
    return c


def materialize_workspaces(case: dict) -> None:
    """Create the (already remapped) workspace folders and cwd folders, each repo with a .git dir."""
    for r in case.get("repos", [case["workspace"]]):
        Path(r, ".git").mkdir(parents=True, exist_ok=True)
    for s in case["sessions"]:
        Path(s["cwd"]).mkdir(parents=True, exist_ok=True)
    Path(case["query"]["cwd"]).mkdir(parents=True, exist_ok=True)


class _Writer:
    def __init__(self, path: Path, ordinal: bool = False):
        self.path = path
        self.lines: list[str] = []
        self.ordinal = ordinal

    def add(self, obj: dict) -> int:
        if self.ordinal and "ordinal" not in obj:
            obj = {
                "timestamp": obj["timestamp"],
                "ordinal": len(self.lines),
                **{k: v for k, v in obj.items() if k != "timestamp"},
            }
        self.lines.append(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
        return len(self.lines)  # 1-based line number

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")


def _turn_pairs(turns: list[dict]):
    """Group turns as (user_turn | None, [assistant turns that follow])."""
    groups = []
    for t in turns:
        if t["role"] == "user" or not groups:
            groups.append([t if t["role"] == "user" else None, []])
            if t["role"] == "user":
                continue
        groups[-1][1].append(t)
    return groups


def _compact_summary(user_texts: list[str]) -> str:
    lines = [
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.",
        "",
        "Analysis:",
        "The conversation so far covered the user's requests and the changes made.",
        "",
        "Summary:",
        "1. Primary Request and Intent:",
    ]
    for t in user_texts:
        lines.append(f'   - The user said: "{t.strip()[:400]}"')
    lines += [
        "2. Pending Tasks:",
        "   - None.",
        "3. Current Work:",
        "   - Continue from the last request.",
    ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- Claude Code
def render_claude(case: dict, si: int, sess: dict, claude_dir: Path) -> dict:
    cid = case["id"]
    sid = sess["session_id"]
    cwd = sess["cwd"]
    version = sess.get("cc_version", "2.1.38")
    old = version.startswith("2.0.")
    branch = sess.get("git_branch", "main")
    path = claude_dir / "projects" / claude_slug(cwd) / f"{sid}.jsonl"
    w = _Writer(path)
    refs: dict[str, dict] = {}
    parent = None
    env = {
        "isSidechain": False,
        "userType": "external",
        "cwd": cwd,
        "sessionId": sid,
        "version": version,
        "gitBranch": branch,
    }
    start = _t(sess["start"])

    last = [start]

    def line(kind: str, when: dt.datetime, body: dict, key: str) -> tuple[int, str]:
        nonlocal parent
        when = max(when, last[0])  # the host appends in wall-clock order
        last[0] = when
        u = _uuid(cid, si, key)
        obj = {"parentUuid": parent, **env, "type": kind, **body, "uuid": u, "timestamp": _ms(when)}
        n = w.add(obj)
        parent = u
        return n, u

    if not old:
        line(
            "progress",
            start,
            {
                "data": {
                    "type": "hook_progress",
                    "hookEvent": "SessionStart",
                    "hookName": "SessionStart:startup",
                    "command": "$HOME/.claude/hooks/session-start.sh",
                },
                "parentToolUseID": _uuid(cid, si, "ss"),
                "toolUseID": _uuid(cid, si, "ss"),
            },
            "progress-start",
        )
    if sess.get("injected"):
        n, u = line(
            "user",
            start + dt.timedelta(milliseconds=400),
            {
                "message": {
                    "role": "user",
                    "content": "<system-reminder>\n" + sess["injected"] + "\n</system-reminder>",
                },
                "isMeta": True,
            },
            "injected",
        )
        refs["injected"] = {"path": str(path), "line": n, "uuid": u}

    user_texts: list[str] = []
    n_msg = 0
    for ut, ats in _turn_pairs(sess["turns"]):
        if ut is not None:
            when = _t(ut["at"])
            u = _uuid(cid, si, ut["id"])
            w.add(
                {
                    "type": "file-history-snapshot",
                    "messageId": u,
                    "snapshot": {
                        "messageId": u,
                        "trackedFileBackups": {},
                        "timestamp": _ms(when + dt.timedelta(milliseconds=80)),
                    },
                    "isSnapshotUpdate": False,
                }
            )
            body = {"message": {"role": "user", "content": ut["text"]}}
            if old:
                body.update(
                    {
                        "thinkingMetadata": {"level": "none", "disabled": True, "triggers": []},
                        "todos": [],
                    }
                )
            else:
                body.update(
                    {
                        "thinkingMetadata": {"maxThinkingTokens": 31999},
                        "todos": [],
                        "permissionMode": "default",
                    }
                )
            n, u = line("user", when, body, ut["id"])
            refs[ut["id"]] = {"path": str(path), "line": n, "uuid": u}
            user_texts.append(ut["text"])
        for at in ats:
            when = _t(at["at"])
            t0 = when - dt.timedelta(seconds=6)
            first_line = None
            n_msg += 1
            mid = "msg_01" + _b62(cid, si, at["id"], "m1")
            req = "req_011C" + _b62(cid, si, at["id"], "r1", n=20)
            usage = {
                "input_tokens": 3,
                "cache_creation_input_tokens": 812,
                "cache_read_input_tokens": 18230 + 97 * n_msg,
                "output_tokens": 40 + len(at["text"]) // 4,
                "service_tier": "standard",
            }

            def amsg(content, msg_id=mid, request=req, usage=usage):
                return {
                    "message": {
                        "model": "claude-opus-4-6" if not old else "claude-sonnet-4-5-20250929",
                        "id": msg_id,
                        "type": "message",
                        "role": "assistant",
                        "content": content,
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": usage,
                    },
                    "requestId": request,
                }

            if not old:
                n, _ = line(
                    "assistant",
                    t0,
                    amsg(
                        [
                            {
                                "type": "thinking",
                                "thinking": "Let me work out what the user needs here.",
                                "signature": "Es" + _b62(cid, si, at["id"], "sig", n=40),
                            }
                        ]
                    ),
                    at["id"] + ":thinking",
                )
                first_line = n
            tool = at.get("tool")
            if tool:
                tid = "toolu_01" + _b62(cid, si, at["id"], "tool")
                if tool.get("kind") == "agent":
                    agent_id = _h(cid, si, at["id"], "agent")[:7]
                    tu = {
                        "type": "tool_use",
                        "id": tid,
                        "name": "Task",
                        "input": {
                            "description": "Delegated subtask",
                            "prompt": tool["input"],
                            "subagent_type": "general-purpose",
                        },
                    }
                    n, au = line(
                        "assistant",
                        t0 + dt.timedelta(seconds=1),
                        amsg([tu]),
                        at["id"] + ":tool_use",
                    )
                    first_line = first_line or n
                    _render_claude_subagent(
                        case,
                        si,
                        sess,
                        claude_dir,
                        agent_id,
                        tool,
                        t0 + dt.timedelta(seconds=1),
                        env,
                    )
                    result = {
                        "tool_use_id": tid,
                        "type": "tool_result",
                        "content": [{"type": "text", "text": tool["output"]}],
                    }
                    tur = {
                        "status": "completed",
                        "prompt": tool["input"],
                        "agentId": agent_id,
                        "content": [{"type": "text", "text": tool["output"]}],
                    }
                else:
                    tu = {
                        "type": "tool_use",
                        "id": tid,
                        "name": "Bash",
                        "input": {"command": tool["input"], "description": "Run command"},
                    }
                    if not old:
                        tu["caller"] = {"type": "direct"}
                    n, au = line(
                        "assistant",
                        t0 + dt.timedelta(seconds=1),
                        amsg([tu]),
                        at["id"] + ":tool_use",
                    )
                    first_line = first_line or n
                    result = {
                        "tool_use_id": tid,
                        "type": "tool_result",
                        "content": tool["output"],
                        "is_error": False,
                    }
                    tur = {
                        "stdout": tool["output"],
                        "stderr": "",
                        "interrupted": False,
                        "isImage": False,
                    }
                line(
                    "user",
                    t0 + dt.timedelta(seconds=3),
                    {
                        "message": {"role": "user", "content": [result]},
                        "toolUseResult": tur,
                        "sourceToolAssistantUUID": au,
                    },
                    at["id"] + ":tool_result",
                )
                mid2 = "msg_01" + _b62(cid, si, at["id"], "m2")
                req2 = "req_011C" + _b62(cid, si, at["id"], "r2", n=20)
                n, _ = line(
                    "assistant",
                    when,
                    amsg([{"type": "text", "text": at["text"]}], mid2, req2),
                    at["id"] + ":text",
                )
            else:
                n, _ = line(
                    "assistant",
                    when,
                    amsg([{"type": "text", "text": at["text"]}]),
                    at["id"] + ":text",
                )
            refs[at["id"]] = {
                "path": str(path),
                "line": first_line or n,
                "last_line": n,
                "message_id": mid,
            }
            if not old:
                line(
                    "system",
                    when + dt.timedelta(milliseconds=300),
                    {
                        "subtype": "turn_duration",
                        "durationMs": 6000 + 13 * len(at["text"]),
                        "isMeta": False,
                    },
                    at["id"] + ":duration",
                )
            if sess.get("compact_after") == at["id"]:
                cw = when + dt.timedelta(seconds=2)
                logical = parent
                parent = None
                n1, bu = line(
                    "system",
                    cw,
                    {
                        "subtype": "compact_boundary",
                        "content": "Conversation compacted",
                        "isMeta": False,
                        "level": "info",
                        "logicalParentUuid": logical,
                        "compactMetadata": {"trigger": "auto", "preTokens": 168211},
                    },
                    "compact-boundary",
                )
                n2, su = line(
                    "user",
                    cw + dt.timedelta(milliseconds=50),
                    {
                        "message": {"role": "user", "content": _compact_summary(user_texts)},
                        "isCompactSummary": True,
                        "isVisibleInTranscriptOnly": True,
                    },
                    "compact-summary",
                )
                refs["compact"] = {"path": str(path), "line": n2, "uuid": su, "boundary_line": n1}
                if not old:
                    line(
                        "progress",
                        cw + dt.timedelta(milliseconds=90),
                        {
                            "data": {
                                "type": "hook_progress",
                                "hookEvent": "SessionStart",
                                "hookName": "SessionStart:compact",
                                "command": "$HOME/.claude/hooks/session-start.sh",
                            },
                            "parentToolUseID": _uuid(cid, si, "sc"),
                            "toolUseID": _uuid(cid, si, "sc"),
                        },
                        "progress-compact",
                    )
    first_user = next((t["text"] for t in sess["turns"] if t["role"] == "user"), "session")
    w.add(
        {
            "type": "summary",
            "summary": re.sub(r"\s+", " ", first_user)[:60].strip(),
            "leafUuid": parent,
        }
    )
    w.write()
    return {"host": "claude-code", "path": str(path), "turns": refs}


def _render_claude_subagent(case, si, sess, claude_dir, agent_id, tool, when, env):
    cid = case["id"]
    sid = sess["session_id"]
    path = (
        claude_dir
        / "projects"
        / claude_slug(sess["cwd"])
        / sid
        / "subagents"
        / f"agent-{agent_id}.jsonl"
    )
    w = _Writer(path)
    base = {**env, "isSidechain": True, "agentId": agent_id}
    u1 = _uuid(cid, si, agent_id, "p")
    w.add(
        {
            "parentUuid": None,
            **base,
            "type": "user",
            "message": {"role": "user", "content": tool["input"]},
            "uuid": u1,
            "timestamp": _ms(when + dt.timedelta(milliseconds=200)),
        }
    )
    w.add(
        {
            "parentUuid": u1,
            **base,
            "type": "assistant",
            "message": {
                "model": "claude-haiku-4-5",
                "id": "msg_01" + _b62(cid, si, agent_id, "a"),
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": tool["output"]}],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 9,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 4100,
                    "output_tokens": 60,
                    "service_tier": "standard",
                },
            },
            "requestId": "req_011C" + _b62(cid, si, agent_id, "r", n=20),
            "uuid": _uuid(cid, si, agent_id, "a"),
            "timestamp": _ms(when + dt.timedelta(seconds=1)),
        }
    )
    w.write()


# ----------------------------------------------------------------------------- Codex
PERMISSIONS = (
    "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. "
    "`sandbox_mode` is `workspace-write`: The sandbox permits reading files, and editing files in `cwd` and "
    "`writable_roots`. Editing files in other directories requires approval. Network access is restricted.\n"
    "</permissions instructions>"
)
BASE_INSTR = (
    "You are Codex, a coding agent based on GPT-5. You and the user share one workspace, and your job is to "
    "collaborate with them until their goal is genuinely handled."
)


def render_codex(case: dict, si: int, sess: dict, codex_dir: Path) -> dict:
    cid = case["id"]
    sid = sess["session_id"]
    cwd = sess["cwd"]
    fmt = sess.get("codex_format", "legacy")
    start = _t(sess["start"])
    fname = f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"
    path = (
        codex_dir
        / "sessions"
        / start.strftime("%Y")
        / start.strftime("%m")
        / start.strftime("%d")
        / fname
    )
    w = _Writer(path, ordinal=(fmt == "paginated"))
    refs: dict[str, dict] = {}

    last = [start]

    def add(when, typ, payload):
        when = max(when, last[0])  # the host appends in wall-clock order
        last[0] = when
        return w.add({"timestamp": _ms(when), "type": typ, "payload": payload})

    meta = {"id": sid, "timestamp": _ms(start - dt.timedelta(milliseconds=11)), "cwd": cwd}
    if fmt == "2025":
        meta.update(
            {
                "originator": "codex_cli_rs",
                "cli_version": "0.77.0",
                "instructions": "## Skills\nThese skills are discovered at startup from multiple local sources.",
                "source": "cli",
                "model_provider": "openai",
            }
        )
        model = "gpt-5.2-codex"
    elif fmt == "paginated":
        meta = {
            "session_id": sid,
            **meta,
            "originator": "codex-tui",
            "cli_version": "0.153.4",
            "source": "cli",
            "thread_source": "user",
            "model_provider": "openai",
            "base_instructions": {"text": BASE_INSTR},
            "history_mode": "paginated",
            "context_window": {"window_id": _uuid7(start, cid, si, "win")},
        }
        model = "gpt-5.5-codex"
    else:
        meta.update(
            {
                "originator": "codex-tui",
                "cli_version": "0.125.0",
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": BASE_INSTR},
            }
        )
        model = "gpt-5.3-codex"
    meta["git"] = {
        "commit_hash": _h(cid, si, "commit")[:40],
        "branch": sess.get("git_branch", "main"),
        "repository_url": _repo_url(sess["workspace"]),
    }
    add(start, "session_meta", meta)

    def tctx(when, turn_id):
        p = {
            "cwd": cwd,
            "approval_policy": "on-request",
            "sandbox_policy": {
                "type": "workspace-write",
                "network_access": False,
                "exclude_tmpdir_env_var": False,
                "exclude_slash_tmp": False,
            },
            "model": model,
            "summary": "auto",
        }
        if fmt != "2025":
            p = {
                "turn_id": turn_id,
                "cwd": cwd,
                "current_date": when.strftime("%Y-%m-%d"),
                "timezone": "UTC",
                **{k: v for k, v in p.items() if k != "cwd"},
            }
        add(when, "turn_context", p)

    def msg(when, role, text, phase=None):
        ctype = "output_text" if role == "assistant" else "input_text"
        p = {"type": "message", "role": role, "content": [{"type": ctype, "text": text}]}
        if phase and fmt != "2025":
            p["phase"] = phase
        return add(when, "response_item", p)

    history: list[dict] = []
    first = True
    tokens = 0
    for gi, (ut, ats) in enumerate(_turn_pairs(sess["turns"])):
        when = _t(ut["at"]) if ut else _t(ats[0]["at"]) - dt.timedelta(seconds=5)
        turn_id = _uuid7(when, cid, si, "turn", gi)
        if fmt != "2025":
            add(
                when - dt.timedelta(milliseconds=5),
                "event_msg",
                {
                    "type": "task_started",
                    "turn_id": turn_id,
                    "started_at": int(when.timestamp()),
                    "model_context_window": 258400,
                    "collaboration_mode_kind": "default",
                },
            )
        if first:
            if fmt != "2025":
                msg(when - dt.timedelta(milliseconds=4), "developer", PERMISSIONS)
            agents = sess.get("injected")
            if agents:
                n = msg(
                    when - dt.timedelta(milliseconds=4),
                    "user",
                    f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n{agents}\n</INSTRUCTIONS>",
                )
                refs["injected"] = {"path": str(path), "line": n}
            msg(
                when - dt.timedelta(milliseconds=3),
                "user",
                f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
                f"  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
                f"  <shell>zsh</shell>\n</environment_context>",
            )
            first = False
        if fmt != "2025":
            tctx(when - dt.timedelta(milliseconds=2), turn_id)
        if ut is not None:
            n = msg(when, "user", ut["text"])
            ref = {"path": str(path), "line": n}
            if fmt == "paginated":
                item_id = _uuid7(when, cid, si, ut["id"], "item")
                n2 = add(
                    when + dt.timedelta(milliseconds=1),
                    "event_msg",
                    {
                        "type": "item_completed",
                        "thread_id": sid,
                        "turn_id": turn_id,
                        "item": {
                            "type": "UserMessage",
                            "id": item_id,
                            "content": [{"type": "text", "text": ut["text"], "text_elements": []}],
                        },
                        "started_at_ms": int(when.timestamp() * 1000),
                        "completed_at_ms": int(when.timestamp() * 1000),
                    },
                )
                ref["event_line"] = n2
            elif fmt == "2025":
                ref["event_line"] = add(
                    when, "event_msg", {"type": "user_message", "message": ut["text"], "images": []}
                )
                tctx(when + dt.timedelta(milliseconds=6), turn_id)
            else:
                ref["event_line"] = add(
                    when + dt.timedelta(milliseconds=1),
                    "event_msg",
                    {
                        "type": "user_message",
                        "message": ut["text"],
                        "images": [],
                        "local_images": [],
                        "text_elements": [],
                    },
                )
            refs[ut["id"]] = ref
            history.append(
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": ut["text"]}],
                }
            )
        last_text = None
        for at in ats:
            aw = _t(at["at"])
            t0 = aw - dt.timedelta(seconds=6)
            first_line = add(
                t0,
                "response_item",
                {
                    "type": "reasoning",
                    "summary": [],
                    "content": None,
                    "encrypted_content": "gAAAAAB" + _b62(cid, si, at["id"], "enc", n=48),
                },
            )
            tool = at.get("tool")
            if tool:
                call_id = "call_" + _b62(cid, si, at["id"], "call")
                if tool.get("kind") == "agent":
                    add(
                        t0 + dt.timedelta(seconds=1),
                        "response_item",
                        {
                            "type": "function_call",
                            "name": "spawn_agent",
                            "arguments": json.dumps(
                                {"message": tool["input"], "agent_role": "worker"}
                            ),
                            "call_id": call_id,
                        },
                    )
                    out = json.dumps(
                        {
                            "agent_id": _uuid7(t0, cid, si, "agent"),
                            "status": "completed",
                            "final_message": tool["output"],
                        }
                    )
                elif fmt == "2025":
                    add(
                        t0 + dt.timedelta(seconds=1),
                        "response_item",
                        {
                            "type": "function_call",
                            "name": "shell",
                            "arguments": json.dumps(
                                {"command": ["bash", "-lc", tool["input"]], "workdir": cwd},
                                separators=(",", ":"),
                            ),
                            "call_id": call_id,
                        },
                    )
                    out = json.dumps(
                        {
                            "output": tool["output"] + ("\n" if tool["output"] else ""),
                            "metadata": {"exit_code": 0, "duration_seconds": 0.4},
                        },
                        separators=(",", ":"),
                    )
                else:
                    add(
                        t0 + dt.timedelta(seconds=1),
                        "response_item",
                        {
                            "type": "function_call",
                            "name": "exec_command",
                            "arguments": json.dumps(
                                {
                                    "cmd": tool["input"],
                                    "workdir": cwd,
                                    "yield_time_ms": 10000,
                                    "max_output_tokens": 12000,
                                }
                            ),
                            "call_id": call_id,
                        },
                    )
                    out = (
                        f"Chunk ID: {_h(cid, si, at['id'])[:6]}\nWall time: 1.2041 seconds\nProcess exited with code 0\n"
                        f"Original token count: {len(tool['output']) // 4}\nOutput:\n{tool['output']}"
                    )
                tokens += 900
                add(
                    t0 + dt.timedelta(seconds=1, milliseconds=100),
                    "event_msg",
                    _token_count(tokens),
                )
                add(
                    t0 + dt.timedelta(seconds=3),
                    "response_item",
                    {"type": "function_call_output", "call_id": call_id, "output": out},
                )
            if fmt == "paginated":
                add(
                    aw,
                    "event_msg",
                    {
                        "type": "item_completed",
                        "thread_id": sid,
                        "turn_id": turn_id,
                        "item": {
                            "type": "AgentMessage",
                            "id": _uuid7(aw, cid, si, at["id"], "item"),
                            "text": at["text"],
                            "phase": "final_answer",
                        },
                        "started_at_ms": int(aw.timestamp() * 1000),
                        "completed_at_ms": int(aw.timestamp() * 1000),
                    },
                )
            else:
                add(
                    aw,
                    "event_msg",
                    {"type": "agent_message", "message": at["text"]}
                    | ({} if fmt == "2025" else {"phase": "final_answer", "memory_citation": None}),
                )
            n = msg(
                aw + dt.timedelta(milliseconds=15), "assistant", at["text"], phase="final_answer"
            )
            refs[at["id"]] = {"path": str(path), "line": first_line, "last_line": n}
            history.append(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": at["text"]}],
                    "phase": "final_answer",
                }
            )
            tokens += 1200 + len(at["text"])
            add(aw + dt.timedelta(milliseconds=30), "event_msg", _token_count(tokens))
            last_text = at["text"]
            if sess.get("compact_after") == at["id"]:
                cw = aw + dt.timedelta(seconds=2)
                n = add(
                    cw,
                    "compacted",
                    {
                        "message": "",
                        "replacement_history": history
                        + [
                            {
                                "type": "compaction",
                                "encrypted_content": "gAAAAAB" + _b62(cid, si, "compaction", n=64),
                            }
                        ],
                    },
                )
                refs["compact"] = {"path": str(path), "line": n}
                add(cw + dt.timedelta(milliseconds=20), "event_msg", {"type": "context_compacted"})
                tctx(cw + dt.timedelta(milliseconds=21), turn_id)
        end = _t(ats[-1]["at"]) if ats else when
        if fmt != "2025":
            add(
                end + dt.timedelta(milliseconds=60),
                "event_msg",
                {
                    "type": "task_complete",
                    "turn_id": turn_id,
                    "last_agent_message": last_text,
                    "completed_at": int(end.timestamp()) + 1,
                    "duration_ms": int((end - when).total_seconds() * 1000) + 60,
                },
            )
    w.write()
    return {"host": "codex", "path": str(path), "turns": refs}


def _repo_url(workspace: str) -> str:
    m = re.search(r"/(?:home|Users)/([^/]+)/", workspace)
    owner = m.group(1) if m else Path(workspace).parent.name
    return f"git@github.com:{owner}/{Path(workspace).name}.git"


def _token_count(total: int) -> dict:
    u = {
        "input_tokens": total,
        "cached_input_tokens": int(total * 0.8),
        "output_tokens": total // 30,
        "reasoning_output_tokens": total // 90,
        "total_tokens": total + total // 30,
    }
    return {
        "type": "token_count",
        "info": {"total_token_usage": u, "last_token_usage": u, "model_context_window": 258400},
        "rate_limits": None,
    }


# ----------------------------------------------------------------------------- driver
def render_case(
    case: dict, out_dir: Path, root: str | None = None, materialize: bool = True
) -> dict:
    """Render one case below ``out_dir``; return its manifest (also written as manifest.json)."""
    c = remap_case(case, root)
    if root and materialize:
        materialize_workspaces(c)
    claude_dir = out_dir / "claude"
    codex_dir = out_dir / "codex"
    sessions = []
    for si, s in enumerate(c["sessions"]):
        if s["host"] == "claude-code":
            sessions.append(render_claude(c, si, s, claude_dir))
        else:
            sessions.append(render_codex(c, si, s, codex_dir))
    manifest = {
        "case": c["id"],
        "claude_config_dir": str(claude_dir),
        "codex_home": str(codex_dir),
        "root": root,
        "query_cwd": c["query"]["cwd"],
        "sessions": sessions,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=str(HERE), help="folder with <category>.json files")
    ap.add_argument("--out", required=True, help="output folder (one sub-folder per case)")
    ap.add_argument("--case", action="append", default=[], help="only this case id (repeatable)")
    ap.add_argument(
        "--root",
        default=None,
        help="prefix for synthetic absolute paths; creates workspace folders with .git below it "
        "(default: <out>/<case>/fs when --materialize is given)",
    )
    ap.add_argument(
        "--materialize",
        action="store_true",
        help="prefix paths with <out>/<case>/fs and create the repos",
    )
    a = ap.parse_args(argv)
    cases = load_cases(Path(a.cases))
    if a.case:
        cases = [c for c in cases if c["id"] in set(a.case)]
    out = Path(a.out)
    for c in cases:
        root = a.root or (str(out / c["id"] / "fs") if a.materialize else None)
        render_case(c, out / c["id"], root=root, materialize=bool(root))
    print(f"rendered {len(cases)} case(s) into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
