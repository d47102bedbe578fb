"""The hook's read path without the daemon: memvet.db through `sqlite3`, fields through
`cryptography`'s AES-GCM, nothing else of the store (no SQLAlchemy, no SQLModel, no records).

Keys are derived exactly as crypto.py derives them (HKDF-SHA256 with no salt, written out with
hmac so the KDF module is not imported); the workspace filter is the blind index, the scope rule
the same as core.py's `scope_clause` (tests compare both). The daemon's context server uses the
same source and `respond`, so both paths give the same context.

Also here, because both paths need them: the per-session memo of what was already given
(MEMVET_HOME/run/hook-sessions/, 0600, bounded) and the `[hook]` budgets of config.toml.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import json
import os
import sqlite3
import stat

from memvet.store import context_pack as cp
from memvet.store.workspace import resolve_workspace

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook ~4 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, Protocol

    class Cipher(Protocol):
        def decrypt(self, table: str, column: str, row_id: str, blob: bytes | None) -> str | None: ...
        def blind_index(self, field: str, value: str | None) -> str | None: ...

    class Source(Protocol):
        def ranked(self) -> Iterable[cp.PackItem]: ...
        def fill(self, items: list[cp.PackItem]) -> None: ...
        def all_items(self) -> list[cp.PackItem]: ...

SCHEMA_VERSION = 2  # the store schema this SQL was written for; a test pins it to migrations'
HOSTS = ("claude-code", "codex")
CT_OVERHEAD = 2 + 1 + 8 + 12 + 16  # MV1 ciphertext: magic, version, dek id, nonce, tag
MAX_GIVEN = 2000  # ids remembered per session
MAX_SESSIONS = 256  # session memo files kept
BUSY_TIMEOUT_S = 0.5
COLUMNS = ("id, kind, status, source_type, importance, recorded_at, valid_from, valid_to, "
           "expires_at, length(statement_ct), length(usage_boundary_ct)")
TIER_SQL = "CASE source_type {} ELSE {} END".format(
    " ".join(f"WHEN '{k}' THEN {v}" for k, v in cp.SOURCE_TIER.items()), cp.LAST_TIER)
SCOPED_SQL = (f"FROM memories WHERE user_bidx = ? AND (workspace_bidx IS NULL OR workspace_bidx = ?)"
              f" AND status IN ('active', 'disputed') "
              f"ORDER BY {TIER_SQL}, importance DESC, recorded_at DESC, id DESC")


class FastReadError(Exception):
    """Why the hook gave nothing: a stable code, never user text."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


# --- keys ----------------------------------------------------------------------------------------
def _hkdf_sha256(key: bytes, label: str) -> bytes:
    """RFC 5869 with an empty salt and one 32-byte block: what crypto.derive_key computes."""
    prk = hmac.new(b"\0" * 32, key, hashlib.sha256).digest()
    return hmac.new(prk, label.encode() + b"\x01", hashlib.sha256).digest()


def aesgcm_class() -> type:
    """cryptography's AESGCM, taken from the Rust binding that the public `ciphers.aead` module
    re-exports: importing the binding alone skips ~10 ms of pure-Python cipher modules and
    `typing`. A test checks both names are the same class; the public path is the fallback."""
    try:
        from cryptography.hazmat.bindings._rust import openssl

        return openssl.aead.AESGCM
    except (ImportError, AttributeError):
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        return AESGCM


class FastCipher:
    """Decrypts MV1 fields and computes blind indexes, like crypto.FieldCipher (read side only)."""

    def __init__(self, dek: bytes) -> None:
        self._aead = aesgcm_class()(dek)
        self._bidx_key = _hkdf_sha256(dek, "memvet/bidx/v1")

    def decrypt(self, table: str, column: str, row_id: str, blob: bytes | None) -> str | None:
        if blob is None:
            return None
        if blob[:3] != b"MV\x01":
            raise FastReadError("integrity")
        aad = f"memvet/field/v1\x1f{table}\x1f{column}\x1f{row_id}".encode()
        try:
            return self._aead.decrypt(blob[11:23], blob[23:], aad).decode("utf-8")
        except Exception:  # InvalidTag: altered, moved, or another key
            raise FastReadError("integrity") from None

    def blind_index(self, field: str, value: str | None) -> str | None:
        if value is None:
            return None
        return hmac.new(self._bidx_key, f"{field}\x1f{value}".encode(), hashlib.sha256).hexdigest()


