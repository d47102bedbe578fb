"""The inspector's subcommands: `memvet inspect` (the review app on the store) and `memvet up`
(start the daemon in the background if it is not running, then the review app)."""

from __future__ import annotations

import argparse

THEMES = ("textual-dark", "textual-light")


def register(sub: argparse._SubParsersAction) -> None:
    for name, text, handler in (
        ("inspect", "open the inspector on the store (no daemon needed)", _inspect),
        (
            "up",
            "start the daemon in the background if it is not running, then open the inspector",
            _up,
        ),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument(
            "--theme",
            choices=THEMES,
            default=None,
            help="colour theme (default: textual-dark, or MEMVET_THEME)",
        )
        p.set_defaults(handler=handler)


def require_terminal(command: str) -> None:
    """The inspector draws on a terminal and reads keys from one; without both, Textual would
    wait for input that never comes (at full CPU). Refuse at once instead."""
    import sys

    from memvet.store.errors import UsageError

    missing = [
        name
        for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout))
        if stream is None or not _isatty(stream)
    ]
    if missing:
        raise UsageError(
            f"`memvet {command}` needs a terminal ({' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not one); in scripts use `memvet queue "
            "list`, `memvet queue approve ID` and `memvet status`",
            code="needs_terminal",
        )


def _isatty(stream) -> bool:  # noqa: ANN001 - any file-like object
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real file
        return False


def _inspect(args: argparse.Namespace) -> int:
    from memvet.inspector.launch import run_inspector

    require_terminal("inspect")
    return run_inspector(theme=args.theme)


FIRST_RUN = """memvet has nothing to review yet: no Claude Code or Codex transcripts were found
(looked in {claude} and {codex}).

  memvet setup claude-code    wire memvet into Claude Code (hooks + MCP server)
  memvet setup codex          the same for Codex
  memvet service install      keep the daemon running in the background
  memvet demo                 try the review queue on a bundled example first

Then work with your agent as usual and run `memvet` again to review what it learned."""


def has_transcripts() -> bool:
    """Any host transcript at all under the default roots (stops at the first one)."""
    from memvet.store.paths import claude_config_dir, codex_home

    roots = [
        (claude_config_dir() / "projects", "*.jsonl"),
        (codex_home() / "sessions", "*.jsonl"),
        (codex_home() / "archived_sessions", "*.jsonl"),
    ]
    return any(
        next(root.rglob(pattern), None) is not None for root, pattern in roots if root.is_dir()
    )


def _store_is_empty() -> bool:
    from memvet.store.paths import db_path

    if not db_path().exists():
        return True
    from memvet.store import MemvetError, open_store

    try:
        store = open_store(schema="never")
    except MemvetError:
        return False  # the inspector shows what is wrong with the store
    try:
        status = store.status()
        return not status.counts and not status.memory_counts
    finally:
        store.close()


def _up(args: argparse.Namespace) -> int:
    from memvet.inspector.launch import ensure_daemon, run_inspector
    from memvet.store.paths import claude_config_dir, codex_home

    if not has_transcripts() and _store_is_empty():
        # An empty review screen teaches nothing; say what to do instead.
        print(
            FIRST_RUN.format(
                claude=claude_config_dir() / "projects", codex=codex_home() / "sessions"
            )
        )
        return 0
    require_terminal("up")  # before the daemon starts: nothing is left running for nothing
    started = ensure_daemon()
    return run_inspector(theme=args.theme, note=started.note, wait_for_store=started.started)
