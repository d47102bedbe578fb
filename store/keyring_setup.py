"""Loading and creating the store's keys: the data key (DEK) wrapped by the key-encryption key
(KEK) that the recorded provider holds. A wrong or missing key stops before anything is written."""

from __future__ import annotations

import secrets
from datetime import datetime
from pathlib import Path

import sqlalchemy as sa
from cryptography.exceptions import InvalidTag
from memvet.store.crypto import FieldCipher, new_key, unwrap_dek, wrap_dek
from memvet.store.engine import read_transaction, write_transaction
from memvet.store.errors import KeyWrongError
from memvet.store.keys import (
    FileKeyProvider,
    KeyProvider,
    choose_provider,
    missing_key_error,
    provider_named,
)
from memvet.store.models import KeyMaterialRow
from sqlalchemy import Engine

KM = KeyMaterialRow.__table__


def _current(conn: sa.Connection) -> sa.Row | None:
    return conn.execute(sa.select(KM).order_by(KM.c.created_at.desc()).limit(1)).first()


def _unwrap(provider: KeyProvider, row: sa.Row) -> tuple[bytes, bytes]:
    kek = provider.load(row.kek_version)
    if kek is None:
        raise missing_key_error(provider, row.kek_version)
    try:
        return kek, unwrap_dek(kek, row.wrapped_dek, row.dek_id)
    except (InvalidTag, ValueError):
        raise KeyWrongError(
            f"the key held by the {provider.name} provider ({provider.describe()}) does not open "
            "this store: it belongs to another store or was replaced. Restore the right key; "
            "nothing was written.",
            provider=provider.name,
        ) from None


def load_cipher(engine: Engine, home: Path, now: datetime) -> tuple[FieldCipher, KeyProvider]:
    """Open the existing key material, or create it for a brand-new store."""
    with read_transaction(engine) as conn:
        row = _current(conn)
    if row is not None:
        provider = provider_named(row.provider, home)
        _, dek = _unwrap(provider, row)
        return FieldCipher(dek, row.dek_id), provider
    with write_transaction(engine) as conn:
        row = _current(conn)  # another process may have created it while we waited
        if row is not None:
            provider = provider_named(row.provider, home)
            _, dek = _unwrap(provider, row)
            return FieldCipher(dek, row.dek_id), provider
        provider = choose_provider(home)
        kek, dek, dek_id = new_key(), new_key(), secrets.token_hex(4)
        provider.delete(1)  # an orphan from a store that was deleted without its key
        provider.save(1, kek)
        conn.execute(
            KM.insert().values(
                dek_id=dek_id,
                kek_version=1,
                provider=provider.name,
                wrapped_dek=wrap_dek(kek, dek, dek_id),
                created_at=now,
            )
        )
    return FieldCipher(dek, dek_id), provider


def rotate_kek(engine: Engine, home: Path, now: datetime) -> tuple[int, KeyProvider]:
    """Re-wrap the data key under a fresh KEK. Rows are untouched and stay readable."""
    with write_transaction(engine) as conn:
        row = _current(conn)
        if row is None:
            raise missing_key_error(choose_provider(home), 1)
        provider = provider_named(row.provider, home)
        _, dek = _unwrap(provider, row)
        version = row.kek_version + 1
        kek = new_key()
        provider.delete(version)
        provider.save(version, kek)
        conn.execute(
            KM.update()
            .where(KM.c.dek_id == row.dek_id)
            .values(kek_version=version, wrapped_dek=wrap_dek(kek, dek, row.dek_id), rotated_at=now)
        )
    # Only after the new wrap is durable; older leftovers of interrupted rotations go too. Never
    # a newer one here, outside the lock: it may be another rotation's, not yet committed.
    for old in [v for v in leftover_versions(provider, version) if v < version]:
        provider.delete(old)
    return version, provider


def leftover_versions(provider: KeyProvider, current: int) -> list[int]:
    """Key versions the provider holds besides the current one. A rotation killed after its
    commit leaves the old key behind; one killed before it, a new key nothing uses."""
    if isinstance(provider, FileKeyProvider):
        found = {
            int(p.name[5:]) for p in provider.directory().glob("kek-v*") if p.name[5:].isdigit()
        }
    else:  # a keyring cannot be listed: ask for every version this store can have made
        found = {v for v in range(1, current + 2) if v != current and provider.load(v)}
    return sorted(found - {current})


def finish_rotation(engine: Engine, home: Path) -> tuple[int, list[int]]:
    """Remove what an interrupted rotation left behind; returns (current version, removed).
    Under the write lock, so no rotation is half-done meanwhile, and only once the current key
    is known to open the store."""
    with write_transaction(engine) as conn:
        row = _current(conn)
        if row is None:
            raise missing_key_error(choose_provider(home), 1)
        provider = provider_named(row.provider, home)
        _unwrap(provider, row)
        removed = leftover_versions(provider, row.kek_version)
        for version in removed:
            provider.delete(version)
    return row.kek_version, removed


def key_info(engine: Engine, home: Path) -> dict[str, object]:
    with read_transaction(engine) as conn:
        row = _current(conn)
    if row is None:
        return {"provider": None, "kek_version": None}
    provider = provider_named(row.provider, home)
    return {
        "provider": row.provider,
        "where": provider.describe(),
        "kek_version": row.kek_version,
        "dek_id": row.dek_id,
        "created_at": row.created_at,
        "rotated_at": row.rotated_at,
        "leftover_versions": leftover_versions(provider, row.kek_version),
    }
