"""Schema migrations: an append-only list, each step a function named mNNN_<what>.

Each step defines the tables it creates as they were at that version (frozen here, never
imported from models.py), so replaying history always yields the same schema. The current
version is kept in `store_meta.schema_version`. Never edit a released step; append a new one.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy import Connection
from sqlmodel.sql.sqltypes import UTCDateTime

MIGRATIONS: list[Callable[[Connection], None]] = []
migration = MIGRATIONS.append


def _create(conn: Connection, *tables: sa.Table) -> None:
    for table in tables:
        table.create(conn)


@migration
def m001_initial(conn: Connection) -> None:
    md = sa.MetaData()
    tables = [
        sa.Table(
            'audit_events', md,
            sa.Column('seq', sa.Integer(), primary_key=True),
            sa.Column('at', UTCDateTime(), nullable=False),
            sa.Column('actor', sa.String(length=200), nullable=False),
            sa.Column('action', sa.String(length=48), nullable=False),
            sa.Column('entity_type', sa.String(length=24), nullable=False),
            sa.Column('entity_id', sa.String(length=64), nullable=False),
            sa.Column('preview_ct', sa.LargeBinary()),
            sa.Column('prev_hash', sa.String(length=64), nullable=False),
            sa.Column('hash', sa.String(length=64), nullable=False),
        ),
        sa.Table(
            'candidates', md,
            sa.Column('id', sa.String(length=40), primary_key=True),
            sa.Column('status', sa.String(length=16), nullable=False, index=True),
            sa.Column('kind', sa.String(length=16), nullable=False, index=True),
            sa.Column('source_type', sa.String(length=24), nullable=False),
            sa.Column('host', sa.String(length=32), index=True),
            sa.Column('user_bidx', sa.String(length=64), nullable=False, index=True),
            sa.Column('workspace_bidx', sa.String(length=64), index=True),
            sa.Column('content_key', sa.String(length=64), nullable=False, index=True),
            sa.Column('polarity', sa.String(length=8), nullable=False),
            sa.Column('confidence', sa.Float(), nullable=False),
            sa.Column('importance', sa.Integer(), nullable=False),
            sa.Column('evidence_count', sa.Integer(), nullable=False),
            sa.Column('created_at', UTCDateTime(), nullable=False, index=True),
            sa.Column('updated_at', UTCDateTime(), nullable=False),
            sa.Column('lease_token', sa.String(length=40)),
            sa.Column('lease_owner', sa.String(length=200)),
            sa.Column('reserved_at', UTCDateTime()),
            sa.Column('lease_expires_at', UTCDateTime(), index=True),
            sa.Column('memory_id', sa.String(length=48)),
            sa.Column('supersedes_id', sa.String(length=48)),
            sa.Column('decided_by', sa.String(length=200)),
            sa.Column('decided_at', UTCDateTime()),
            sa.Column('statement_ct', sa.LargeBinary(), nullable=False),
            sa.Column('user_ct', sa.LargeBinary(), nullable=False),
            sa.Column('workspace_ct', sa.LargeBinary()),
            sa.Column('session_ct', sa.LargeBinary()),
            sa.Column('reasons_ct', sa.LargeBinary()),
            sa.Column('usage_boundary_ct', sa.LargeBinary()),
            sa.Column('last_error_ct', sa.LargeBinary()),
            sa.Column('decision_note_ct', sa.LargeBinary()),
        ),
        sa.Table(
            'file_checkpoints', md,
            sa.Column('path_key', sa.String(length=64), primary_key=True),
            sa.Column('host', sa.String(length=32), nullable=False),
            sa.Column('device', sa.Integer(), nullable=False),
            sa.Column('inode', sa.Integer(), nullable=False),
            sa.Column('fingerprint', sa.String(length=64), nullable=False),
            sa.Column('offset', sa.Integer(), nullable=False),
            sa.Column('line_no', sa.Integer(), nullable=False),
            sa.Column('size_seen', sa.Integer(), nullable=False),
            sa.Column('updated_at', UTCDateTime(), nullable=False),
            sa.Column('path_ct', sa.LargeBinary(), nullable=False),
            sa.Column('state_ct', sa.LargeBinary()),
        ),
        sa.Table(
            'key_material', md,
            sa.Column('dek_id', sa.String(length=16), primary_key=True),
            sa.Column('kek_version', sa.Integer(), nullable=False),
            sa.Column('provider', sa.String(length=32), nullable=False),
            sa.Column('wrapped_dek', sa.LargeBinary(), nullable=False),
            sa.Column('created_at', UTCDateTime(), nullable=False),
            sa.Column('rotated_at', UTCDateTime()),
        ),
        sa.Table(
            'store_meta', md,
            sa.Column('key', sa.String(length=64), primary_key=True),
            sa.Column('value', sa.String(length=512), nullable=False),
        ),
        sa.Table(
            'tombstones', md,
            sa.Column('content_key', sa.String(length=64), primary_key=True),
            sa.Column('reason', sa.String(length=16), nullable=False),
            sa.Column('source_id', sa.String(length=48)),
            sa.Column('created_at', UTCDateTime(), nullable=False),
            sa.Column('seen_again', sa.Integer(), nullable=False),
            sa.Column('last_seen_at', UTCDateTime()),
            sa.Column('lifted_at', UTCDateTime()),
            sa.Column('preview_ct', sa.LargeBinary()),
        ),
        sa.Table(
            'evidence', md,
            sa.Column('id', sa.String(length=40), primary_key=True),
            sa.Column('candidate_id', sa.String(length=40), sa.ForeignKey('candidates.id'), nullable=False, index=True),
            sa.Column('line', sa.Integer(), nullable=False),
            sa.Column('timestamp', UTCDateTime()),
            sa.Column('created_at', UTCDateTime(), nullable=False),
            sa.Column('path_ct', sa.LargeBinary(), nullable=False),
            sa.Column('message_id_ct', sa.LargeBinary()),
            sa.Column('session_ct', sa.LargeBinary()),
            sa.Column('excerpt_ct', sa.LargeBinary(), nullable=False),
        ),
        sa.Table(
            'memories', md,
            sa.Column('id', sa.String(length=48), primary_key=True),
            sa.Column('candidate_id', sa.String(length=40), sa.ForeignKey('candidates.id'), nullable=False, unique=True),
            sa.Column('status', sa.String(length=16), nullable=False, index=True),
            sa.Column('kind', sa.String(length=16), nullable=False),
            sa.Column('source_type', sa.String(length=24), nullable=False),
            sa.Column('host', sa.String(length=32)),
            sa.Column('user_bidx', sa.String(length=64), nullable=False, index=True),
            sa.Column('workspace_bidx', sa.String(length=64), index=True),
            sa.Column('content_key', sa.String(length=64), nullable=False, index=True),
            sa.Column('polarity', sa.String(length=8), nullable=False),
            sa.Column('confidence', sa.Float(), nullable=False),
            sa.Column('importance', sa.Integer(), nullable=False),
            sa.Column('approved_by', sa.String(length=200), nullable=False),
            sa.Column('valid_from', UTCDateTime(), nullable=False),
            sa.Column('valid_to', UTCDateTime()),
            sa.Column('recorded_at', UTCDateTime(), nullable=False, index=True),
            sa.Column('updated_at', UTCDateTime(), nullable=False),
            sa.Column('expires_at', UTCDateTime()),
            sa.Column('supersedes_id', sa.String(length=48)),
            sa.Column('superseded_by_id', sa.String(length=48)),
            sa.Column('conflict_state', sa.String(length=16), nullable=False),
            sa.Column('retired_reason', sa.String(length=16)),
            sa.Column('statement_ct', sa.LargeBinary(), nullable=False),
            sa.Column('user_ct', sa.LargeBinary(), nullable=False),
            sa.Column('workspace_ct', sa.LargeBinary()),
            sa.Column('session_ct', sa.LargeBinary()),
            sa.Column('usage_boundary_ct', sa.LargeBinary()),
        ),
        sa.Table(
            'memory_transitions', md,
            sa.Column('id', sa.Integer(), primary_key=True),
            sa.Column('memory_id', sa.String(length=48), sa.ForeignKey('memories.id'), nullable=False, index=True),
            sa.Column('from_status', sa.String(length=16)),
            sa.Column('to_status', sa.String(length=16), nullable=False),
            sa.Column('valid_to_before', UTCDateTime()),
            sa.Column('valid_to_after', UTCDateTime()),
            sa.Column('actor', sa.String(length=200), nullable=False),
            sa.Column('reason', sa.String(length=32)),
            sa.Column('txn_id', sa.String(length=64), nullable=False),
            sa.Column('at', UTCDateTime(), nullable=False, index=True),
            sa.UniqueConstraint('memory_id', 'txn_id', name='uq_transition_txn'),
        )
    ]
    _create(conn, *tables)


@migration
def m002_sweep_runs(conn: Connection) -> None:
    """The last successful run of each daemon sweep, shown by `memvet daemon status`."""
    md = sa.MetaData()
    _create(conn,
        sa.Table(
            'sweep_runs', md,
            sa.Column('job_id', sa.String(length=64), primary_key=True),
            sa.Column('last_success_at', UTCDateTime(), nullable=False),
            sa.Column('last_result', sa.String(length=256), nullable=False),
        )
    )


# Reserved order of the next steps (each helper appends its step HERE, in this order, and
# removes its placeholder line; the step's number is its position in MIGRATIONS):
#   m003_row_mac          — issue 9: MAC over security-relevant columns, audit chain head
#   m004_norm2_keys       — issue 9: content keys re-derived with norm2 canonicalisation
#   m005_evidence_identity— issue 9: evidence identified by (file identity, line, message id)
#   m006_subjects         — issue 13: subjects, slots, compatible marks, valid-from = evidence time
#   m007_learning         — issue 12: reviewer-decision features (encrypted)
#   m008_team             — issue 16: local team outbox / sync state

SCHEMA_VERSION = len(MIGRATIONS)
