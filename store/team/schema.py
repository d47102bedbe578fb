"""The server's schema: its own append-only migrations, separate from the local store's.

Only `memvet team migrate` upgrades an existing server schema (and `team create` migrates an
empty database); every other command that finds another version stops with exit 3 and says
which command to run. Never edit a released step; append a new one. Every table is keyed by
team id, so one database can hold several teams that cannot read each other (each has its own
key). Nothing here is plaintext a member wrote: statements, workspaces and member names are
ciphertexts; what a filter needs is a blind index keyed from the team key.
"""

from __future__ import annotations

from memvet.store.team.errors import schema_error

S001_INITIAL = """
CREATE TABLE team_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE SEQUENCE team_change_seq;
CREATE TABLE teams (
    id TEXT PRIMARY KEY, key_version INTEGER NOT NULL, key_id TEXT NOT NULL,
    personal BOOLEAN NOT NULL, policy_ct BYTEA NOT NULL, join_public BYTEA NOT NULL,
    join_private_ct BYTEA NOT NULL, created_at TIMESTAMPTZ NOT NULL, row_mac TEXT NOT NULL);
CREATE TABLE team_members (
    team_id TEXT NOT NULL REFERENCES teams(id), id TEXT NOT NULL, public_key BYTEA NOT NULL,
    name_sealed BYTEA NOT NULL, role TEXT NOT NULL, status TEXT NOT NULL,
    joined_at TIMESTAMPTZ NOT NULL, decided_at TIMESTAMPTZ, decided_by TEXT,
    PRIMARY KEY (team_id, id));
CREATE TABLE team_key_wraps (
    team_id TEXT NOT NULL, member_id TEXT NOT NULL, key_version INTEGER NOT NULL,
    wrapped BYTEA NOT NULL, PRIMARY KEY (team_id, member_id, key_version));
CREATE TABLE team_key_chain (
    team_id TEXT NOT NULL, key_version INTEGER NOT NULL, key_id TEXT NOT NULL,
    wrapped_by_next BYTEA NOT NULL, PRIMARY KEY (team_id, key_version));
CREATE TABLE team_candidates (
    team_id TEXT NOT NULL, id TEXT NOT NULL, seq BIGINT NOT NULL,
    status TEXT NOT NULL, kind TEXT NOT NULL, polarity TEXT NOT NULL,
    statement_key TEXT NOT NULL, workspace_bidx TEXT, statement_ct BYTEA NOT NULL,
    workspace_ct BYTEA, proposed_by TEXT NOT NULL, decided_by TEXT, memory_id TEXT,
    created_at TIMESTAMPTZ NOT NULL, updated_at TIMESTAMPTZ NOT NULL, row_mac TEXT NOT NULL,
    PRIMARY KEY (team_id, id));
CREATE TABLE team_approvals (
    team_id TEXT NOT NULL, candidate_id TEXT NOT NULL, member_id TEXT NOT NULL,
    at TIMESTAMPTZ NOT NULL, PRIMARY KEY (team_id, candidate_id, member_id));
CREATE TABLE team_memories (
    team_id TEXT NOT NULL, id TEXT NOT NULL, seq BIGINT NOT NULL, candidate_id TEXT NOT NULL,
    status TEXT NOT NULL, kind TEXT NOT NULL, polarity TEXT NOT NULL,
    statement_key TEXT NOT NULL, workspace_bidx TEXT, statement_ct BYTEA NOT NULL,
    workspace_ct BYTEA, approved_by TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL, row_mac TEXT NOT NULL, PRIMARY KEY (team_id, id),
    UNIQUE (team_id, candidate_id));
CREATE TABLE team_tombstones (
    team_id TEXT NOT NULL, id TEXT NOT NULL, seq BIGINT NOT NULL,
    statement_key TEXT NOT NULL, workspace_bidx TEXT, statement_ct BYTEA NOT NULL,
    workspace_ct BYTEA, reason TEXT NOT NULL,
    source_id TEXT NOT NULL, created_by TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL,
    row_mac TEXT NOT NULL, PRIMARY KEY (team_id, id));
CREATE INDEX ix_team_tombstones_key ON team_tombstones (team_id, statement_key);
CREATE INDEX ix_team_memories_seq ON team_memories (team_id, seq);
CREATE INDEX ix_team_tombstones_seq ON team_tombstones (team_id, seq);
CREATE TABLE team_audit (
    team_id TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL,
    action TEXT NOT NULL, entity_type TEXT NOT NULL, entity_id TEXT NOT NULL,
    key_version INTEGER NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
    mac TEXT NOT NULL, PRIMARY KEY (team_id, seq));
"""

# An approval lease on the server (approval.py): who holds a reserved candidate and until when,
# by the server's clock, so a machine that died between reserve and commit is recoverable.
S002_LEASES = """
ALTER TABLE team_candidates ADD COLUMN lease_owner TEXT, ADD COLUMN lease_token TEXT,
    ADD COLUMN lease_expires_at TIMESTAMPTZ;
"""

TEAM_MIGRATIONS: list[tuple[str, str]] = [
    ("s001_initial", S001_INITIAL),
    ("s002_leases", S002_LEASES),
]
TEAM_SCHEMA_VERSION = len(TEAM_MIGRATIONS)


def server_version(conn) -> int:  # noqa: ANN001 - a psycopg connection
    found = conn.execute("SELECT to_regclass('team_meta') IS NOT NULL").fetchone()[0]
    if not found:
        return 0
    row = conn.execute("SELECT value FROM team_meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate_server(conn, *, empty_only: bool = False) -> list[str]:  # noqa: ANN001
    """Apply the missing steps in one transaction, under an advisory lock so two
    members migrating at once do not both run a step. Returns the names applied."""
    applied: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('memvet-team-migrate'))")
        version = server_version(conn)
        if empty_only and version not in (0, TEAM_SCHEMA_VERSION):
            raise schema_error(version, TEAM_SCHEMA_VERSION)
        for number, (name, sql) in enumerate(TEAM_MIGRATIONS, start=1):
            if number <= version:
                continue
            conn.execute(sql)
            conn.execute(
                "INSERT INTO team_meta (key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (str(number),),
            )
            applied.append(name)
    return applied


def check_version(conn) -> None:  # noqa: ANN001
    version = server_version(conn)
    if version != TEAM_SCHEMA_VERSION:
        raise schema_error(version, TEAM_SCHEMA_VERSION)
