"""The `memvet` command. It owns no subcommands itself: each component registers its own
(entry points in the `memvet.commands` group). `memvet hook …` skips all of that: it runs on
every prompt, so it must not pay for argparse, entry-point discovery or the store's imports;
nor does `memvet mcp`, whose start-up a host times (Codex gives up after `startup_timeout_sec`)."""

from __future__ import annotations

import os
import sys

SIGPIPE_EXIT = 141  # what a shell reports for a command killed by SIGPIPE (128 + 13)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    is_hook = args[:1] == ["hook"]
    try:
        if is_hook:
            from memvet.install.hook_entry import main as hook_main

            code = hook_main(args[1:])
        elif args == ["mcp"]:  # as setup writes it; `memvet mcp --help` takes the CLI
            from memvet.install.mcp_server import run

            code = run(None)
        else:
            from memvet.store.console import run_cli

            code = run_cli(args)
        sys.stdout.flush()  # a closed pipe shows up here, not in the interpreter's exit
    except BrokenPipeError:
        _silence_stdout()
        return 0 if is_hook else SIGPIPE_EXIT  # a hook always exits 0
    return code


def _silence_stdout() -> None:
    """The reader went away (`memvet queue show … | head`): point stdout at /dev/null so the
    interpreter's final flush does not print a BrokenPipeError of its own."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout replaced by a non-file object (tests)
        pass


if __name__ == "__main__":
    sys.exit(main())
