"""The hosts memvet serves: the one place that names them. Plain data with no imports, so the
hook (install/hook_entry.py) loads it without the store.

A host's transcript roots are (folder under its config folder, layout); the layouts and which
files under a root are transcripts are daemon/roots.py's. Adding a host: an entry here, a
transcript parser in daemon/hosts/ and a setup module in install/ (docs/development.md).
"""

from __future__ import annotations


class Host:
    """name: the CLI and JSON spelling; folder_variable / folder_default: the environment
    variable naming its config folder and the folder under HOME otherwise; roots: (folder under
    the config folder, layout); hook_events: the `memvet hook` events it runs; mcp_file: where
    it registers MCP servers (relative to the config folder)."""

    __slots__ = (
        "name",
        "display",
        "short",
        "folder_variable",
        "folder_default",
        "roots",
        "hook_events",
        "mcp_file",
        "rollout_prefix",
    )

    def __init__(
        self,
        name: str,
        display: str,
        short: str,
        folder_variable: str,
        folder_default: str,
        roots: tuple[tuple[str, str], ...],
        hook_events: tuple[str, ...],
        mcp_file: str,
        rollout_prefix: str | None = None,
    ) -> None:
        self.name, self.display, self.short = name, display, short
        self.folder_variable, self.folder_default = folder_variable, folder_default
        self.roots, self.hook_events, self.mcp_file = roots, hook_events, mcp_file
        # A file name that marks this host's transcripts in an extra root shared by hosts.
        self.rollout_prefix = rollout_prefix


CLAUDE_CODE = "claude-code"
CODEX = "codex"
# The events the context hook answers; the native-memory gate adds pre-tool-use for Claude Code.
CONTEXT_EVENTS = ("session-start", "user-prompt-submit")

REGISTRY: dict[str, Host] = {
    CLAUDE_CODE: Host(
        CLAUDE_CODE,
        "Claude Code",
        "claude",
        "CLAUDE_CONFIG_DIR",
        ".claude",
        roots=(("projects", "claude-projects"),),
        hook_events=(*CONTEXT_EVENTS, "pre-tool-use"),
        mcp_file=".claude.json",
    ),
    CODEX: Host(
        CODEX,
        "Codex",
        "codex",
        "CODEX_HOME",
        ".codex",
        roots=(("sessions", "codex-sessions"), ("archived_sessions", "codex-archive")),
        hook_events=CONTEXT_EVENTS,
        mcp_file="config.toml",
        rollout_prefix="rollout-",
    ),
}


def names() -> tuple[str, ...]:
    """Every host's name, in registry order (read at call time, so a test can add a host)."""
    return tuple(REGISTRY)


def host(name: str) -> Host:
    return REGISTRY[name]


def all_hook_events() -> tuple[str, ...]:
    return tuple(dict.fromkeys(e for h in REGISTRY.values() for e in h.hook_events))
