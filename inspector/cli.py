"""The inspector's subcommands (filled in by the inspector)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    return None
