"""The `memvet` command. It owns no subcommands itself: each component registers its own
(entry points in the `memvet.commands` group). `memvet hook …` skips all of that: it runs on
every prompt, so it must not pay for argparse, entry-point discovery or the store's imports."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"]:
        from memvet.install.hook_entry import main as hook_main

        return hook_main(args[1:])
    from memvet.store.console import run_cli

    return run_cli(args)


if __name__ == "__main__":
    sys.exit(main())
