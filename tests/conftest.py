"""Every test runs against temporary folders: never the real home, keyring or service manager."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SERVICE_MANAGER_STUB = Path(__file__).resolve().parent / "stubs" / "service_manager.py"


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring backend, so no test touches the OS keychain."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMVET_HOME", str(tmp_path / "memvet-home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg-runtime"))
    # Subprocesses cannot see the in-memory keyring: they get no keyring and use the key file.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.delenv("MEMVET_KEY_PROVIDER", raising=False)
    return tmp_path


@pytest.fixture(autouse=True)
def memory_keyring() -> MemoryKeyring:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def shared_dir() -> Path:
    """../shared beside the project; tests that need it skip with a reason when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared is not beside the project ({SHARED}); third-party data unavailable")
    return SHARED


@pytest.fixture(scope="session")
def service_manager(tmp_path_factory: pytest.TempPathFactory):
    """`env(log, replies=None, path=None)`: the environment (PATH: the stand-ins, then `path` or
    this process's PATH) under which `systemctl` and `launchctl` are
    tests/stubs/service_manager.py, recording each call to `log` (one JSON line per command)."""
    bin_dir = tmp_path_factory.mktemp("service-manager-bin")
    for name in ("systemctl", "launchctl"):
        wrapper = bin_dir / name
        stub = f'exec "{sys.executable}" -I -S "{SERVICE_MANAGER_STUB}" {name} "$@"'
        wrapper.write_text(f"#!/bin/sh\n{stub}\n")
        wrapper.chmod(0o755)

    def env(log: Path, replies: Path | None = None, path: str | None = None) -> dict[str, str]:
        path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '') if path is None else path}"
        out = {"PATH": path, "MEMVET_TEST_COMMANDS": str(log)}
        if replies is not None:
            out["MEMVET_TEST_REPLIES"] = str(replies)
        return out

    return env
