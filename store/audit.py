"""The audit ledger: append-only and hash-chained with a keyed HMAC, written in the same
transaction as the change it records. Previews are redacted by the caller and encrypted here.

Two anchors make the chain more than a list of events:
- each event about a memory, candidate or tombstone carries that row's MAC after the change
  (`state_mac`, row_mac.py), so `verify_state` can tell whether every row is in the state the
  chain last recorded for it;
- the chain head (sequence, hash and a MAC of both) is kept outside the table, in store_meta,
  updated with every append: deleting the last events leaves a head that names a missing event.
"""

from __future__ import annotations

import hmac
import json
from datetime import datetime

import sqlalchemy as sa
from memvet.store.crypto import FieldCipher
from memvet.store.models import AuditEventRow, CandidateRow, MemoryRow, StoreMetaRow, TombstoneRow
from memvet.store.records import AuditEvent, AuditReport, iso
from memvet.store.row_mac import keyed_digest
from sqlalchemy import Connection

GENESIS = "0" * 64
PREVIEW_LIMIT = 80
T = AuditEventRow.__table__
META = StoreMetaRow.__table__
HEAD = sa.select(T.c.seq, T.c.hash).order_by(T.c.seq.desc()).limit(1)
HEAD_KEY = "audit_head"
GONE = "-"  # state_mac of an entity that no longer exists on purpose (a migration merged it)
# entity type -> (table, id column, how many characters of the id an event names)
ENTITIES = {
    "memory": (MemoryRow.__table__, "id", None),
    "candidate": (CandidateRow.__table__, "id", None),
    "tombstone": (TombstoneRow.__table__, "content_key", 16),
}
CHUNK = 500
# Built once, bound per call: an approval appends three events, and building these statements
# again each time was a third of the ledger's cost (issue 11).
_STATE_OF = {
    kind: sa.select(table.c[name], table.c.row_mac).where(
        table.c[name].in_(sa.bindparam("names", expanding=True))
    )
    for kind, (table, name, cut) in ENTITIES.items()
    if not cut
}
_SET_HEAD = META.update().where(META.c.key == HEAD_KEY).values(value=sa.bindparam("head"))


def _digest(
    key: bytes,
    seq: int,
    at: datetime,
    actor: str,
    action: str,
    entity_type: str,
    entity_id: str,
    preview_ct: bytes | None,
    prev_hash: str,
    state_mac: str | None = None,
) -> str:
    fields = [
        seq,
        iso(at),
        actor,
        action,
        entity_type,
        entity_id,
        (bytes(preview_ct).hex() if preview_ct else None),
        prev_hash,
    ]
    if state_mac is not None:  # events written before state_mac existed keep their hash
        fields.append(state_mac)
    body = json.dumps(fields, separators=(",", ":"))
    return keyed_digest(key, body.encode()).hex()


def _head_mac(key: bytes, seq: int, digest: str) -> str:
    return keyed_digest(key, f"head\x1f{seq}\x1f{digest}".encode()).hex()


def entity_name(entity_type: str, row_id: str) -> str:
    """How an event names a row (tombstones by the first 16 characters of their key)."""
    cut = ENTITIES[entity_type][2]
    return row_id[:cut] if cut else row_id


def _states(conn: Connection, events: list[tuple]) -> dict[tuple[str, str], str]:
    """The current row MAC of every memory, candidate and tombstone the events name."""
    wanted: dict[str, set[str]] = {}
    for event in events:
        if event[3] in ENTITIES:
            wanted.setdefault(event[3], set()).add(event[4])
    found: dict[tuple[str, str], str] = {}
    for entity_type, names in wanted.items():
        table, id_name, cut = ENTITIES[entity_type]
        column, names = table.c[id_name], sorted(names)
        for i in range(0, len(names), CHUNK):
            part = names[i : i + CHUNK]
            if cut:  # a prefix: a range on the key's index per name
                where = sa.or_(*(sa.and_(column >= n, column < n + "g") for n in part))
                rows = conn.execute(sa.select(column, table.c.row_mac).where(where))
            else:
                rows = conn.execute(_STATE_OF[entity_type], {"names": part})
            for row_id, mac in rows:
                if mac is not None:
                    found[(entity_type, entity_name(entity_type, row_id))] = mac
    return found


def append_event(
    conn: Connection,
    cipher: FieldCipher,
    *,
    at: datetime,
    actor: str,
    action: str,
    entity_type: str,
    entity_id: str,
    preview: str | None = None,
) -> int:
    """Append one event. Callers hold the write lock (BEGIN IMMEDIATE), so the head is stable."""
    return append_events(conn, cipher, [(at, actor, action, entity_type, entity_id, preview)])


