"""One member's open session on the team server: the connection, the member's private key
and the team keys it can open. Every write runs in `write()`: one transaction that first locks
the team's row, so team writes are serial (change numbers follow commit order, which sync
relies on) and a key rotation never races a write made under the old key."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memvet.store import row_mac
from memvet.store.crypto import FieldCipher, unwrap_dek
from memvet.store.errors import IntegrityError
from memvet.store.team.config import Secrets, TeamConfig, load_config
from memvet.store.team.errors import no_team_key
from memvet.store.team.schema import check_version
from memvet.store.team.server import connect
from memvet.store.team.wrapping import open_sealed, wrap_context

NOTIFY_CHANNEL = "memvet_team"
# table -> sealed columns, in MAC order (the team's own row MACs, under the team key)
SEALED = {
    "teams": ("key_version", "key_id", "personal"),
    "team_candidates": (
        "status",
        "kind",
        "polarity",
        "statement_key",
        "workspace_bidx",
        "proposed_by",
        "decided_by",
        "memory_id",
    ),
    "team_memories": (
        "candidate_id",
        "status",
        "kind",
        "polarity",
        "statement_key",
        "workspace_bidx",
        "approved_by",
    ),
    "team_tombstones": ("statement_key", "workspace_bidx", "reason", "source_id", "created_by"),
}


def now() -> datetime:
    return datetime.now(UTC)


def row_seal(cipher: FieldCipher, table: str, row_id: str, row: dict) -> str:
    return row_mac.mac(cipher.row_key, table, row_id, [row.get(c) for c in SEALED[table]])


def check_seal(cipher: FieldCipher, table: str, row_id: str, row: dict) -> None:
    if row.get("row_mac") != row_seal(cipher, table, row_id, row):
        raise IntegrityError(
            f"{table} row {row_id} failed its team MAC: changed without the "
            "team key (or by a removed member)"
        )


class TeamSession:
    def __init__(self, home: Path, config: TeamConfig, conn) -> None:  # noqa: ANN001
        self.home, self.config, self.conn = home, config, conn
        self.secrets = Secrets(home, config.secret_provider)
        self._ciphers: dict[int, FieldCipher] = {}
        self.keys: dict[int, bytes] = {}  # key version -> raw team key (the chain wraps raw keys)
        self.key_version = 0

    @property
    def team_id(self) -> str:
        return self.config.team_id

    @property
    def member_id(self) -> str:
        return self.config.member_id

    def private_key(self) -> bytes:
        key = self.secrets.get("member-key")
        if key is None:
            raise no_team_key(self.member_id, "key_missing")
        return key

    # --- keys ------------------------------------------------------------------------------
    def cipher(self, version: int | None = None) -> FieldCipher:
        """The team cipher of `version` (default: the current one), opened with this member's
        wrap of the current key and, for older versions, the key chain."""
        if not self._ciphers:
            self._load_keys()
        version = self.key_version if version is None else version
        found = self._ciphers.get(version)
        if found is None:
            raise IntegrityError(f"team key version {version} is not in the key chain")
        return found

    def _load_keys(self) -> None:
        team = self.conn.execute(
            "SELECT key_version, key_id FROM teams WHERE id = %s", (self.team_id,)
        ).fetchone()
        member = self.conn.execute(
            "SELECT status FROM team_members WHERE team_id = %s AND id = %s",
            (self.team_id, self.member_id),
        ).fetchone()
        status = member[0] if member else "removed"
        wrap = self.conn.execute(
            "SELECT wrapped FROM team_key_wraps WHERE team_id = %s AND member_id = %s AND "
            "key_version = %s",
            (self.team_id, self.member_id, team[0]),
        ).fetchone()
        key = (
            None
            if wrap is None
            else open_sealed(
                self.private_key(), wrap[0], wrap_context(self.team_id, self.member_id, team[0])
            )
        )
        if key is None or status != "admitted":
            raise no_team_key(self.member_id, status)
        self.key_version = team[0]
        self.keys = {team[0]: key}
        self._ciphers = {team[0]: FieldCipher(key, team[1])}
        chain = self.conn.execute(
            "SELECT key_version, key_id, wrapped_by_next FROM team_key_chain WHERE team_id = %s "
            "ORDER BY key_version DESC",
            (self.team_id,),
        ).fetchall()
        for version, key_id, wrapped in chain:  # each older key, wrapped by the next one
            self.keys[version] = unwrap_dek(self.keys[version + 1], wrapped, key_id)
            self._ciphers[version] = FieldCipher(self.keys[version], key_id)

    def adopt_key(self, version: int, key: bytes, key_id: str) -> None:
        """The key this member just made (create, rotation): no server round trip."""
        self.key_version = version
        self.keys[version] = key
        self._ciphers[version] = FieldCipher(key, key_id)

    def forget_keys(self) -> None:
        self._ciphers, self.keys = {}, {}

    # --- transactions ----------------------------------------------------------------------
    @contextmanager
    def write(self) -> Iterator[Any]:
        """One transaction holding the team's row lock; reloads the keys if a rotation
        committed while this member was away."""
        with self.conn.transaction():
            version = self.conn.execute(
                "SELECT key_version FROM teams WHERE id = %s FOR UPDATE", (self.team_id,)
            ).fetchone()[0]
            if version != self.key_version:
                self.forget_keys()
            yield self.conn

    def notify(self) -> None:
        self.conn.execute("SELECT pg_notify(%s, %s)", (NOTIFY_CHANNEL, self.team_id))

    def close(self) -> None:
        self.conn.close()


def open_session(home: Path, *, check_schema: bool = True) -> TeamSession:
    config = load_config(home)
    secrets = Secrets(home, config.secret_provider)
    conn = connect(config.url, secrets.password())
    try:
        if check_schema:
            check_version(conn)
    except BaseException:
        conn.close()
        raise
    return TeamSession(home, config, conn)
