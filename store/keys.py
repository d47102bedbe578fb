"""Where the key-encryption key (KEK) lives: the OS keyring, or a 0600 key file where no usable
keyring exists. The store records which provider holds it and never switches silently."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path
from typing import Protocol

from memvet.store.errors import KeyMissingError, KeyringLockedError, StoreUnavailableError

SERVICE = "memvet"


class KeyProvider(Protocol):
    name: str

    def load(self, version: int) -> bytes | None: ...
    def save(self, version: int, kek: bytes) -> None: ...
    def delete(self, version: int) -> None: ...
    def describe(self) -> str: ...


def _account(home: Path, version: int) -> str:
    # One keyring entry per store folder, so two MEMVET_HOMEs never share or clobber a key.
    return f"kek-v{version}:{home.resolve()}"


class KeyringProvider:
    name = "keyring"

    def __init__(self, home: Path) -> None:
        self._home = home

    def _keyring(self):  # noqa: ANN202 - imported lazily: keyring is slow to import
        import keyring
        import keyring.errors  # noqa: F401 - `kr.errors` below: loaded by keyring, named here

        return keyring

    def load(self, version: int) -> bytes | None:
        kr = self._keyring()
        try:
            value = kr.get_password(SERVICE, _account(self._home, version))
        except kr.errors.KeyringLocked as exc:
            raise KeyringLockedError(
                "the OS keyring is locked; unlock it (log in to the desktop session) and try again",
                provider=self.name,
            ) from exc
        except kr.errors.KeyringError as exc:
            raise StoreUnavailableError(
                f"the OS keyring holds memvet's key but cannot be read ({type(exc).__name__}); "
                "make the keyring available, or restore the key and run `memvet key status`",
                code="keyring_unavailable",
                provider=self.name,
            ) from exc
        return None if value is None else base64.b64decode(value)

    def save(self, version: int, kek: bytes) -> None:
        self._keyring().set_password(
            SERVICE, _account(self._home, version), base64.b64encode(kek).decode()
        )

    def delete(self, version: int) -> None:
        kr = self._keyring()
        try:
            kr.delete_password(SERVICE, _account(self._home, version))
        except kr.errors.PasswordDeleteError:
            pass

    def describe(self) -> str:
        backend = type(self._keyring().get_keyring())
        return f"OS keyring ({backend.__module__}.{backend.__name__})"


class FileKeyProvider:
    """A key file only the owner can read, in MEMVET_HOME/keys. Weaker than a keyring: anyone who
    can read the user's files can read the key."""

    name = "file"

    def __init__(self, key_dir: Path) -> None:
        self._dir = key_dir

    def path(self, version: int) -> Path:
        return self._dir / f"kek-v{version}"

    def directory(self) -> Path:
        return self._dir

    def load(self, version: int) -> bytes | None:
        path = self.path(version)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            return None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise StoreUnavailableError(
                f"key file {path} is readable by others (mode {oct(mode & 0o777)}); "
                f"run `chmod 600 {path}` and try again",
                code="key_file_mode",
                provider=self.name,
            )
        return base64.b64decode(path.read_bytes().strip())

    def save(self, version: int, kek: bytes) -> None:
        self._dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self.path(version)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(base64.b64encode(kek) + b"\n")
            handle.flush()
            os.fsync(handle.fileno())

    def delete(self, version: int) -> None:
        self.path(version).unlink(missing_ok=True)

    def describe(self) -> str:
        return f"key file in {self._dir} (mode 0600)"


def keyring_usable() -> bool:
    """A keyring backend that is not the fail or null backend, and that accepts a probe write."""
    if os.environ.get("MEMVET_KEY_PROVIDER") == "file":
        return False
    try:
        import keyring
        from keyring.backends import fail, null
    except Exception:  # noqa: BLE001 - any import failure means no keyring
        return False
    try:
        backend = keyring.get_keyring()
        if isinstance(backend, (fail.Keyring, null.Keyring)) or backend.priority <= 0:
            return False
        keyring.set_password(SERVICE, "probe", "ok")
        keyring.delete_password(SERVICE, "probe")
        return True
    except Exception:  # noqa: BLE001 - a backend that errors is not usable
        return False


def provider_named(name: str, home: Path) -> KeyProvider:
    if name == "keyring":
        return KeyringProvider(home)
    if name == "file":
        return FileKeyProvider(home / "keys")
    raise StoreUnavailableError(
        f"unknown key provider {name!r} recorded in the store", code="key_provider_unknown"
    )


def choose_provider(home: Path) -> KeyProvider:
    """For a new store only: the keyring when one works, else the key file."""
    return KeyringProvider(home) if keyring_usable() else FileKeyProvider(home / "keys")


def missing_key_error(provider: KeyProvider, version: int) -> KeyMissingError:
    where = provider.describe()
    return KeyMissingError(
        f"memvet's key (version {version}) is missing from the {provider.name} provider: {where}. "
        "Restore it from your backup (see docs/operator-guide.md, 'Keys and recovery'); "
        "without it the store cannot be read.",
        provider=provider.name,
    )
