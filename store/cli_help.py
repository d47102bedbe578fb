"""`memvet --help` lists the commands by task, not by the component that registers them."""

from __future__ import annotations

import argparse

from memvet.store.cli_entry_points import COMMANDS

# The order people meet them in (cli_entry_points.COMMANDS). A command not there is listed under
# "other".
TASKS: dict[str, tuple[str, ...]] = {
    task: tuple(name for name, (its_task, _) in COMMANDS.items() if its_task == task)
    for task, _ in COMMANDS.values()
}


def commands_by_task(sub: argparse._SubParsersAction) -> str:
    """One section per task: `  name  help` lines, aligned across all sections."""
    helps = {action.dest: action.help or "" for action in sub._choices_actions}
    listed = {name for names in TASKS.values() for name in names}
    sections = [(task, [n for n in names if n in helps]) for task, names in TASKS.items()]
    sections.append(("other", sorted(set(helps) - listed)))
    width = max((len(name) for name in helps), default=0) + 2
    lines: list[str] = []
    for task, names in sections:
        if names:
            lines += [f"{task}:", *(f"  {name:<{width}}{helps[name]}" for name in names), ""]
    return "\n".join(lines)


def format_top_help(parser: argparse.ArgumentParser, sub: argparse._SubParsersAction) -> str:
    formatter = parser._get_formatter()
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    formatter.add_text(parser.description)
    formatter.start_section(parser._optionals.title)
    formatter.add_arguments(parser._optionals._group_actions)
    formatter.end_section()
    return formatter.format_help() + "\n" + commands_by_task(sub)
