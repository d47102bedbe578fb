"""The team's audit chain on the server: every team event hash-chained to the one before, and
each hash MACed under the audit key of the team key in force (crypto.derive_key "audit"), so
the server (or a removed member, for events after its removal) cannot insert, drop or alter an
event unnoticed. `memvet team audit verify` walks it and names the first bad event."""

from __future__ import annotations

import hashlib
import hmac

from memvet.store.errors import IntegrityError
from memvet.store.team.session import TeamSession, now

SEP = "\x1f"
GENESIS = "0" * 64


def _hash(
    prev: str,
    team_id: str,
    seq: int,
    at: str,
    actor: str,
    action: str,
    entity_type: str,
    entity_id: str,
    key_version: int,
) -> str:
    body = SEP.join(
        (
            "memvet/team-audit/v1",
            prev,
            team_id,
            str(seq),
            at,
            actor,
            action,
            entity_type,
            entity_id,
            str(key_version),
        )
    )
    return hashlib.sha256(body.encode()).hexdigest()


def _mac(audit_key: bytes, digest: str) -> str:
    return hmac.new(audit_key, digest.encode(), hashlib.sha256).hexdigest()


def append(session: TeamSession, action: str, entity_type: str, entity_id: str) -> None:
    """Inside `session.write()` (the team lock makes the chain's order the commit order)."""
    conn, team = session.conn, session.team_id
    last = conn.execute(
        "SELECT seq, hash FROM team_audit WHERE team_id = %s ORDER BY seq DESC LIMIT 1", (team,)
    ).fetchone()
    seq, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
    at = now().isoformat()
    version = session.key_version
    digest = _hash(prev, team, seq, at, session.member_id, action, entity_type, entity_id, version)
    conn.execute(
        "INSERT INTO team_audit (team_id, seq, at, actor, action, entity_type, "
        "entity_id, key_version, prev_hash, hash, mac) VALUES "
        "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (
            team,
            seq,
            at,
            session.member_id,
            action,
            entity_type,
            entity_id,
            version,
            prev,
            digest,
            _mac(session.cipher(version).audit_key, digest),
        ),
    )


def verify(session: TeamSession) -> dict[str, object]:
    """{"ok", "events", "first_bad": {"seq", "reason"} | None}."""
    session.cipher()  # loads the key chain (exit 3 without the team key)
    rows = session.conn.execute(
        "SELECT seq, at, actor, action, entity_type, entity_id, key_version, prev_hash, hash, "
        "mac FROM team_audit WHERE team_id = %s ORDER BY seq",
        (session.team_id,),
    ).fetchall()
    prev, expected_seq = GENESIS, 1
    for seq, at, actor, action, etype, eid, version, prev_hash, digest, mac in rows:
        reason = None
        if seq != expected_seq:
            reason = f"event {expected_seq} is missing"
        elif prev_hash != prev:
            reason = "it does not link to the event before it"
        elif _hash(prev, session.team_id, seq, at, actor, action, etype, eid, version) != digest:
            reason = "its contents do not match its hash"
        else:
            try:
                audit_key = session.cipher(version).audit_key
            except IntegrityError:
                audit_key = None
            if audit_key is None or not hmac.compare_digest(_mac(audit_key, digest), mac):
                reason = "its MAC does not verify under the team key"
        if reason:
            return {"ok": False, "events": len(rows), "first_bad": {"seq": seq, "reason": reason}}
        prev, expected_seq = digest, seq + 1
    return {"ok": True, "events": len(rows), "first_bad": None}
