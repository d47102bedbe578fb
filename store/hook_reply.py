"""The hook's answer, the same on both paths: the no-daemon hook runs it over fast_read's
DirectSource, the daemon's context server over its cached packs. Also the per-session memo of
what was already given (MEMVET_HOME/run/hook-sessions/, 0600, bounded) and the `[hook]` budgets
of config.toml. Standard library only, like fast_read.py: the hook loads it without the store.
"""

from __future__ import annotations

import _thread
import hashlib
import os

from memvet.store import context_pack as cp
from memvet.store import hook_json, hosts
from memvet.store.fast_keys import FastReadError
from memvet.store.hook_scope import session_workspace
from memvet.store.host_jobs import host_job

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook ~4 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, Protocol

    from memvet.store.prompt_match import TermIndex

    class Source(Protocol):
        def ranked(self) -> Iterator[cp.PackItem]: ...
        def count_active(self, now: str) -> int: ...
        def fill(self, items: list[cp.PackItem]) -> None: ...
        def index(self) -> TermIndex: ...
        def relevant(self, prompt: str, given: set[str], now: str) -> Iterator[cp.PackItem]: ...


MAX_GIVEN = 2000  # ids remembered per session
MAX_SESSIONS = 256  # session memo files kept


# --- what was already given this session -----------------------------------------------------------
def session_file(home: str, session_id: Any) -> str | None:
    if not isinstance(session_id, str) or not session_id:
        return None
    name = "".join(c for c in session_id if c.isalnum() or c in "-_")[:80]
    if name != session_id:  # odd ids are hashed, never used as a path as they are
        name = hashlib.sha256(session_id.encode()).hexdigest()[:40]
    return os.path.join(home, "run", "hook-sessions", name)


def load_given(path: str | None) -> set[str]:
    if path is None:
        return set()
    try:
        with open(path, encoding="ascii") as handle:
            return {line.strip() for line in handle if line.strip()}
    except (FileNotFoundError, UnicodeDecodeError):
        return set()


def save_given(path: str, ids: list[str], *, prune: bool = False) -> None:
    """Atomic replace, 0600; keeps the newest MAX_GIVEN ids and MAX_SESSIONS files."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    # Per process and thread: the daemon's context server answers clients concurrently.
    tmp = f"{path}.{os.getpid()}.{_thread.get_ident()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write("\n".join(list(dict.fromkeys(ids))[-MAX_GIVEN:]) + "\n")
    os.replace(tmp, path)
    if prune:
        entries = [e for e in os.scandir(folder) if e.is_file()]
        if len(entries) > MAX_SESSIONS:
            entries.sort(key=_mtime)
            for entry in entries[: len(entries) - MAX_SESSIONS]:
                try:
                    os.unlink(entry.path)
                except FileNotFoundError:  # another request pruned it first
                    pass


def _mtime(entry: os.DirEntry) -> float:
    try:
        return entry.stat().st_mtime
    except FileNotFoundError:
        return 0.0


# --- the answer -------------------------------------------------------------------------------------
def _tokens(value: Any, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return max(0, min(value, cp.MAX_TOKENS))
    return default


def hook_budgets(home: str) -> dict[str, int]:
    """`[hook] session_start_tokens` / `prompt_tokens` in config.toml (0 turns an event off).
    A broken file falls back to the defaults: the hook never fails the host."""
    budgets = {"session-start": cp.SESSION_START_TOKENS, "user-prompt-submit": cp.PROMPT_TOKENS}
    try:
        with open(os.path.join(home, "config.toml"), "rb") as handle:
            import tomllib

            section = tomllib.load(handle).get("hook", {})
    except (OSError, ValueError):
        return budgets
    if isinstance(section, dict):
        budgets["session-start"] = _tokens(
            section.get("session_start_tokens"), budgets["session-start"]
        )
        budgets["user-prompt-submit"] = _tokens(
            section.get("prompt_tokens"), budgets["user-prompt-submit"]
        )
    return budgets


def respond(
    source: Source,
    event: str,
    payload: dict[str, Any],
    home: str,
    now: str,
    recheck: Callable[[str | None], str | None] | None = None,
) -> str | None:
    """The hook's stdout for one event, or None for no output. `recheck`: the daemon's
    re-redaction of what it serves (redaction/served.py); the no-daemon path has none."""
    budget = hook_budgets(home)[event]
    if budget <= 0:
        return None
    memo = session_file(home, payload.get("session_id"))
    if event == "session-start":
        # A resumed session keeps what it was given (Codex keeps the earlier developer
        # message): send only what it has not had, else each resume adds another copy.
        given = load_given(memo) if payload.get("source") == "resume" else set()
        chosen = cp.choose(
            (item for item in source.ranked() if item.id not in given), budget, event, now
        )
        left_out = max(0, cp.left_out(source.count_active(now), chosen) - len(given))
    else:
        prompt = payload.get("prompt")
        if not isinstance(prompt, str):
            return None
        given = load_given(memo)
        chosen = cp.choose(source.relevant(prompt, given, now), budget, event, now)
        left_out = 0  # a prompt adds what matches; no footer about the rest
    if not chosen:
        return None
    source.fill(chosen)
    chosen = [item for item in chosen if item.statement is not None]  # a ciphertext failed
    if recheck is None and _swept_with_older_rules(source):
        from memvet.store.redaction.served import recheck  # the slow path, until the daemon's sweep
    if recheck is not None:
        for item in chosen:
            item.statement, item.boundary = recheck(item.statement), recheck(item.boundary)
    if not chosen:
        return None
    if memo is not None:
        save_given(memo, [*given, *(item.id for item in chosen)], prune=event == "session-start")
    return cp.hook_output(event, cp.render(event, chosen, left_out))


def _swept_with_older_rules(source: Source) -> bool:
    """The store's text was not (yet) swept with this version's redaction rules: what the hook
    serves must be redacted again on the way out. One store_meta lookup, no redactor import."""
    recorded = getattr(source, "ruleset_recorded", None)
    if recorded is None:
        return False  # the daemon's source: it passes its own recheck
    from memvet.store.redaction_version import swept_with_older_rules

    return swept_with_older_rules(recorded())


def parse_request(
    host: str, event: str, raw: bytes, process_cwd: str
) -> tuple[dict[str, Any], str | None]:
    """The host's hook JSON and the workspace it runs in: the git root of its `cwd`, taken
    relative to the hook process's own cwd (which the hosts set to the session's), refused when
    outside the session's project (hook_scope.py). Resolved afresh every time: a daemon's cache
    would miss a `git init` the direct path sees."""
    if host not in hosts.REGISTRY or event not in cp.EVENT_NAMES:
        raise FastReadError("usage")
    try:
        payload = hook_json.loads(raw)
    except ValueError:
        raise FastReadError("bad_input") from None
    if not isinstance(payload, dict):
        raise FastReadError("bad_input")
    if host_job(payload, process_cwd):
        raise FastReadError("host_memory_job")
    return payload, session_workspace(payload, process_cwd)


def answer(
    host: str,
    event: str,
    raw: bytes,
    home: str,
    open_source: Callable[[str | None], Source],
    now: str,
    process_cwd: str | None = None,
    recheck: Callable[[str | None], str | None] | None = None,
) -> str | None:
    """`process_cwd`: the hook process's cwd (the daemon gets it in the request)."""
    payload, workspace = parse_request(host, event, raw, process_cwd or os.getcwd())
    return respond(open_source(workspace), event, payload, home, now, recheck)
