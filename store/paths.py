"""Where memvet keeps its files. Everything lives under one folder, MEMVET_HOME."""

from __future__ import annotations

import os

from memvet.store.hosts import CLAUDE_CODE, CODEX, host

TYPE_CHECKING = False  # pathlib is imported where a Path is made: the read commands need none
if TYPE_CHECKING:
    from pathlib import Path

APP_NAME = "memvet"


def memvet_home_text() -> str:
    """memvet_home() as text, without importing pathlib (~5 ms of a read command)."""
    env = os.environ.get("MEMVET_HOME")
    if env:
        return os.path.expanduser(env)
    import platformdirs

    return platformdirs.user_data_dir(APP_NAME, appauthor=False)


def memvet_home() -> Path:
    """MEMVET_HOME, or the platform's user data folder. Resolved on every call, never at import."""
    from pathlib import Path

    return Path(memvet_home_text())


def db_path() -> Path:
    return memvet_home() / "memvet.db"


def key_dir() -> Path:
    return memvet_home() / "keys"


def config_path() -> Path:
    return memvet_home() / "config.toml"


def log_dir() -> Path:
    return memvet_home() / "logs"


def run_dir() -> Path:
    """Locks, the daemon's pid file and its user-only socket."""
    return memvet_home() / "run"


def socket_path() -> Path:
    return run_dir() / "daemon.sock"


def ensure_private_dir(path: Path) -> Path:
    """Create a folder only its owner can read (0700)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    return path


def host_folder(name: str) -> Path:
    """A host's config folder: its variable (store/hosts.py) when set, else its default under HOME."""
    from pathlib import Path

    entry = host(name)
    return Path(
        os.environ.get(entry.folder_variable) or Path.home() / entry.folder_default
    ).expanduser()


def claude_config_dir() -> Path:
    return host_folder(CLAUDE_CODE)


def codex_home() -> Path:
    return host_folder(CODEX)
