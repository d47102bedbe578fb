"""Prompt filters (assets/filters.toml): wrappers dropped, injections stripped, and what the
person typed (URLs, paths, code) never cut, whatever the rules say."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memvet.daemon.extraction.filters import EMPTIED
from memvet.daemon.pipeline import load_rules

FILTERS = load_rules().filters


@pytest.mark.parametrize(
    ("host", "text", "rule"),
    [
        (
            "claude-code",
            "<command-name>/mcp</command-name>\n<command-message>mcp</command-message>",
            "claude.command-echo",
        ),
        (
            "claude-code",
            "<local-command-stdout>Reconnected.</local-command-stdout>",
            "claude.command-echo",
        ),
        ("claude-code", "[Request interrupted by user for tool use]", "claude.interrupt"),
        (
            "claude-code",
            "This session is being continued from a previous conversation that ran out of context.",
            "claude.compaction-summary",
        ),
        (
            "codex",
            "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>always use tabs</INSTRUCTIONS>",
            "codex.agents-md",
        ),
        (
            "codex",
            "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
            "codex.injected-context",
        ),
        ("codex", "<user_instructions>never push</user_instructions>", "codex.injected-context"),
    ],
)
def test_host_wrappers_are_dropped(host: str, text: str, rule: str) -> None:
    result = FILTERS.apply(text, host)
    assert result.dropped_by == rule and not result.kept and result.text == ""


def test_drop_rules_are_host_specific() -> None:
    text = "<environment_context> is the tag codex uses; we always keep it out of prompts"
    assert FILTERS.apply(text, "claude-code").kept
    assert not FILTERS.apply(text, "codex").kept


def test_injected_spans_are_stripped_and_the_rest_kept() -> None:
    text = (
        "always use uv <system-reminder>\nPostToolUse hook: never use pip\n</system-reminder> for installs"
        "\x1b[31m!\x1b[0m"
    )
    result = FILTERS.apply(text, "claude-code")
    assert result.text == "always use uv  for installs!"
    assert set(result.stripped_by) == {"system-reminder", "ansi-escapes"}


def test_a_prompt_emptied_by_a_rule_says_so() -> None:
    result = FILTERS.apply("<system-reminder>only hook text</system-reminder>", "claude-code")
    assert (
        result.text
        == EMPTIED.format("system-reminder")
        == "[filtered: all content removed by rule system-reminder]"
    )
    assert result.emptied_by == "system-reminder" and not result.kept


def _hostile_rules(tmp_path: Path):
    user_file = tmp_path / "rules.toml"
    user_file.write_text(
        "[[strip]]\nname = 'eat-urls'\npattern = 'https?://\\S+'\n\n"
        "[[strip]]\nname = 'eat-paths'\npattern = '/home/\\S+|~/\\S+'\n\n"
        "[[strip]]\nname = 'eat-code'\npattern = '`[^`]*`|uv run|pytest'\n\n"
        "[[strip]]\nname = 'eat-slashes'\npattern = '[/~`.]'\n"
    )
    return load_rules(str(user_file)).filters


def test_urls_paths_and_code_survive_any_strip_rule(tmp_path: Path) -> None:
    hostile = _hostile_rules(tmp_path)
    text = (
        "Run `uv run pytest -q` before pushing, see https://docs.example.com/a/b?x=1 and "
        "/home/dana/src/app/settings.py or ~/.config/app.toml\n```\nmake test\n```"
    )
    result = hostile.apply(text, "codex")
    for kept in (
        "`uv run pytest -q`",
        "https://docs.example.com/a/b?x=1",
        "/home/dana/src/app/settings.py",
        "~/.config/app.toml",
        "```\nmake test\n```",
    ):
        assert kept in result.text


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["always", "use", "the", "repo", "never", "push", "tests", "docs"]),
        max_size=6,
    ),
    url=st.from_regex(r"https://[a-z]{2,8}\.dev/[a-z0-9/_\-]{1,20}", fullmatch=True),
    path=st.from_regex(r"~?/[a-z]{2,6}(?:/[a-z0-9_.]{1,8}){1,3}", fullmatch=True),
    code=st.from_regex(r"`[a-z \-./]{1,20}`", fullmatch=True),
)
def test_protected_spans_survive_packaged_filters(words, url, path, code) -> None:
    text = " ".join([*words, url, "and", path, "with", code])
    for host in ("claude-code", "codex"):
        result = FILTERS.apply(text, host)
        assert url in result.text and path in result.text and code in result.text
