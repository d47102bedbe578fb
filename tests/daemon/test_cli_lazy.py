"""Building the daemon's part of the `memvet` parser must not import the daemon runtime: every
`memvet` command pays for the parser, only `daemon run|status` need the runtime."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import argparse, sys
from memvet.daemon.cli import register
parser = argparse.ArgumentParser()
register(parser.add_subparsers(dest="command"))
args = parser.parse_args(["daemon", "status", "--json"])
print("memvet.daemon.commands" in sys.modules, callable(args.handler))
"""


def test_parser_does_not_import_daemon_commands() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