def home_dir() -> str:
    env = os.environ.get("MEMVET_HOME")
    if env:
        return os.path.expanduser(env)
    from memvet.store.paths import memvet_home  # platformdirs: only when MEMVET_HOME is unset

    return str(memvet_home())


def _load_kek(provider: str, version: int, home: str) -> bytes:
    if provider == "file":
        path = os.path.join(home, "keys", f"kek-v{version}")
        try:
            with open(path, "rb") as handle:
                if os.fstat(handle.fileno()).st_mode & (stat.S_IRWXG | stat.S_IRWXO):
                    raise FastReadError("key_file_mode")
                return binascii.a2b_base64(handle.read().strip())
        except FileNotFoundError:
            raise FastReadError("key_missing") from None
    if provider == "keyring":  # imported only for a store whose key the keyring holds
        import keyring

        try:
            value = keyring.get_password("memvet", f"kek-v{version}:{os.path.realpath(home)}")
        except Exception:  # locked or unavailable
            raise FastReadError("keyring_unavailable") from None
        if value is None:
            raise FastReadError("key_missing")
        return binascii.a2b_base64(value)
    raise FastReadError("key_provider_unknown")


def open_direct(home: str) -> tuple[sqlite3.Connection, FastCipher]:
    """The store file and its data key, read-only. Raises FastReadError with a code."""
    path = os.path.join(home, "memvet.db")
    if not os.path.isfile(path):
        raise FastReadError("no_store")
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        conn.execute("PRAGMA query_only = ON")
        meta = conn.execute("SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone()
        if meta is None or int(meta[0]) != SCHEMA_VERSION:
            raise FastReadError("schema_mismatch")
        row = conn.execute("SELECT provider, kek_version, dek_id, wrapped_dek FROM key_material "
                           "ORDER BY created_at DESC LIMIT 1").fetchone()
        if row is None:
            raise FastReadError("key_missing")
        provider, version, dek_id, wrapped = row
        kek = _load_kek(provider, version, home)
        try:
            dek = aesgcm_class()(kek).decrypt(wrapped[:12], wrapped[12:], b"memvet/dek/v1:" + dek_id.encode())
        except Exception:
            raise FastReadError("key_wrong") from None
        return conn, FastCipher(dek)
    except BaseException:
        conn.close()
        raise


def current_user() -> str:
    """getpass.getuser() without importing getpass: the store keys its user the same way."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        user = os.environ.get(name)
        if user:
            return user
    import pwd

    return pwd.getpwuid(os.getuid())[0]


# --- the memories in scope ------------------------------------------------------------------------
def _item(row: tuple) -> cp.PackItem:
    return cp.PackItem(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                       row[9] - CT_OVERHEAD, (row[10] or CT_OVERHEAD) - CT_OVERHEAD)


class DirectSource:
    """Active and disputed memories of one scope, straight from SQL, best first."""

    def __init__(self, conn: sqlite3.Connection, cipher: Cipher, user: str,
                 workspace: str | None) -> None:
        self.conn, self.cipher = conn, cipher
        self.params = (cipher.blind_index("user", user), cipher.blind_index("workspace", workspace))

    def ranked(self) -> Iterator[cp.PackItem]:
        """Lengths only: nothing is decrypted until `fill`."""
        return (_item(r) for r in self.conn.execute(f"SELECT {COLUMNS} {SCOPED_SQL}", self.params))

    def _decrypt(self, item: cp.PackItem, statement: bytes, boundary: bytes | None) -> None:
        item.statement = self.cipher.decrypt("memories", "statement", item.id, statement)
        item.boundary = self.cipher.decrypt("memories", "usage_boundary", item.id, boundary)

    def fill(self, items: list[cp.PackItem]) -> None:
        by_id = {item.id: item for item in items}
        marks = ",".join("?" * len(by_id))
        for rid, statement, boundary in self.conn.execute(
                f"SELECT id, statement_ct, usage_boundary_ct FROM memories WHERE id IN ({marks})",
                list(by_id)):
            self._decrypt(by_id[rid], statement, boundary)

    def all_items(self) -> list[cp.PackItem]:
        """Everything in scope, decrypted, best first (user-prompt-submit needs every text)."""
        items = []
        for row in self.conn.execute(f"SELECT {COLUMNS}, statement_ct, usage_boundary_ct "
                                     f"{SCOPED_SQL}", self.params):
            item = _item(row)
            self._decrypt(item, row[11], row[12])
            items.append(item)
        return items


# --- what was already given this session -----------------------------------------------------------
def session_file(home: str, session_id: Any) -> str | None:
    if not isinstance(session_id, str) or not session_id:
        return None
    name = "".join(c for c in session_id if c.isalnum() or c in "-_")[:80]
    if name != session_id:  # odd ids are hashed, never used as a path as they are
        name = hashlib.sha256(session_id.encode()).hexdigest()[:40]
    return os.path.join(home, "run", "hook-sessions", name)


def load_given(path: str | None) -> set[str]:
    if path is None:
        return set()
    try:
        with open(path, encoding="ascii") as handle:
            return {line.strip() for line in handle if line.strip()}
    except (FileNotFoundError, UnicodeDecodeError):
        return set()


def save_given(path: str, ids: list[str], *, prune: bool = False) -> None:
    """Atomic replace, 0600; keeps the newest MAX_GIVEN ids and MAX_SESSIONS files."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write("\n".join(list(dict.fromkeys(ids))[-MAX_GIVEN:]) + "\n")
    os.replace(tmp, path)
    if prune:
        entries = [e for e in os.scandir(folder) if e.is_file()]
        if len(entries) > MAX_SESSIONS:
            entries.sort(key=lambda e: e.stat().st_mtime)
            for entry in entries[:len(entries) - MAX_SESSIONS]:
                os.unlink(entry.path)


# --- the answer -------------------------------------------------------------------------------------
def _tokens(value: Any, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return max(0, min(value, cp.MAX_TOKENS))
    return default


def hook_budgets(home: str) -> dict[str, int]:
    """`[hook] session_start_tokens` / `prompt_tokens` in config.toml (0 turns an event off).
    A broken file falls back to the defaults: the hook never fails the host."""
    budgets = {"session-start": cp.SESSION_START_TOKENS, "user-prompt-submit": cp.PROMPT_TOKENS}
    try:
        with open(os.path.join(home, "config.toml"), "rb") as handle:
            import tomllib

            section = tomllib.load(handle).get("hook", {})
    except (OSError, ValueError):
        return budgets
    if isinstance(section, dict):
        budgets["session-start"] = _tokens(section.get("session_start_tokens"),
                                           budgets["session-start"])
        budgets["user-prompt-submit"] = _tokens(section.get("prompt_tokens"),
                                                budgets["user-prompt-submit"])
    return budgets


def respond(source: Source, event: str, payload: dict[str, Any], home: str,
            now: str) -> str | None:
    """The hook's stdout for one event, or None for no output."""
    budget = hook_budgets(home)[event]
    if budget <= 0:
        return None
    memo = session_file(home, payload.get("session_id"))
    if event == "session-start":
        given = load_given(memo) if payload.get("source") == "resume" else set()
        chosen, left_out = cp.choose(source.ranked(), budget, event, now)
    else:
        prompt = payload.get("prompt")
        if not isinstance(prompt, str):
            return None
        given = load_given(memo)
        chosen, left_out = cp.choose(cp.relevant(source.all_items(), prompt, given, now),
                                     budget, event, now)
        left_out = 0  # a prompt adds what matches; no footer about the rest
    if not chosen:
        return None
    source.fill(chosen)
    if memo is not None:
        save_given(memo, [*given, *(item.id for item in chosen)], prune=event == "session-start")
    return cp.hook_output(event, cp.render(event, chosen, left_out))


def parse_request(host: str, event: str, raw: bytes) -> tuple[dict[str, Any], str | None]:
    """The host's hook JSON and the workspace it runs in (git root of its cwd)."""
    if host not in HOSTS or event not in cp.EVENT_NAMES:
        raise FastReadError("usage")
    try:
        payload = json.loads(raw)
    except ValueError:
        raise FastReadError("bad_input") from None
    if not isinstance(payload, dict):
        raise FastReadError("bad_input")
    cwd = payload.get("cwd")
    return payload, resolve_workspace(cwd if isinstance(cwd, str) and cwd else os.getcwd())


def answer(host: str, event: str, raw: bytes, home: str,
           open_source: Callable[[str | None], Source], now: str) -> str | None:
    payload, workspace = parse_request(host, event, raw)
    return respond(open_source(workspace), event, payload, home, now)
