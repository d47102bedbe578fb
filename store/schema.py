"""Applying migrations and checking the schema version a process expects."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from memvet.store.engine import write_transaction
from memvet.store.errors import SchemaMismatchError
from memvet.store.migrations import MIGRATIONS, SCHEMA_VERSION
from memvet.store.sealing import before_migration, seal_after_migration
from sqlalchemy import Engine


def current_version(engine: Engine) -> int:
    """0 for an empty database, else the version recorded by the last applied migration."""
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table("store_meta"):
            return 0
        value = conn.execute(
            sa.text("SELECT value FROM store_meta WHERE key='schema_version'")
        ).scalar()
    return int(value) if value is not None else 0


def migrate(engine: Engine, *, target: int = SCHEMA_VERSION, cipher=None) -> list[str]:  # noqa: ANN001
    """Apply every missing step up to `target`, each in its own transaction. Returns their names.
    `cipher`: the store's, for the keyed steps (migrations.keyed); None on a brand-new store."""
    applied = []
    version = current_version(engine)
    last = min(target, len(MIGRATIONS))
    before: tuple[set, set] = (set(), set())
    if version < last:
        with write_transaction(engine) as conn:
            before = before_migration(conn, cipher)
    for number, step in enumerate(MIGRATIONS[:target], start=1):
        if number <= version:
            continue
        with write_transaction(engine) as conn:
            # Re-check under the write lock: another process may have migrated meanwhile.
            if number <= _version_in(conn):
                continue
            keyed: Any = step  # migrations.keyed steps also take the cipher
            keyed(conn, cipher) if getattr(step, "keyed", False) else step(conn)
            if number == last:  # row MACs need the key: computed once, after every step
                seal_after_migration(conn, cipher, *before)
            _record_version(conn, number)
        applied.append(step.__name__)
    return applied


def _version_in(conn: sa.Connection) -> int:
    if not sa.inspect(conn).has_table("store_meta"):
        return 0
    value = conn.execute(
        sa.text("SELECT value FROM store_meta WHERE key='schema_version'")
    ).scalar()
    return int(value) if value is not None else 0


def _record_version(conn: sa.Connection, number: int) -> None:
    now = datetime.now(UTC).isoformat()
    conn.execute(sa.text("DELETE FROM store_meta WHERE key IN ('schema_version', 'migrated_at')"))
    conn.execute(
        sa.text(
            "INSERT INTO store_meta (key, value) VALUES ('schema_version', :v), ('migrated_at', :t)"
        ),
        {"v": str(number), "t": now},
    )


def _mark_redacted_by_current_rules(engine: Engine) -> None:
    """A new store holds no text redacted by older rules: nothing for the re-redaction sweep to
    do, nothing for the hook to re-check (store/redaction_sweep.py)."""
    from memvet.store.redaction_version import RULESET_VERSION

    with write_transaction(engine) as conn:
        conn.execute(
            sa.text(
                "INSERT INTO store_meta (key, value) SELECT 'redaction_ruleset', :v WHERE NOT EXISTS "
                "(SELECT 1 FROM store_meta WHERE key = 'redaction_ruleset')"
            ),
            {"v": RULESET_VERSION},
        )


def _mark_indexed_by_current_vocabulary(engine: Engine) -> None:
    """A new store has no postings built under an older vocabulary (store/term_vocabulary.py): an
    upgraded one has no stamp, and its memories are re-indexed once by the daemon's sweep."""
    from memvet.store.term_reindex import record_vocabulary

    with write_transaction(engine) as conn:
        record_vocabulary(conn)


def ensure_schema(engine: Engine, *, mode: str, cipher=None) -> int:  # noqa: ANN001
    """mode: "create" migrates an empty database only; "upgrade" also upgrades an older one;
    "never" only checks. Any other version mismatch stops with exit 3 and says what to run."""
    version = current_version(engine)
    if version == SCHEMA_VERSION:
        return version
    if version == 0 and mode in ("create", "upgrade"):
        migrate(engine)
        _mark_redacted_by_current_rules(engine)
        _mark_indexed_by_current_vocabulary(engine)
        return SCHEMA_VERSION
    if version < SCHEMA_VERSION and mode == "upgrade":
        migrate(engine, cipher=cipher)
        return SCHEMA_VERSION
    if version < SCHEMA_VERSION:
        raise SchemaMismatchError(
            f"the store is at schema version {version} and this memvet expects {SCHEMA_VERSION}; "
            "run `memvet migrate` (or start the daemon, which upgrades it)",
            found=version,
            expected=SCHEMA_VERSION,
        )
    raise SchemaMismatchError(
        f"the store is at schema version {version}, newer than this memvet ({SCHEMA_VERSION}); "
        "upgrade memvet (`pip install -U memvet`) before using this store",
        found=version,
        expected=SCHEMA_VERSION,
    )
