"""Whole-store integrity checks, for `memvet audit verify` and `memvet doctor`: SQLite's own
check of the file, every row's MAC and ciphertexts, and every row against the state the audit
chain last recorded for it (audit.py's `state_mac`)."""

from __future__ import annotations

import sqlalchemy as sa
from memvet.store import row_mac
from memvet.store.audit import ENTITIES, GONE, entity_name
from memvet.store.crypto import FieldCipher
from memvet.store.read_layer import with_unreadable  # noqa: F401  (its home moved there)
from memvet.store.records import AuditReport
from sqlalchemy import Connection

QUICK_CHECK_ROWS = 5  # problems SQLite lists at most


def sqlite_check(conn: Connection, *, deep: bool = False) -> list[str]:
    """PRAGMA quick_check (integrity_check with `deep`): [] when the file is sound."""
    pragma = "integrity_check" if deep else "quick_check"
    found = [r[0] for r in conn.exec_driver_sql(f"PRAGMA {pragma}({QUICK_CHECK_ROWS})")]
    return [] if found == ["ok"] else found


def verify_state(
    conn: Connection,
    cipher: FieldCipher,
    states: dict[tuple[str, str], tuple[int, str]],
    events: int,
) -> AuditReport | None:
    """Every memory, candidate and tombstone must be sealed and in the state the chain last
    recorded for it; every entity the chain recorded must still exist. The first mismatch."""
    states = dict(states)
    for entity_type, (table, id_name, _) in ENTITIES.items():
        for row in conn.execute(sa.select(table).order_by(table.c[id_name])):
            name = entity_name(entity_type, row._mapping[id_name])
            recorded = states.pop((entity_type, name), None)
            if not row_mac.intact(cipher.row_key, table.name, row._mapping):
                return AuditReport(
                    False,
                    events,
                    recorded and recorded[0],
                    f"{entity_type} {name}: its status, scope or validity was "
                    "changed without the key",
                    entity=f"{entity_type} {name}",
                )
            if recorded is None:
                return AuditReport(
                    False,
                    events,
                    None,
                    f"{entity_type} {name} has no audit event recording its state",
                    entity=f"{entity_type} {name}",
                )
            if recorded[1] != row.row_mac:
                return AuditReport(
                    False,
                    events,
                    recorded[0],
                    f"{entity_type} {name} is not in the state audit event "
                    f"{recorded[0]} recorded (an older copy of the row put back?)",
                    entity=f"{entity_type} {name}",
                )
    for (entity_type, name), (seq, state) in sorted(states.items(), key=lambda kv: kv[1][0]):
        if entity_type in ENTITIES and state != GONE:
            return AuditReport(
                False,
                events,
                seq,
                f"{entity_type} {name}, recorded by audit event {seq}, is missing: it was deleted",
                entity=f"{entity_type} {name}",
            )
    return None
