"""The inspector's subcommands: `memvet inspect` (the review app on the store) and `memvet up`
(start the daemon in the background if it is not running, then the review app)."""

from __future__ import annotations

import argparse

THEMES = ("textual-dark", "textual-light")


def register(sub: argparse._SubParsersAction) -> None:
    for name, text, handler in (
        ("inspect", "open the inspector on the store (no daemon needed)", _inspect),
        ("up", "start the daemon in the background if it is not running, then open the "
               "inspector", _up),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--theme", choices=THEMES, default=None,
                       help="colour theme (default: textual-dark, or MEMVET_THEME)")
        p.set_defaults(handler=handler)


def _inspect(args: argparse.Namespace) -> int:
    from memvet.inspector.launch import run_inspector

    return run_inspector(theme=args.theme)


def _up(args: argparse.Namespace) -> int:
    from memvet.inspector.launch import ensure_daemon, run_inspector

    started = ensure_daemon()
    return run_inspector(theme=args.theme, note=started.note, wait_for_store=started.started)