def append_events(
    conn: Connection,
    cipher: FieldCipher,
    events: list[tuple],
    gone: frozenset[tuple[str, str]] = frozenset(),
) -> int:
    """Append events (at, actor, action, entity_type, entity_id, preview) in order, chaining
    each to the one before, each with its entity's row MAC as it is now (call after the change);
    `gone`: (entity_type, entity_id) pairs recorded as removed on purpose. Returns the last
    sequence number."""
    head = conn.execute(HEAD).first()
    seq, prev = (head.seq, head.hash) if head else (0, GENESIS)
    states = _states(conn, events)
    rows = []
    for at, actor, action, entity_type, entity_id, preview in events:
        seq += 1
        short = None if preview is None else preview[:PREVIEW_LIMIT]
        preview_ct = cipher.encrypt("audit_events", "preview", str(seq), short)
        state = GONE if (entity_type, entity_id) in gone else states.get((entity_type, entity_id))
        digest = _digest(
            cipher.audit_key,
            seq,
            at,
            actor[:200],
            action,
            entity_type,
            entity_id,
            preview_ct,
            prev,
            state,
        )
        rows.append(
            {
                "seq": seq,
                "at": at,
                "actor": actor[:200],
                "action": action,
                "entity_type": entity_type,
                "entity_id": entity_id,
                "preview_ct": preview_ct,
                "prev_hash": prev,
                "hash": digest,
                "state_mac": state,
            }
        )
        prev = digest
    if rows:
        conn.execute(T.insert(), rows)
        write_head(conn, cipher, seq, prev)
    return seq


def write_head(conn: Connection, cipher: FieldCipher, seq: int, digest: str) -> None:
    value = f"{seq}:{digest}:{_head_mac(cipher.audit_key, seq, digest)}"
    if not conn.execute(_SET_HEAD, {"head": value}).rowcount:
        conn.execute(META.insert().values(key=HEAD_KEY, value=value))


def anchor_head(conn: Connection, cipher: FieldCipher) -> None:
    """Record the current head (a store upgraded from before the head was kept)."""
    head = conn.execute(HEAD).first()
    if head is not None:
        write_head(conn, cipher, head.seq, head.hash)


def _check_head(
    conn: Connection, cipher: FieldCipher, count: int, last_seq: int, last_hash: str
) -> AuditReport | None:
    value = conn.execute(sa.select(META.c.value).where(META.c.key == HEAD_KEY)).scalar()
    if value is None:
        if count == 0:
            return None
        return AuditReport(
            False,
            count,
            None,
            "the record of the chain's head is missing from "
            "store_meta: events may have been deleted from the end",
        )
    try:
        seq_text, digest, mac = value.split(":")
        seq = int(seq_text)
    except ValueError:
        return AuditReport(False, count, None, "the record of the chain's head is malformed")
    if not hmac.compare_digest(mac, _head_mac(cipher.audit_key, seq, digest)):
        return AuditReport(False, count, None, "the record of the chain's head was edited")
    if seq > last_seq:
        return AuditReport(
            False,
            count,
            last_seq + 1,
            f"events {last_seq + 1} to {seq} were deleted from the end of the chain",
        )
    if seq < last_seq or digest != last_hash:
        return AuditReport(
            False,
            count,
            seq + 1,
            f"event {seq + 1} onwards were written without updating the chain's head",
        )
    return None


def verify_chain(
    conn: Connection,
    cipher: FieldCipher,
    states: dict[tuple[str, str], tuple[int, str]] | None = None,
) -> AuditReport:
    """Walk the chain in order; name the first event that was edited, deleted or reordered,
    then check the head. `states`, if given, is filled with each entity's last recorded
    (seq, state_mac)."""
    expected_prev, expected_seq, count = GENESIS, 1, 0
    for row in conn.execute(sa.select(T).order_by(T.c.seq)):
        count += 1
        if row.seq != expected_seq:
            return AuditReport(
                False,
                count,
                expected_seq,
                f"event {expected_seq} is missing (next found is {row.seq})",
            )
        if row.prev_hash != expected_prev:
            return AuditReport(
                False,
                count,
                row.seq,
                f"event {row.seq} does not follow event {row.seq - 1} (reordered or replaced)",
            )
        digest = _digest(
            cipher.audit_key,
            row.seq,
            row.at,
            row.actor,
            row.action,
            row.entity_type,
            row.entity_id,
            row.preview_ct,
            row.prev_hash,
            row.state_mac,
        )
        if not hmac.compare_digest(digest, row.hash):
            return AuditReport(
                False, count, row.seq, f"event {row.seq} was edited after it was written"
            )
        if states is not None and row.state_mac is not None:
            states[(row.entity_type, row.entity_id)] = (row.seq, row.state_mac)
        expected_prev, expected_seq = row.hash, row.seq + 1
    return _check_head(conn, cipher, count, expected_seq - 1, expected_prev) or AuditReport(
        True, count
    )


def _event(cipher: FieldCipher, r: sa.Row) -> AuditEvent:
    return AuditEvent(
        r.seq,
        r.at,
        r.actor,
        r.action,
        r.entity_type,
        r.entity_id,
        cipher.decrypt("audit_events", "preview", str(r.seq), r.preview_ct),
    )


def recent_events(conn: Connection, cipher: FieldCipher, limit: int = 100) -> list[AuditEvent]:
    rows = conn.execute(sa.select(T).order_by(T.c.seq.desc()).limit(limit)).all()
    return [_event(cipher, r) for r in rows]


def events_after(conn: Connection, cipher: FieldCipher, seq: int, limit: int) -> list[AuditEvent]:
    """Events with a sequence number above `seq`, oldest first: a change feed for live views."""
    rows = conn.execute(sa.select(T).where(T.c.seq > seq).order_by(T.c.seq).limit(limit)).all()
    return [_event(cipher, r) for r in rows]
