"""Connection setup, migrations and the schema-version guard."""

from __future__ import annotations

import memvet.store.models  # noqa: F401 - registers the tables on SQLModel.metadata
import sqlalchemy as sa
from memvet.store import SchemaMismatchError, open_store
from memvet.store.engine import create_store_engine
from memvet.store.migrations import MIGRATIONS, SCHEMA_VERSION
from memvet.store.schema import current_version, migrate
from sqlmodel import SQLModel
from store_internals import engine_of


def test_every_connection_has_wal_foreign_keys_and_busy_timeout(tmp_path):
    engine = create_store_engine(tmp_path / "x.db")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000


def _columns(engine: sa.Engine) -> dict[str, dict[str, tuple[str, bool]]]:
    insp = sa.inspect(engine)
    return {
        t: {c["name"]: (type(c["type"]).__name__, c["nullable"]) for c in insp.get_columns(t)}
        for t in insp.get_table_names()
    }


def test_migrating_an_empty_database_yields_exactly_the_models(tmp_path):
    migrated = create_store_engine(tmp_path / "migrated.db")
    assert migrate(migrated) == [step.__name__ for step in MIGRATIONS]
    reference = create_store_engine(tmp_path / "reference.db")
    SQLModel.metadata.create_all(reference)  # tests only: the models as the code declares them
    ref = _columns(reference)
    got = _columns(migrated)
    got.pop("store_meta")
    ref.pop("store_meta")
    assert got == ref
    assert current_version(migrated) == SCHEMA_VERSION


def test_upgrade_from_the_previous_version(tmp_path):
    (tmp_path / "h").mkdir()
    engine = create_store_engine(tmp_path / "h" / "memvet.db")
    migrate(engine, target=SCHEMA_VERSION - 1)
    assert current_version(engine) == SCHEMA_VERSION - 1
    try:
        open_store(tmp_path / "h")
    except SchemaMismatchError as exc:
        assert exc.exit_code == 3 and "memvet migrate" in exc.message
    else:
        raise AssertionError("an older store must be refused without an explicit upgrade")
    store = open_store(tmp_path / "h", schema="upgrade")
    assert current_version(engine_of(store)) == SCHEMA_VERSION
    store.record_sweep("sweep.test", store.now(), "ok")
    assert "sweep.test" in store.sweep_runs()


def test_a_newer_store_is_refused_with_exit_3(tmp_path):
    store = open_store(tmp_path / "h")
    with engine_of(store).begin() as conn:
        conn.execute(sa.text("UPDATE store_meta SET value='99' WHERE key='schema_version'"))
    store.close()
    for mode in ("create", "upgrade", "never"):
        try:
            open_store(tmp_path / "h", schema=mode)
        except SchemaMismatchError as exc:
            assert exc.exit_code == 3 and "newer" in exc.message
        else:
            raise AssertionError(mode)


def test_never_mode_does_not_create_a_schema(tmp_path):
    try:
        open_store(tmp_path / "h", schema="never")
    except SchemaMismatchError as exc:
        assert exc.code == "no_store" and "no store yet" in exc.message
    else:
        raise AssertionError("the inspector's mode must not migrate")
    assert not (tmp_path / "h").exists()


def test_optimize_gathers_planner_statistics(tmp_path):
    store = open_store(tmp_path / "h")

    def stats() -> int:
        with engine_of(store).connect() as conn:
            return conn.exec_driver_sql(
                "SELECT count(*) FROM sqlite_master WHERE name='sqlite_stat1'"
            ).scalar()

    assert stats() == 0
    store.optimize()
    assert stats() == 1
