"""The database connection. Everything SQLite-specific in memvet lives in this module."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event

BUSY_TIMEOUT_MS = 5000


def create_store_engine(path: Path) -> Engine:
    """One engine per process, connections set up for WAL, foreign keys and a busy timeout."""
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:  # noqa: ANN001
        # Trigger: every new connection. Why: pysqlite's implicit BEGIN cannot take a write
        # lock up front, so we emit BEGIN ourselves (IMMEDIATE for writers, see `begin` below).
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # Writers take the write lock at BEGIN so two processes never both read the same
        # audit-chain head or status and then race to write.
        mode = "IMMEDIATE" if conn.get_execution_options().get("memvet_write") else "DEFERRED"
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    with engine.connect() as conn:
        conn.execution_options(memvet_write=True)
        with conn.begin():
            yield conn


@contextmanager
def read_transaction(engine: Engine) -> Iterator[Connection]:
    with engine.connect() as conn, conn.begin():
        yield conn


def optimize(engine: Engine) -> None:
    """Refresh the query planner's statistics; analysis_limit bounds the work on large tables."""
    with write_transaction(engine) as conn:
        conn.exec_driver_sql("PRAGMA analysis_limit=1000")
        conn.exec_driver_sql("ANALYZE")


class ChangeSignal:
    """A cheap "did anything change?" check: SQLite's PRAGMA data_version on one long-lived
    connection changes whenever another connection commits."""

    def __init__(self, path: Path) -> None:
        import sqlite3

        self._conn = sqlite3.connect(str(path), check_same_thread=False)

    def version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        self._conn.close()
