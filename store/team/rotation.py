"""Rotating the team key when a member is removed, inside the caller's team transaction.

The new key re-encrypts every team row and re-derives its blind indexes and MACs, so a removed
member, who may have kept the old key, can read nothing written afterwards and nothing that
was there (the server no longer holds ciphertext under the old key). The old key is kept
wrapped by the new one (the key chain) only to verify audit events written under it. The join
key pair is replaced too, and every member's name re-sealed to it."""

from __future__ import annotations

import base64
import secrets

from memvet.store.crypto import FieldCipher, new_key, wrap_dek
from memvet.store.team import audit
from memvet.store.team.items import CAND_COLS, MEM_COLS, TOMB_COLS
from memvet.store.team.session import TeamSession, check_seal, row_seal
from memvet.store.team.wrapping import (
    name_context,
    new_private_key,
    open_sealed,
    public_of,
    seal_to,
)

# table -> its columns read for re-encryption: the columns the team reads, less the change order
ROW_TABLES = {
    table: tuple(c for c in columns if c not in ("seq", "created_at"))
    for table, columns in (
        ("team_candidates", CAND_COLS),
        ("team_memories", MEM_COLS),
        ("team_tombstones", TOMB_COLS),
    )
}


def rekey_row(old: FieldCipher, new: FieldCipher, table: str, row: dict) -> dict:
    """The row under the new key: ciphertexts, statement key, workspace index and MAC."""
    rid = row["id"]
    check_seal(old, table, rid, row)  # never launder a row someone changed without the key
    statement = old.decrypt(table, "statement", rid, row["statement_ct"]) or ""
    workspace = old.decrypt(table, "workspace", rid, row["workspace_ct"])
    out = {
        **row,
        "statement_ct": new.encrypt(table, "statement", rid, statement),
        "workspace_ct": new.encrypt(table, "workspace", rid, workspace),
        "statement_key": new.statement_key("team", statement),
        "workspace_bidx": new.blind_index("workspace", workspace),
    }
    out["row_mac"] = row_seal(new, table, rid, out)
    return out


def rotate(session: TeamSession) -> int:
    conn, team = session.conn, session.team_id
    old_version = session.key_version
    old = session.cipher()
    old_key = session.keys[old_version]
    team_row = conn.execute(
        "SELECT policy_ct, join_private_ct FROM teams WHERE id = %s", (team,)
    ).fetchone()
    policy = old.decrypt("teams", "policy", team, team_row[0])
    old_join = base64.b64decode(old.decrypt("teams", "join_private", team, team_row[1]) or "")
    new_version, key, key_id = old_version + 1, new_key(), secrets.token_hex(4)
    conn.execute(
        "INSERT INTO team_key_chain (team_id, key_version, key_id, wrapped_by_next) "
        "VALUES (%s, %s, %s, %s)",
        (team, old_version, old.dek_id, wrap_dek(key, old_key, old.dek_id)),
    )
    session.adopt_key(new_version, key, key_id)
    new = session.cipher(new_version)
    for table, columns in ROW_TABLES.items():
        rows = conn.execute(
            f"SELECT {', '.join(columns)} FROM {table} WHERE team_id = %s", (team,)
        ).fetchall()
        updates = [rekey_row(old, new, table, dict(zip(columns, r, strict=True))) for r in rows]
        if updates:
            with conn.cursor() as cur:
                cur.executemany(
                    f"UPDATE {table} SET statement_ct = %(statement_ct)s, workspace_ct = "
                    "%(workspace_ct)s, statement_key = %(statement_key)s, workspace_bidx = "
                    f"%(workspace_bidx)s, row_mac = %(row_mac)s WHERE team_id = '{team}' AND "
                    "id = %(id)s",
                    updates,
                )
    join = new_private_key()
    for member_id, sealed in conn.execute(
        "SELECT id, name_sealed FROM team_members WHERE team_id = %s", (team,)
    ).fetchall():
        name = open_sealed(old_join, sealed, name_context(team, member_id)) or b""
        conn.execute(
            "UPDATE team_members SET name_sealed = %s WHERE team_id = %s AND id = %s",
            (seal_to(public_of(join), name, name_context(team, member_id)), team, member_id),
        )
    personal = conn.execute("SELECT personal FROM teams WHERE id = %s", (team,)).fetchone()[0]
    values = {"key_version": new_version, "key_id": key_id, "personal": personal}
    conn.execute(
        "UPDATE teams SET key_version = %s, key_id = %s, policy_ct = %s, join_public = "
        "%s, join_private_ct = %s, row_mac = %s WHERE id = %s",
        (
            new_version,
            key_id,
            new.encrypt("teams", "policy", team, policy),
            public_of(join),
            new.encrypt("teams", "join_private", team, base64.b64encode(join).decode()),
            row_seal(new, "teams", team, values),
            team,
        ),
    )
    from memvet.store.team.members import _wrap_for

    for member_id, public in conn.execute(
        "SELECT id, public_key FROM team_members WHERE team_id = %s AND status = 'admitted'",
        (team,),
    ):
        _wrap_for(conn, session, member_id, public)
    conn.execute(
        "DELETE FROM team_key_wraps WHERE team_id = %s AND key_version < %s", (team, new_version)
    )
    audit.append(session, "key.rotated", "team", f"v{new_version}")
    return new_version
