"""Membership: create a team, register to join it, admit (wrap the team key for the new
member's public key), remove (rotate the team key), list. Two-sided joining: the joiner only
registers its public key and its name sealed to the team's join key; nothing is readable to it
until an admin admits it. Admins should compare the key fingerprint out of band (docs/team.md)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from pathlib import Path

from memvet.store.crypto import new_key
from memvet.store.errors import NotFoundError, UsageError
from memvet.store.team import audit
from memvet.store.team.config import (
    Secrets,
    TeamConfig,
    choose_secret_provider,
    maybe_config,
    save_config,
    split_password,
)
from memvet.store.team.errors import TeamRefusedError, TeamUnavailableError
from memvet.store.team.schema import check_version, migrate_server
from memvet.store.team.server import connect
from memvet.store.team.session import SEALED, TeamSession, row_seal
from memvet.store.team.wrapping import (
    name_context,
    new_private_key,
    open_sealed,
    public_of,
    seal_to,
    wrap_context,
)

ROLES = ("admin", "approver", "member")
APPROVER_ROLES = ("admin", "approver")


def fingerprint(public_key: bytes) -> str:
    """What an admin compares with the joiner out of band before admitting it."""
    digest = hashlib.sha256(bytes(public_key)).hexdigest()[:20]
    return "-".join(digest[i : i + 4] for i in range(0, 20, 4))


def validate_policy(policy: object) -> dict[str, object]:
    """The team policy, checked whenever it is loaded: an invalid one stops (exit 3)."""
    ok = (
        isinstance(policy, dict)
        and set(policy) == {"approvals_required", "self_approval"}
        and type(policy["approvals_required"]) is int
        and 1 <= policy["approvals_required"] <= 20
        and type(policy["self_approval"]) is bool
    )
    if not ok:
        raise TeamUnavailableError(
            "the team policy is invalid (it needs approvals_required 1-20 and self_approval "
            "true/false, nothing else); an admin must set it again",
            code="team_policy_invalid",
        )
    return policy  # type: ignore[return-value]


def _prepare_home(home: Path, url: str) -> tuple[str, Secrets]:
    if maybe_config(home) is not None:
        raise TeamRefusedError(
            "this memvet home already belongs to a team (see `memvet team status`)",
            code="team_exists",
        )
    bare, password = split_password(url)
    keep = Secrets(home, choose_secret_provider())
    if password is not None:
        keep.put("db-password", password.encode())
    return bare, keep


def _team_row(
    session: TeamSession, team_id: str, personal: bool, policy: dict, join_private: bytes
) -> dict:
    c = session.cipher()
    row = {
        "id": team_id,
        "key_version": session.key_version,
        "key_id": c.dek_id,
        "personal": personal,
        "policy_ct": c.encrypt("teams", "policy", team_id, json.dumps(policy)),
        "join_public": public_of(join_private),
        "join_private_ct": c.encrypt(
            "teams", "join_private", team_id, base64.b64encode(join_private).decode()
        ),
    }
    row["row_mac"] = row_seal(c, "teams", team_id, row)
    return row


def create_team(
    home: Path,
    url: str,
    name: str,
    *,
    personal: bool = False,
    approvals_required: int = 1,
    self_approval: bool | None = None,
) -> TeamSession:
    bare, keep = _prepare_home(home, url)
    policy = validate_policy(
        {
            "approvals_required": approvals_required,
            "self_approval": personal if self_approval is None else self_approval,
        }
    )
    conn = connect(bare, keep.password())
    migrate_server(conn, empty_only=True)
    team_id, member_id = "t" + secrets.token_hex(8), "m" + secrets.token_hex(8)
    private = new_private_key()
    keep.put("member-key", private)
    config = TeamConfig(
        url=bare,
        team_id=team_id,
        member_id=member_id,
        name=name,
        personal=personal,
        secret_provider=keep.provider,
    )
    session = TeamSession(home, config, conn)
    team_key, join_private = new_key(), new_private_key()
    session.adopt_key(1, team_key, secrets.token_hex(4))
    row = _team_row(session, team_id, personal, policy, join_private)
    with conn.transaction():
        conn.execute(
            "INSERT INTO teams (id, key_version, key_id, personal, policy_ct, "
            "join_public, join_private_ct, created_at, row_mac) VALUES (%(id)s, "
            "%(key_version)s, %(key_id)s, %(personal)s, %(policy_ct)s, %(join_public)s, "
            "%(join_private_ct)s, now(), %(row_mac)s)",
            row,
        )
        _insert_member(
            conn,
            team_id,
            member_id,
            public_of(private),
            name,
            row["join_public"],
            role="admin",
            status="admitted",
        )
        _wrap_for(conn, session, member_id, public_of(private))
        audit.append(session, "team.created", "team", team_id)
        audit.append(session, "member.admitted", "member", member_id)
    save_config(home, config)
    return session


def _insert_member(
    conn,
    team_id: str,
    member_id: str,
    public: bytes,
    name: str,  # noqa: ANN001
    join_public: bytes,
    *,
    role: str,
    status: str,
) -> None:
    sealed = seal_to(bytes(join_public), name.encode(), name_context(team_id, member_id))
    conn.execute(
        "INSERT INTO team_members (team_id, id, public_key, name_sealed, role, status, "
        "joined_at) VALUES (%s, %s, %s, %s, %s, %s, now())",
        (team_id, member_id, public, sealed, role, status),
    )


def _wrap_for(conn, session: TeamSession, member_id: str, public: bytes) -> None:  # noqa: ANN001
    version = session.key_version
    wrapped = seal_to(
        bytes(public), session.keys[version], wrap_context(session.team_id, member_id, version)
    )
    conn.execute(
        "INSERT INTO team_key_wraps (team_id, member_id, key_version, wrapped) VALUES "
        "(%s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (session.team_id, member_id, version, wrapped),
    )


def join_team(home: Path, url: str, name: str, *, team_id: str | None = None) -> dict:
    """Register this home as a pending member; an admin admits it."""
    bare, keep = _prepare_home(home, url)
    conn = connect(bare, keep.password())
    try:
        check_version(conn)
        teams = [r[0] for r in conn.execute("SELECT id FROM teams ORDER BY created_at")]
        if team_id is None and len(teams) != 1:
            raise UsageError(
                f"the server holds {len(teams)} teams; say which with --team ID "
                "(the admin sees it in `memvet team status`)"
            )
        team_id = team_id if team_id is not None else str(teams[0])
        row = conn.execute(
            "SELECT join_public, personal FROM teams WHERE id = %s", (team_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no team {team_id} on this server")
        member_id, private = "m" + secrets.token_hex(8), new_private_key()
        keep.put("member-key", private)
        with conn.transaction():
            _insert_member(
                conn,
                team_id,
                member_id,
                public_of(private),
                name,
                row[0],
                role="member",
                status="pending",
            )
            conn.execute("SELECT pg_notify('memvet_team', %s)", (team_id,))
    finally:
        conn.close()
    save_config(
        home,
        TeamConfig(
            url=bare,
            team_id=team_id,
            member_id=member_id,
            name=name,
            personal=bool(row[1]),
            secret_provider=keep.provider,
        ),
    )
    return {
        "team": team_id,
        "member": member_id,
        "status": "pending",
        "fingerprint": fingerprint(public_of(private)),
    }


def _require_admin(session: TeamSession) -> None:
    role = session.conn.execute(
        "SELECT role FROM team_members WHERE team_id = %s AND id = %s AND status = 'admitted'",
        (session.team_id, session.member_id),
    ).fetchone()
    if not role or role[0] != "admin":
        raise TeamRefusedError("only a team admin can do this", code="team_not_admin")


def _member(session: TeamSession, member_id: str) -> tuple:
    row = session.conn.execute(
        "SELECT status, public_key, role FROM team_members WHERE team_id = %s AND id = %s",
        (session.team_id, member_id),
    ).fetchone()
    if row is None:
        raise NotFoundError(f"no member {member_id} in this team (see `memvet team members`)")
    return row


def admit(session: TeamSession, member_id: str, role: str = "member") -> dict:
    if role not in ROLES:
        raise UsageError(f"a role is one of {', '.join(ROLES)}")
    session.cipher()
    with session.write() as conn:
        _require_admin(session)
        status, public, _ = _member(session, member_id)
        if status != "pending":
            raise TeamRefusedError(
                f"member {member_id} is {status}, not pending", code="team_not_pending"
            )
        conn.execute(
            "UPDATE team_members SET status = 'admitted', role = %s, decided_at = now(), "
            "decided_by = %s WHERE team_id = %s AND id = %s",
            (role, session.member_id, session.team_id, member_id),
        )
        session.cipher()
        _wrap_for(conn, session, member_id, public)
        audit.append(session, "member.admitted", "member", member_id)
        session.notify()
    return {"id": member_id, "status": "admitted", "role": role, "key_version": session.key_version}


def remove(session: TeamSession, member_id: str) -> dict:
    """Remove a member and rotate the team key, in one transaction (rotation.py)."""
    from memvet.store.team.rotation import rotate

    session.cipher()
    with session.write() as conn:
        _require_admin(session)
        status, _, _ = _member(session, member_id)
        if member_id == session.member_id:
            raise TeamRefusedError(
                "an admin cannot remove itself; another admin can", code="team_remove_self"
            )
        if status == "removed":
            raise TeamRefusedError(
                f"member {member_id} was already removed", code="team_already_removed"
            )
        conn.execute(
            "UPDATE team_members SET status = 'removed', decided_at = now(), "
            "decided_by = %s WHERE team_id = %s AND id = %s",
            (session.member_id, session.team_id, member_id),
        )
        conn.execute(
            "DELETE FROM team_key_wraps WHERE team_id = %s AND member_id = %s",
            (session.team_id, member_id),
        )
        audit.append(session, "member.removed", "member", member_id)
        version = rotate(session)
        session.notify()
    return {"id": member_id, "status": "removed", "key_version": version}


def members(session: TeamSession) -> list[dict]:
    c = session.cipher()
    join_ct = session.conn.execute(
        "SELECT join_private_ct FROM teams WHERE id = %s", (session.team_id,)
    ).fetchone()[0]
    join_private = base64.b64decode(
        c.decrypt("teams", "join_private", session.team_id, join_ct) or ""
    )
    rows = session.conn.execute(
        "SELECT m.id, m.name_sealed, m.role, m.status, m.public_key, max(w.key_version) FROM "
        "team_members m LEFT JOIN team_key_wraps w ON w.team_id = m.team_id AND "
        "w.member_id = m.id WHERE m.team_id = %s GROUP BY m.id, m.name_sealed, m.role, m.status, "
        "m.public_key, m.joined_at ORDER BY m.joined_at",
        (session.team_id,),
    ).fetchall()
    out = []
    for member_id, sealed, role, status, public, version in rows:
        name = open_sealed(join_private, sealed, name_context(session.team_id, member_id))
        out.append(
            {
                "id": member_id,
                "name": name.decode() if name else None,
                "role": role,
                "status": status,
                "key_version": version,
                "fingerprint": fingerprint(public),
            }
        )
    return out


def policy(session: TeamSession) -> dict[str, object]:
    row = session.conn.execute(
        "SELECT policy_ct, key_version, key_id, personal, row_mac FROM teams WHERE id = %s",
        (session.team_id,),
    ).fetchone()
    c = session.cipher()
    from memvet.store.team.session import check_seal

    check_seal(
        c,
        "teams",
        session.team_id,
        dict(zip(("policy_ct",) + SEALED["teams"] + ("row_mac",), row, strict=True)),
    )
    try:
        loaded = json.loads(c.decrypt("teams", "policy", session.team_id, row[0]) or "")
    except ValueError:
        loaded = None
    return validate_policy(loaded)
