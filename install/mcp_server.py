"""`memvet mcp`: a stdio MCP server on the official SDK (mcp 2.x `MCPServer`, FastMCP's heir).

Tools: `memory_recall` (the recall decision, the same JSON as `memvet recall --json`),
`memory_list` (approved memories in scope, best first), `memory_status`. Read-only unless
`[mcp] writeback = true` in MEMVET_HOME/config.toml; then `memory_propose` is offered too, and it
only ever queues a `model_inference` candidate for the operator to review, never a memory.

Scope: the workspace the host started the server in — its cwd (hosts start it in the
project), or the roots the client announces (MCP `roots`). A tool's `cwd` argument may only
narrow inside that workspace: anything that resolves (symlinks followed) outside it is a tool
error naming the rule, because a prompt-injected agent must not read another project's memories.
The scope rule then lets it see the user's global memories and that workspace's, nothing else.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.server.mcpserver import Context  # module level: the SDK resolves tool hints here
from memvet.store import KINDS
from memvet.store.paths import config_path
from memvet.store.vocabulary import AdmissionOutcome, CandidateStatus, Kind, SourceType

INSTRUCTIONS = (
    "memvet holds memories the user approved (preferences, constraints, decisions, facts, "
    "procedures) for this workspace and globally. Call memory_recall with a question before "
    "assuming how things are done here; its `state` says whether memvet knows (VERIFIED…) or "
    "not (UNKNOWN, with a reason) — do not guess past an UNKNOWN."
)
LIST_LIMIT = 200


def writeback_enabled() -> bool:
    """`[mcp] writeback = true` in config.toml (store/config_sections.mcp_writeback)."""
    from memvet.store.config_sections import mcp_writeback

    return mcp_writeback(config_path())


SCOPE_RULE = (
    "a cwd may only narrow the scope inside the workspace this memvet server was started in"
)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class _Scope:
    """Opens the store on first use, so a locked key becomes a tool error, not a dead server."""

    def __init__(self, cwd: str | None) -> None:
        from memvet.store.workspace import resolve_workspace

        self.cwd = resolve_workspace(os.path.abspath(cwd or os.getcwd()))
        self._store: Any = None

    def store(self, *, create: bool = False) -> Any:
        """The store; only `memory_propose` creates a missing one (as `memvet propose` does):
        a reading tool on a missing store is a "no store yet" error, with nothing written."""
        if self._store is None:
            from memvet.store import open_store

            self._store = open_store(create=create)
        return self._store

    async def roots(self, ctx: Any) -> list[str]:
        """The workspaces this server serves: the client's announced roots, else its cwd's."""
        from memvet.store.workspace import resolve_workspace

        session = getattr(getattr(ctx, "request_context", None), "session", None)
        caps = getattr(session, "client_capabilities", None)
        if session is None or caps is None or caps.roots is None:
            return [self.cwd]
        from urllib.parse import unquote, urlparse

        from mcp import types
        from mcp.shared.message import ServerMessageMetadata

        try:  # on this tool call's own channel: stdio has no other back-channel
            listed = (
                await session.send_request(
                    types.ListRootsRequest(),
                    types.ListRootsResult,
                    metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
                )
            ).roots
        except Exception:  # noqa: BLE001 - no back-channel (2026 protocol), or no answer: cwd
            return [self.cwd]

        found = [
            resolve_workspace(unquote(urlparse(str(r.uri)).path))
            for r in listed
            if str(r.uri).startswith("file://")
        ]
        return found or [self.cwd]

    async def workspace(self, ctx: Any, cwd: str | None) -> str:
        """The workspace a tool reads: the server's, or one inside it that `cwd` narrows to."""
        from memvet.store.workspace import resolve_workspace

        roots = await self.roots(ctx)
        if cwd is None:
            return roots[0]
        target = os.path.abspath(os.path.join(roots[0], os.path.expanduser(cwd)))
        real = os.path.realpath(target)
        if not any(_inside(real, os.path.realpath(root)) for root in roots):
            raise _tool_error(ValueError(f"{cwd!r} is outside {', '.join(roots)}: {SCOPE_RULE}"))
        return resolve_workspace(target)


def _tool_error(exc: Exception) -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(getattr(exc, "message", None) or str(exc))


