"""`memvet doctor --config`: the effective configuration — every setting as memvet would use it
now, defaults filled in — from the same readers the components use (store/config_sections.py).
A file memvet cannot use is the usual config error (exit 2)."""

from __future__ import annotations

import argparse
import json

from memvet.store.config_sections import effective_config
from memvet.store.console import emit
from memvet.store.paths import memvet_home


def config_command(args: argparse.Namespace) -> int:
    report = effective_config(memvet_home())

    def human() -> None:
        print(f"# {report['config_file']}" + ("" if report["config_file_exists"] else " (absent)"))
        for section in ("daemon", "hook", "review", "mcp"):
            print(f"[{section}]")
            for key, value in report[section].items():
                print(f"{key} = {json.dumps(value)}")
        print(f"# {report['policy_file']} over the bundled defaults")
        policy = report["policy"]
        for key in ("version", "mode", "selective_threshold"):
            print(f"{key} = {json.dumps(policy[key])}")
        for source, ops in policy["actions"].items():
            print(f"[actions.{source}]")
            for op, action in ops.items():
                print(f"{op} = {json.dumps(action)}")

    emit(args, report, human)
    return 0
