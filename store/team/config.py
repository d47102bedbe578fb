"""This home's membership: MEMVET_HOME/team.json (server address without its password, team
and member ids), the member's X25519 private key and the server password — both kept like the
store key: in the OS keyring when one works, else in a 0600 file under MEMVET_HOME/keys."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from memvet.store.config_file import ConfigError, validated
from memvet.store.keys import SERVICE, keyring_usable
from memvet.store.paths import ensure_private_dir
from memvet.store.team.errors import not_configured
from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr, field_validator


class TeamConfig(BaseModel):
    """MEMVET_HOME/team.json; a file that does not fit is a ConfigError naming the key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: StrictStr  # without a password
    team_id: StrictStr
    member_id: StrictStr
    name: StrictStr
    personal: StrictBool
    secret_provider: StrictStr  # "keyring" or "file"

    @field_validator("secret_provider")
    @classmethod
    def _a_provider(cls, value: str) -> str:
        if value not in ("keyring", "file"):
            raise ValueError('"keyring" or "file"')
        return value

    def where(self) -> str:
        return server_label(self.url)


def split_password(url: str) -> tuple[str, str | None]:
    """The URL without its password, and the password (None when it has none)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        from memvet.store.errors import UsageError

        raise UsageError(
            "a team server URL starts with postgresql:// (postgresql://USER@HOST:PORT/DATABASE)"
        )
    if parts.password is None:
        return url, None
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc[1]}")), unquote(parts.password)


def server_label(url: str) -> str:
    """host:port/database: what messages and status show of a server, never more."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    return f"{host}:{parts.port or 5432}{parts.path or '/'}"


def _path(home: Path) -> Path:
    return home / "team.json"


def load_config(home: Path) -> TeamConfig:
    path = _path(home)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise not_configured() from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc})", file=str(path)) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must be a JSON object", file=str(path))
    return validated(TeamConfig, data, path)


def maybe_config(home: Path) -> TeamConfig | None:
    return load_config(home) if _path(home).is_file() else None


def save_config(home: Path, config: TeamConfig) -> None:
    ensure_private_dir(home)
    tmp = _path(home).with_suffix(".tmp")
    tmp.write_text(json.dumps(config.model_dump(), indent=2))
    os.chmod(tmp, 0o600)
    tmp.replace(_path(home))


def choose_secret_provider() -> str:
    return "keyring" if keyring_usable() else "file"


class Secrets:
    """The member key and the server password of one home, in the recorded provider."""

    def __init__(self, home: Path, provider: str) -> None:
        self._home, self.provider = home, provider

    def _account(self, what: str) -> str:
        return f"team-{what}:{self._home.resolve()}"

    def _file(self, what: str) -> Path:
        return self._home / "keys" / f"team-{what}"

    def get(self, what: str) -> bytes | None:
        if self.provider == "keyring":
            import keyring
            from keyring.errors import KeyringError

            try:
                value = keyring.get_password(SERVICE, self._account(what))
            except KeyringError as exc:
                from memvet.store.errors import KeyringLockedError

                raise KeyringLockedError(
                    f"the OS keyring holds this home's team {what} but cannot be read "
                    f"({type(exc).__name__}); unlock it (log in to the desktop session) and "
                    "try again",
                    provider="keyring",
                ) from None
            return None if value is None else base64.b64decode(value)
        try:
            return base64.b64decode(self._file(what).read_bytes().strip())
        except FileNotFoundError:
            return None

    def put(self, what: str, value: bytes) -> None:
        encoded = base64.b64encode(value).decode()
        if self.provider == "keyring":
            import keyring

            keyring.set_password(SERVICE, self._account(what), encoded)
            return
        path = self._file(what)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(encoded.encode() + b"\n")
        tmp.replace(path)

    def password(self) -> str | None:
        value = self.get("db-password")
        return None if value is None else value.decode()