def build_server(cwd: str | None = None, *, writeback: bool | None = None) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations
    from memvet.store import MemvetError

    scope = _Scope(cwd)
    enabled = writeback_enabled() if writeback is None else writeback
    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    server = MCPServer("memvet", instructions=INSTRUCTIONS, log_level="WARNING")

    # Codex defers MCP tools behind its BM25 `tool_search`: the words a model searches with
    # ("remember", "memory", "conventions", "preferences") must be in the name or description.
    @server.tool(annotations=read_only)
    async def memory_recall(
        query: str, ctx: Context, cwd: str | None = None, as_of: str | None = None
    ) -> dict[str, Any]:
        """Recall what the user asked to remember: memory of this project's conventions,
        preferences, constraints, decisions and facts, each approved by the user. Ask a
        question; returns the knowledge state (VERIFIED, VERIFIED_HISTORICAL,
        VERIFIED_NEGATIVE, VERIFIED_WITH_NEGATIVE_BOUNDARY or UNKNOWN with a reason code), the
        memories that answer it and any contradictions. as_of: an ISO 8601 time to ask about.
        cwd: a folder inside this workspace (never outside it)."""
        from memvet.store.cli_handlers import parse_time
        from memvet.store.recall import recall
        from memvet.store.redaction.served import recall_document  # at the first call

        workspace = await scope.workspace(ctx, cwd)
        try:
            answer = recall(scope.store(), query, workspace=workspace, as_of=parse_time(as_of))
            return recall_document(answer)  # today's redaction rules, not those at approval
        except MemvetError as exc:
            raise _tool_error(exc) from None

    @server.tool(annotations=read_only)
    async def memory_list(
        ctx: Context, cwd: str | None = None, kind: str | None = None, limit: int = 50
    ) -> dict[str, Any]:
        """Approved, active memories of this workspace and the user's global ones, most
        important first (operator-typed, then the user's own words, then inferred).
        cwd: a folder inside this workspace (never outside it)."""
        from memvet.store.context_pack import ranked
        from memvet.store.redaction.served import rechecked

        workspace = await scope.workspace(ctx, cwd)
        try:
            store = scope.store()
            memories = store.list_memories(store.reader_for(workspace))
        except MemvetError as exc:
            raise _tool_error(exc) from None
        chosen = [m for m in ranked(memories) if kind is None or m.kind == kind]
        keys = (
            "id",
            "statement",
            "kind",
            "status",
            "scope",
            "source_type",
            "usage_boundary",
            "valid_from",
            "recorded_at",
        )
        shown = [m.to_json() for m in chosen[: max(0, min(limit, LIST_LIMIT))]]
        return {
            "memories": rechecked([{k: doc[k] for k in keys} for doc in shown]),
            "total": len(chosen),
        }

    @server.tool(annotations=read_only)
    async def memory_status(ctx: Context) -> dict[str, Any]:
        """How many memories and pending candidates memvet holds, and whether writeback is on."""
        try:
            status = scope.store().status()
        except MemvetError as exc:
            raise _tool_error(exc) from None
        return {
            "memory_counts": status.memory_counts,
            "queue_counts": status.counts,
            "schema_version": status.schema_version,
            "key_provider": status.key_provider,
            "writeback": enabled,
            "workspace": await scope.workspace(ctx, None),
        }

    if enabled:

        @server.tool(
            annotations=ToolAnnotations(
                read_only_hint=False,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            )
        )
        async def memory_propose(
            statement: str,
            ctx: Context,
            kind: str = Kind.FACT,
            cwd: str | None = None,
            global_scope: bool = False,
        ) -> dict[str, Any]:
            """Suggest something worth remembering. It goes to the user's review queue as a
            model inference; it becomes a memory only if the user approves it."""
            workspace = await scope.workspace(ctx, cwd)
            return _propose(scope, statement, kind, None if global_scope else workspace)

    return server


def _propose(scope: _Scope, statement: str, kind: str, workspace: str | None) -> dict[str, Any]:
    from memvet.store import CandidateDraft, MemvetError, Scope

    if kind not in KINDS:
        raise _tool_error(ValueError(f"kind must be one of {', '.join(KINDS)}"))
    try:
        store = scope.store(create=True)
        draft = CandidateDraft(
            statement=statement.strip(),
            kind=kind,
            source_type=SourceType.MODEL_INFERENCE,
            scope=Scope(user=store.user, workspace=workspace),
            host="mcp",
            confidence=0.5,
            reasons=("proposed by an agent over MCP",),
        )
        result = store.admit(draft, actor="mcp")
    except MemvetError as exc:
        raise _tool_error(exc) from None
    queued = (AdmissionOutcome.QUEUED, AdmissionOutcome.MERGED)  # both wait in the queue
    status = CandidateStatus.PENDING if result.outcome in queued else result.outcome
    return {
        "id": result.candidate_id or result.memory_id,
        "status": status,
        "outcome": result.outcome,
    }


def _stop_on_sigint() -> None:
    """Ctrl-C ends the server. Python's KeyboardInterrupt does not: the stdio transport's reader
    thread sits in a blocking read and the event loop waits for it; and a parent that started us
    with SIGINT ignored (hosts, a shell's background job) would keep it ignored. Every write is
    its own SQLite transaction, so stopping between reads loses nothing."""
    import signal

    def stop(_signum: int, _frame: Any) -> None:
        sys.stdout.flush()
        os._exit(128 + signal.SIGINT)

    signal.signal(signal.SIGINT, stop)


def run(args: Any) -> int:
    _stop_on_sigint()
    build_server().run("stdio")
    return 0
