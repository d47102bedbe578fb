"""The audit ledger: append-only and hash-chained with a keyed HMAC, written in the same
transaction as the change it records. Previews are redacted by the caller and encrypted here."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime

import sqlalchemy as sa
from memvet.store.crypto import FieldCipher
from memvet.store.models import AuditEventRow
from memvet.store.records import AuditEvent, AuditReport, iso
from sqlalchemy import Connection

GENESIS = "0" * 64
PREVIEW_LIMIT = 80
T = AuditEventRow.__table__
HEAD = sa.select(T.c.seq, T.c.hash).order_by(T.c.seq.desc()).limit(1)


def _digest(key: bytes, seq: int, at: datetime, actor: str, action: str, entity_type: str,
            entity_id: str, preview_ct: bytes | None, prev_hash: str) -> str:
    body = json.dumps([seq, iso(at), actor, action, entity_type, entity_id,
                       (bytes(preview_ct).hex() if preview_ct else None), prev_hash],
                      separators=(",", ":"))
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def append_event(conn: Connection, cipher: FieldCipher, *, at: datetime, actor: str, action: str,
                 entity_type: str, entity_id: str, preview: str | None = None) -> int:
    """Append one event. Callers hold the write lock (BEGIN IMMEDIATE), so the head is stable."""
    return append_events(conn, cipher, [(at, actor, action, entity_type, entity_id, preview)])


def append_events(conn: Connection, cipher: FieldCipher,
                  events: list[tuple[datetime, str, str, str, str, str | None]]) -> int:
    """Append events in order, chaining each to the one before; returns the last sequence number."""
    head = conn.execute(HEAD).first()
    seq, prev = (head.seq, head.hash) if head else (0, GENESIS)
    rows = []
    for at, actor, action, entity_type, entity_id, preview in events:
        seq += 1
        short = None if preview is None else preview[:PREVIEW_LIMIT]
        preview_ct = cipher.encrypt("audit_events", "preview", str(seq), short)
        digest = _digest(cipher.audit_key, seq, at, actor[:200], action, entity_type, entity_id,
                         preview_ct, prev)
        rows.append({"seq": seq, "at": at, "actor": actor[:200], "action": action,
                     "entity_type": entity_type, "entity_id": entity_id,
                     "preview_ct": preview_ct, "prev_hash": prev, "hash": digest})
        prev = digest
    if rows:
        conn.execute(T.insert(), rows)
    return seq


def verify_chain(conn: Connection, cipher: FieldCipher) -> AuditReport:
    """Walk the chain in order; name the first event that was edited, deleted or reordered."""
    expected_prev, expected_seq, count = GENESIS, 1, 0
    for row in conn.execute(sa.select(T).order_by(T.c.seq)):
        count += 1
        if row.seq != expected_seq:
            return AuditReport(False, count, expected_seq,
                               f"event {expected_seq} is missing (next found is {row.seq})")
        if row.prev_hash != expected_prev:
            return AuditReport(False, count, row.seq,
                               f"event {row.seq} does not follow event {row.seq - 1} (reordered or replaced)")
        digest = _digest(cipher.audit_key, row.seq, row.at, row.actor, row.action,
                         row.entity_type, row.entity_id, row.preview_ct, row.prev_hash)
        if not hmac.compare_digest(digest, row.hash):
            return AuditReport(False, count, row.seq, f"event {row.seq} was edited after it was written")
        expected_prev, expected_seq = row.hash, row.seq + 1
    return AuditReport(True, count)


def recent_events(conn: Connection, cipher: FieldCipher, limit: int = 100) -> list[AuditEvent]:
    rows = conn.execute(sa.select(T).order_by(T.c.seq.desc()).limit(limit)).all()
    return [AuditEvent(r.seq, r.at, r.actor, r.action, r.entity_type, r.entity_id,
                       cipher.decrypt("audit_events", "preview", str(r.seq), r.preview_ct))
            for r in rows]


def events_after(conn: Connection, cipher: FieldCipher, seq: int, limit: int) -> list[AuditEvent]:
    """Events with a sequence number above `seq`, oldest first: a change feed for live views."""
    rows = conn.execute(sa.select(T).where(T.c.seq > seq).order_by(T.c.seq).limit(limit)).all()
    return [AuditEvent(r.seq, r.at, r.actor, r.action, r.entity_type, r.entity_id,
                       cipher.decrypt("audit_events", "preview", str(r.seq), r.preview_ct))
            for r in rows]
