"""Schema migrations: an append-only list, each step a function named mNNN_<what>.

Each step defines the tables it creates as they were at that version (frozen here, never
imported from models.py), so replaying history always yields the same schema. The current
version is kept in `store_meta.schema_version`. Never edit a released step; append a new one.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from memvet.store.initial_schema import create_tables, m001_initial
from sqlalchemy import Connection
from sqlmodel.sql.sqltypes import UTCDateTime

MIGRATIONS: list[Callable[[Connection], None]] = []
migration = MIGRATIONS.append


# Step 1, the schema as first released, is long enough for a module of its own.
migration(m001_initial)


@migration
def m002_sweep_runs(conn: Connection) -> None:
    """The last successful run of each daemon sweep, shown by `memvet daemon status`."""
    md = sa.MetaData()
    create_tables(
        conn,
        sa.Table(
            "sweep_runs",
            md,
            sa.Column("job_id", sa.String(length=64), primary_key=True),
            sa.Column("last_success_at", UTCDateTime(), nullable=False),
            sa.Column("last_result", sa.String(length=256), nullable=False),
        ),
    )


# Reserved order of the next steps (each helper appends its step HERE, in this order, and
# removes its placeholder line; the step's number is its position in MIGRATIONS):


def keyed(step: Callable) -> Callable:
    """Marks a step that needs the store's cipher (it re-derives keyed values): `migrate` calls
    it as step(conn, cipher), with cipher None on a brand-new store (no rows, no key yet)."""
    step.keyed = True  # type: ignore[attr-defined]
    return step


@migration
def m003_row_mac(conn: Connection) -> None:
    """Issue 9: a MAC over each row's lifecycle, scope and validity columns (row_mac.py), and
    the entity's MAC after each audit event (`state_mac`), so that a change without the key is
    detected on read and by `memvet audit verify`. The MACs need the key: `migrate` computes
    them after the last step (sealing.seal_after_migration), in that step's transaction."""
    for table in ("memories", "candidates", "tombstones"):
        conn.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN row_mac VARCHAR(64)"))
    conn.execute(sa.text("ALTER TABLE audit_events ADD COLUMN state_mac VARCHAR(64)"))


@migration
@keyed
def m004_norm2_keys(conn: Connection, cipher) -> None:  # noqa: ANN001
    """Tombstones are found by statement and scope, whatever the kind (statement_key,
    workspace_bidx), and every content key is re-derived with the norm2 canonicalisation."""
    from memvet.store.norm2_rekey import rekey_norm2

    conn.execute(sa.text("ALTER TABLE tombstones ADD COLUMN statement_key VARCHAR(64)"))
    conn.execute(sa.text("ALTER TABLE tombstones ADD COLUMN workspace_bidx VARCHAR(64)"))
    conn.execute(sa.text("CREATE INDEX ix_tombstones_statement_key ON tombstones (statement_key)"))
    rekey_norm2(conn, cipher)


@migration
@keyed
def m005_evidence_identity(conn: Connection, cipher) -> None:  # noqa: ANN001
    """Issue 9: evidence identified by (file identity, line, message id), so that a transcript
    read again adds none (evidence_identity.py); keys for existing rows are computed here."""
    _add_column(conn, "evidence", sa.Column("identity_key", sa.String(length=64)), index=True)
    if cipher is not None:
        from memvet.store.evidence_identity import backfill_identities

        backfill_identities(conn, cipher)


def _add_column(conn: Connection, table: str, column: sa.Column, *, index: bool = False) -> None:
    """ALTER TABLE … ADD COLUMN in the connection's own dialect (SQLite and PostgreSQL alike)."""
    kind = column.type.compile(dialect=conn.dialect)
    conn.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN {column.name} {kind}"))
    if index:
        conn.execute(sa.text(f"CREATE INDEX ix_{table}_{column.name} ON {table} ({column.name})"))


@migration
def m006_subjects(conn: Connection) -> None:
    """Issue 13: what each candidate and memory is about (encrypted subject, with a blind index
    so a slot is found without decrypting the scope) and the keep-both mark of compatible
    memories of one slot. Subjects of older rows are derived from their statement when read
    (slots.py). Valid-from of memories approved from now on is the evidence time; older rows keep
    theirs (valid_from is sealed by the row MAC, which a migration cannot recompute)."""
    for table in ("candidates", "memories"):
        _add_column(conn, table, sa.Column("subject_ct", sa.LargeBinary()))
        _add_column(conn, table, sa.Column("subject_bidx", sa.String(length=64)), index=True)
    _add_column(conn, "memories", sa.Column("compatible_key", sa.String(length=40)))


PACK_TIER_SQL = (
    "CASE source_type WHEN 'operator' THEN 0 WHEN 'explicit_user' THEN 1 "
    "WHEN 'import' THEN 2 WHEN 'model_inference' THEN 3 ELSE 4 END"
)


