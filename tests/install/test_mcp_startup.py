"""`memvet mcp` starting in time for the hosts: Codex drops an MCP server that has not answered
within `startup_timeout_sec` (default 10 s), so setup gives memvet's entry more time (a value of
the user's stays; uninstall leaves the file as it was); and the launcher starts the server
without building the CLI (argparse, entry points, the store's CLI imports)."""

from __future__ import annotations

import tomllib

import pytest
from memvet.install import launcher, mcp_server
from memvet.install.codex import MCP_STARTUP_TIMEOUT_S


def test_setup_gives_memvet_mcp_time_to_start_in_codex(memvet, codex_dir):
    config = codex_dir / "config.toml"
    original = '# mine\nmodel = "gpt-5.5"\n'
    config.write_text(original)
    memvet("setup", "codex")
    entry = tomllib.loads(config.read_text())["mcp_servers"]["memvet"]
    assert entry["startup_timeout_sec"] == MCP_STARTUP_TIMEOUT_S > 10  # Codex's default: 10 s
    assert memvet("setup", "codex", "--json").json()["changed"] is False
    memvet("setup", "codex", "--uninstall")
    assert config.read_text() == original


def test_a_startup_timeout_of_the_users_stays(memvet, codex_dir):
    config = codex_dir / "config.toml"
    config.write_text(
        '[mcp_servers.memvet]\ncommand = "/old/memvet"\nargs = ["mcp"]\nstartup_timeout_sec = 90\n'
    )
    memvet("setup", "codex")
    entry = tomllib.loads(config.read_text())["mcp_servers"]["memvet"]
    assert entry["startup_timeout_sec"] == 90 and entry["command"] != "/old/memvet"


def test_memvet_mcp_starts_the_server_without_the_cli(monkeypatch):
    started = []
    monkeypatch.setattr(mcp_server, "run", lambda args: started.append(args) or 0)

    def no_cli(argv):
        raise AssertionError(f"the CLI was built for {argv}")

    import memvet.store.console

    monkeypatch.setattr(memvet.store.console, "run_cli", no_cli)
    assert launcher.main(["mcp"]) == 0 and started == [None]
    with pytest.raises(AssertionError, match="the CLI was built"):
        launcher.main(["mcp", "--help"])  # anything else is the CLI's
