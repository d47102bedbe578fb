"""Helpers for the install tests: run the real `memvet` CLI in a subprocess (with the isolated
environment of tests/conftest.py), and real-shaped host files written by other tools."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def run_memvet(*args: str, env: dict[str, str] | None = None) -> Result:
    """The real `memvet` command in a subprocess."""
    done = subprocess.run(
        [sys.executable, "-m", "memvet.install.launcher", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def memvet_process():
    return run_memvet


@pytest.fixture
def memvet(monkeypatch: pytest.MonkeyPatch):
    """The same command line in this process (the launcher's `main`, stdout and stderr
    captured): one interpreter start per test module instead of one per call."""
    from memvet.install.launcher import main

    def run(*args: str, env: dict[str, str] | None = None) -> Result:
        out, err = io.StringIO(), io.StringIO()
        with monkeypatch.context() as patch:
            for key, value in (env or {}).items():
                patch.setenv(key, value)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(list(args))
        return Result(code, out.getvalue(), err.getvalue())

    return run


@pytest.fixture
def home(isolated_env: Path) -> Path:
    return Path(os.environ["HOME"])


@pytest.fixture
def claude_dir(home: Path) -> Path:
    path = Path(os.environ["CLAUDE_CONFIG_DIR"])
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def codex_dir(home: Path) -> Path:
    path = Path(os.environ["CODEX_HOME"])
    path.mkdir(parents=True, exist_ok=True)
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under a folder (backups excluded), to compare before and after."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".memvet-backup-" not in p.name
    }


def backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.memvet-backup-*"))


# --- real-shaped files written by the hosts and by other tools -------------------------------

# Claude Code writes settings.json with JSON.stringify(…, null, 2).
CLAUDE_SETTINGS = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Bash(git diff:*)",
      "mcp__github__get_issue"
    ],
    "deny": [
      "Read(./.env)",
      "Read(./secrets/**)"
    ],
    "defaultMode": "acceptEdits"
  },
  "env": {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
    "BASH_DEFAULT_TIMEOUT_MS": "120000"
  },
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "$HOME/.local/bin/other-memory context --format=claude",
            "timeout": 20
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [
          {
            "type": "command",
            "command": "npx prettier --write \\"$CLAUDE_FILE_PATHS\\""
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh",
    "padding": 0
  },
  "model": "opus",
  "includeCoAuthoredBy": false
}
"""

# A hand-edited settings file: 4 spaces, arrays on one line, no newline at the end.
CLAUDE_SETTINGS_HANDMADE = """{
    "permissions": {"allow": ["Bash(ls:*)", "Read"], "deny": []},
    "hooks": {
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "~/bin/prompt-guard"}]}
        ]
    },
    "env": {"FOO": "bar"}
}"""

CLAUDE_STATE = {
    "numStartups": 214,
    "installMethod": "native",
    "autoUpdates": True,
    "userID": "5f2c0d6e1b8a4c3e9f7d2a1b0c9e8d7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d",
    "tipsHistory": {"memory-command": 12, "theme-command": 3},
    "mcpServers": {
        "github": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_exampleexampleexample"},
        },
        "sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp"},
    },
    "projects": {
        "/home/dana/src/app": {
            "allowedTools": [],
            "history": [{"display": "fix the flaky test", "pastedContents": {}}],
            "mcpServers": {},
            "enabledMcpjsonServers": [],
            "hasTrustDialogAccepted": True,
            "lastCost": 0.4512,
            "lastDuration": 912345,
        },
    },
    "oauthAccount": {"accountUuid": "1b2c…", "emailAddress": "dana@example.com"},
}

CODEX_CONFIG = """# Codex settings (hand-written)
model = "gpt-5.4"   # the default model
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[features]
web_search_request = true
hooks = false  # off while I debug another hook

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_example" }
startup_timeout_sec = 20

# Fast profile for small edits
[profiles.fast]
model = "gpt-5.4-mini"
model_reasoning_effort = "low"

[projects."/home/dana/src/app"]
trust_level = "trusted"
"""

CODEX_HOOKS = """{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "python3 ~/.codex/notify_done.py",
            "timeout": 5
          }
        ]
      }
    ]
  }
}
"""


@pytest.fixture
def samples():
    """The sample files and helpers above (test modules cannot import conftest by name)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        claude_settings=CLAUDE_SETTINGS,
        claude_settings_handmade=CLAUDE_SETTINGS_HANDMADE,
        claude_state=json.dumps(
            CLAUDE_STATE, indent=2, ensure_ascii=False
        ),  # no final newline, as Claude writes it
        codex_config=CODEX_CONFIG,
        codex_hooks=CODEX_HOOKS,
        snapshot=snapshot,
        backups=backups,
    )
