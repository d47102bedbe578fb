"""The database connection. Everything SQLite-specific in memvet lives in this module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memvet.store.errors import StoreDamagedError
from sqlalchemy import Connection, Engine, create_engine, event

BUSY_TIMEOUT_MS = 5000


def private_store_files(path: Path) -> None:
    """The database file is created 0600 before SQLite opens it; SQLite gives its -wal and -shm
    files the database file's mode, so they are 0600 too. A store an older memvet created more
    open is tightened (the 0700 folder alone protected it)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:  # it exists (or its folder does not: SQLite says so on connect)
        pass
    else:
        os.close(fd)
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if file.stat().st_mode & 0o077:
                os.chmod(file, 0o600)
        except OSError:  # absent, or not ours to change: SQLite reports what matters
            pass


# What SQLite says of a file that is no database, or a damaged one (sqlite3.DatabaseError).
DAMAGE_MARKERS = (
    "file is not a database",
    "database disk image is malformed",
    "malformed database schema",
    "database corrupt",
)


def damage_of(exc: BaseException) -> str | None:
    """SQLite's words for a damaged file, or None when the error is something else."""
    text = str(exc).lower()
    return next((marker for marker in DAMAGE_MARKERS if marker in text), None)


def damaged_store_error(path: Path, problem: str) -> StoreDamagedError:
    """One line: what is wrong, where a copy is (if one lies beside it), what to run."""
    copies = sorted(
        p.name
        for p in path.parent.glob(path.name + "*")
        if not p.name.endswith(("-wal", "-shm", "-journal")) and p != path
    )
    backup = (
        f"A copy lies beside it ({', '.join(copies)}); restore one in its place"
        if copies
        else "No copy of it lies beside it; restore it from your own backup"
    )
    return StoreDamagedError(
        f"the store {path} is damaged (SQLite: {problem}); nothing was changed. {backup} (the "
        "key in MEMVET_HOME/keys or the keyring still opens it), or move it aside and run "
        "`memvet up` to start an empty store; `memvet doctor --deep` checks a store",
        path=str(path),
        problem=problem,
    )


def create_store_engine(path: Path) -> Engine:
    """One engine per process, connections set up for WAL, foreign keys and a busy timeout."""
    private_store_files(path)
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

    @event.listens_for(engine, "handle_error")
    def _on_error(context) -> None:  # noqa: ANN001
        # A damaged file surfaces as whichever statement touches it first: one clear error.
        problem = damage_of(context.original_exception)
        if problem is not None:
            raise damaged_store_error(path, problem) from None

    @event.listens_for(engine, "handle_error")
    def _on_busy(context) -> None:  # noqa: ANN001
        # Past the busy timeout: say who holds the store, not SQLite's "database is locked".
        from memvet.store.busy import busy_error, is_busy

        if is_busy(context.original_exception):
            raise busy_error(path, BUSY_TIMEOUT_MS / 1000) from None

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