@migration
@keyed
def m007_term_index(conn: Connection, cipher) -> None:  # noqa: ANN001
    """Issue 15: blind-token postings for recall (term_index.py: keyed HMACs of each memory's
    terms), kept current by triggers; existing memories are indexed here, in this step. And the
    session-start hook's two reads from indexes: the pack's first page in rank order
    (fast_read.SCOPED_SQL's ORDER BY, expression for expression: a test compares them) and the
    footer's count."""
    from memvet.store import term_index
    from memvet.store.term_reindex import index_all

    for sql in term_index.SCHEMA_SQL:
        conn.exec_driver_sql(sql)
    conn.exec_driver_sql(
        f"CREATE INDEX ix_memories_pack_order ON memories (user_bidx, "
        f"{PACK_TIER_SQL}, importance DESC, recorded_at DESC, id DESC)"
    )
    conn.exec_driver_sql(
        "CREATE INDEX ix_memories_in_force ON memories (user_bidx, status, "
        "workspace_bidx, valid_from, valid_to, expires_at)"
    )
    # The daemon's packs follow changes by updated_at (context_server._update_packs).
    conn.exec_driver_sql("CREATE INDEX ix_memories_updated_at ON memories (updated_at)")
    if cipher is not None:
        index_all(conn, cipher)


@migration
def m008_team(conn: Connection) -> None:
    """Issue 16: the team store's local side (store/team/): the outbox of team writes made
    while the server was away, the links from team rows to local memories (idempotent sync),
    the sync cursors, and which local folder is the workspace of which git remote."""
    md = sa.MetaData()
    create_tables(
        conn,
        sa.Table(
            "team_outbox",
            md,
            sa.Column("seq", sa.Integer(), primary_key=True),
            sa.Column("op", sa.String(length=24), nullable=False),
            sa.Column("item_id", sa.String(length=48), nullable=False, unique=True),
            sa.Column("payload_ct", sa.LargeBinary(), nullable=False),
            sa.Column("created_at", UTCDateTime(), nullable=False),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.Column("last_error", sa.String(length=64)),
        ),
        sa.Table(
            "team_links",
            md,
            sa.Column("team_item_id", sa.String(length=48), primary_key=True),
            sa.Column("team_id", sa.String(length=40), nullable=False),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("state", sa.String(length=16), nullable=False, index=True),
            sa.Column("local_memory_id", sa.String(length=48), index=True),
            sa.Column("payload_ct", sa.LargeBinary()),
            sa.Column("updated_at", UTCDateTime(), nullable=False),
        ),
        sa.Table(
            "team_sync_state",
            md,
            sa.Column("key", sa.String(length=64), primary_key=True),
            sa.Column("value", sa.String(length=256), nullable=False),
        ),
        sa.Table(
            "team_workspaces",
            md,
            sa.Column("remote_bidx", sa.String(length=64), primary_key=True),
            sa.Column("remote_ct", sa.LargeBinary(), nullable=False),
            sa.Column("path_ct", sa.LargeBinary(), nullable=False),
        ),
    )


@migration
def m009_list_order(conn: Connection) -> None:
    """Issue 15: indexes in the order the lists page in (read_layer.py, keyset `--after`), so
    a first page at 100k rows is read from the index instead of sorting the whole scope: the
    queue oldest first, memories of one status newest first."""
    conn.execute(
        sa.text("CREATE INDEX ix_candidates_list_order ON candidates (user_bidx, created_at, id)")
    )
    conn.execute(
        sa.text(
            "CREATE INDEX ix_memories_list_order "
            "ON memories (user_bidx, status, recorded_at DESC, id)"
        )
    )


@migration
def m010_recency_order(conn: Connection) -> None:
    """Issue 15: memories in recall's neighbour order, newest first then by id, so the
    contradiction pass finds a common word's newest holders by walking this index to its
    limit (recall_index._WALK_SQL) instead of sorting every posting of the word; recorded_at
    alone ties a whole bulk import."""
    conn.execute(sa.text("CREATE INDEX ix_memories_recency ON memories (recorded_at DESC, id)"))


@migration
def m011_memory_versions(conn: Connection) -> None:
    """Issue 13: an approved memory can be edited in place (memory_edit.py); what each edit
    replaced is kept whole, encrypted as one field, so undo puts it back."""
    conn.execute(
        sa.text(
            "CREATE TABLE memory_versions (id VARCHAR(64) NOT NULL PRIMARY KEY, "
            "memory_id VARCHAR(48) NOT NULL REFERENCES memories (id), "
            "edited_at DATETIME NOT NULL, actor VARCHAR(200) NOT NULL, undone_at DATETIME, "
            "previous_ct BLOB NOT NULL)"
        )
    )
    conn.execute(
        sa.text("CREATE INDEX ix_memory_versions_memory_id ON memory_versions (memory_id)")
    )


@migration
def m012_memory_counts(conn: Connection) -> None:
    """Issue 15: memories per scope and status, and memories per blind term, kept by triggers
    in the writing statement's transaction (memory_counts.py), so the hooks count a scope or
    a term without a COUNT over it; the counts of the rows already there are taken here."""
    from memvet.store import memory_counts

    for sql in (*memory_counts.SCHEMA_SQL, *memory_counts.TERM_SCHEMA_SQL, *memory_counts.FILL_SQL):
        conn.exec_driver_sql(sql)


# (reviewer-decision features of issue 12 live in an encrypted file written by learning.py)

SCHEMA_VERSION = len(MIGRATIONS)
