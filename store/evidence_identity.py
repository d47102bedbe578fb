"""Which evidence the store already holds, so that reading the same transcript bytes again
(an atomic save under a new inode, rsync, a restore, a truncation and rewrite, a lost
checkpoint) adds none: evidence is identified by (file identity, line, message id) of one
statement. The file identity is the session the file records (it survives a copy or a move),
else its path. The key is a blind index: it reveals none of its parts."""

from __future__ import annotations

import sqlalchemy as sa
from memvet.store.core import EVID
from memvet.store.crypto import SEP, FieldCipher
from memvet.store.records import Evidence
from sqlalchemy import Connection

CHUNK = 500  # keys per IN query


def identity_key(cipher: FieldCipher, ev: Evidence | None, content_key: str) -> str | None:
    if ev is None:
        return None
    parts = (ev.session or ev.path, str(ev.line), ev.message_id or "", content_key)
    return cipher.blind_index("evidence", SEP.join(parts))


def held_identities(conn: Connection, keys: list[str]) -> set[str]:
    """The keys of `keys` some evidence row already has."""
    held: set[str] = set()
    unique = sorted(set(keys))
    for i in range(0, len(unique), CHUNK):
        held |= {
            r[0]
            for r in conn.execute(
                sa.select(EVID.c.identity_key).where(EVID.c.identity_key.in_(unique[i : i + CHUNK]))
            )
        }
    return held


def backfill_identities(conn: Connection, cipher: FieldCipher) -> int:
    """Keys for evidence written before they existed (migration m005 cannot compute them: it
    has no key). Rows that cannot be decrypted are left without one."""
    from memvet.store.errors import IntegrityError
    from memvet.store.models import CandidateRow

    cand = CandidateRow.__table__
    rows = conn.execute(
        sa.select(
            EVID.c.id,
            EVID.c.line,
            EVID.c.path_ct,
            EVID.c.message_id_ct,
            EVID.c.session_ct,
            cand.c.content_key,
        )
        .join(cand, cand.c.id == EVID.c.candidate_id)
        .where(EVID.c.identity_key.is_(None))
    ).all()
    updates = []
    for r in rows:
        try:
            ev = Evidence(
                path=cipher.decrypt("evidence", "path", r.id, r.path_ct) or "",
                line=r.line,
                timestamp=None,
                excerpt="",
                message_id=cipher.decrypt("evidence", "message_id", r.id, r.message_id_ct),
                session=cipher.decrypt("evidence", "session", r.id, r.session_ct),
            )
        except IntegrityError:
            continue
        updates.append({"rid": r.id, "key": identity_key(cipher, ev, r.content_key)})
    if updates:
        conn.execute(
            EVID.update()
            .where(EVID.c.id == sa.bindparam("rid"))
            .values(identity_key=sa.bindparam("key")),
            updates,
        )
    return len(updates)
