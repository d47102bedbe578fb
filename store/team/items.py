"""Team candidates, memories and tombstones on the server. Every write is one transaction under
the team lock (session.write); every write is idempotent by its client-made id, so an outbox
replay after a lost reply changes nothing. Approval (reserve, commit, recover) is approval.py."""

from __future__ import annotations

import secrets

from memvet.store.errors import NotFoundError
from memvet.store.team import audit
from memvet.store.team.errors import TeamRefusedError
from memvet.store.team.session import TeamSession, check_seal, row_seal
from memvet.store.vocabulary import CandidateStatus, MemoryStatus

CAND_COLS = (
    "id",
    "status",
    "kind",
    "polarity",
    "statement_key",
    "workspace_bidx",
    "proposed_by",
    "decided_by",
    "memory_id",
    "statement_ct",
    "workspace_ct",
    "row_mac",
    "seq",
    "created_at",
)
MEM_COLS = (
    "id",
    "candidate_id",
    "status",
    "kind",
    "polarity",
    "statement_key",
    "workspace_bidx",
    "approved_by",
    "statement_ct",
    "workspace_ct",
    "row_mac",
    "seq",
)
TOMB_COLS = (
    "id",
    "statement_key",
    "workspace_bidx",
    "reason",
    "source_id",
    "created_by",
    "statement_ct",
    "workspace_ct",
    "row_mac",
    "seq",
)
NEXT = "nextval('team_change_seq')"


def new_item_id(prefix: str = "tc") -> str:
    return prefix + secrets.token_hex(10)


def memory_id_of(candidate_id: str) -> str:
    """Derived from the candidate: a second commit of one candidate cannot make a second memory."""
    return "tm" + candidate_id[2:]


def _role(session: TeamSession) -> str | None:
    row = session.conn.execute(
        "SELECT role FROM team_members WHERE team_id = %s AND id = %s AND status = 'admitted'",
        (session.team_id, session.member_id),
    ).fetchone()
    return row[0] if row else None


def blocking_tombstone(session: TeamSession, statement: str, remote: str | None) -> str | None:
    """The team tombstone that blocks this statement here (same rule as the local one: the
    same workspace, or one of the two is team-wide)."""
    c = session.cipher()
    ws = c.blind_index("workspace", remote)
    row = session.conn.execute(
        "SELECT id FROM team_tombstones WHERE team_id = %s AND statement_key = %s AND "
        "(workspace_bidx IS NULL OR %s::text IS NULL OR workspace_bidx = %s) LIMIT 1",
        (session.team_id, c.statement_key("team", statement), ws, ws),
    ).fetchone()
    return row[0] if row else None


def propose(
    session: TeamSession, item_id: str, statement: str, kind: str, polarity: str, remote: str | None
) -> dict:
    """A team candidate (or, in a personal team, a memory at once: its owner approved it on
    one machine already). Idempotent by item_id; refused over a team tombstone."""
    c = session.cipher()
    personal = session.config.personal
    with session.write() as conn:
        c = session.cipher()
        table = "team_memories" if personal else "team_candidates"
        rid = memory_id_of(item_id) if personal else item_id
        done = conn.execute(
            f"SELECT status FROM {table} WHERE team_id = %s AND id = %s", (session.team_id, rid)
        ).fetchone()
        if done:
            return {"id": rid, "status": done[0], "replayed": True}
        hit = blocking_tombstone(session, statement, remote)
        if hit:
            raise TeamRefusedError(
                "the team rejected this statement before (team tombstone "
                f"{hit}); it is not offered again",
                code="tombstoned",
            )
        row = {
            "status": MemoryStatus.ACTIVE if personal else CandidateStatus.PENDING,
            "kind": kind,
            "polarity": polarity,
            "statement_key": c.statement_key("team", statement),
            "workspace_bidx": c.blind_index("workspace", remote),
            "proposed_by": session.member_id,
            "decided_by": None,
            "memory_id": None,
            "candidate_id": item_id,
            "approved_by": session.member_id,
        }
        values = {
            **row,
            "id": rid,
            "team_id": session.team_id,
            "statement_ct": c.encrypt(table, "statement", rid, statement),
            "workspace_ct": c.encrypt(table, "workspace", rid, remote),
            "row_mac": row_seal(c, table, rid, row),
        }
        if personal:
            conn.execute(
                f"INSERT INTO team_memories (team_id, id, seq, candidate_id, status, "
                f"kind, polarity, statement_key, workspace_bidx, statement_ct, "
                f"workspace_ct, approved_by, created_at, updated_at, row_mac) VALUES "
                f"(%(team_id)s, %(id)s, {NEXT}, %(candidate_id)s, %(status)s, %(kind)s, "
                "%(polarity)s, %(statement_key)s, %(workspace_bidx)s, %(statement_ct)s, "
                "%(workspace_ct)s, %(approved_by)s, now(), now(), %(row_mac)s)",
                values,
            )
            audit.append(session, "memory.shared", "memory", rid)
        else:
            conn.execute(
                f"INSERT INTO team_candidates (team_id, id, seq, status, kind, polarity, "
                "statement_key, workspace_bidx, statement_ct, workspace_ct, proposed_by, "
                "created_at, updated_at, row_mac) VALUES (%(team_id)s, %(id)s, "
                f"{NEXT}, %(status)s, %(kind)s, %(polarity)s, %(statement_key)s, "
                "%(workspace_bidx)s, %(statement_ct)s, %(workspace_ct)s, "
                "%(proposed_by)s, now(), now(), %(row_mac)s)",
                values,
            )
            audit.append(session, "candidate.proposed", "candidate", rid)
        session.notify()
    return {"id": rid, "status": row["status"], "replayed": False}


def _locked_candidate(session: TeamSession, candidate_id: str) -> dict:
    row = session.conn.execute(
        f"SELECT {', '.join(CAND_COLS)} FROM team_candidates WHERE "
        "team_id = %s AND id = %s FOR UPDATE",
        (session.team_id, candidate_id),
    ).fetchone()
    if row is None:
        raise NotFoundError(f"no team candidate {candidate_id}")
    cand = dict(zip(CAND_COLS, row, strict=True))
    check_seal(session.cipher(), "team_candidates", candidate_id, cand)
    return cand


def _decide(session: TeamSession, cand: dict, status: str, memory_id: str | None) -> None:
    c = session.cipher()
    cand = {**cand, "status": status, "decided_by": session.member_id, "memory_id": memory_id}
    session.conn.execute(
        f"UPDATE team_candidates SET status = %s, decided_by = %s, memory_id = "
        f"%s, seq = {NEXT}, updated_at = now(), row_mac = %s, lease_owner = NULL, "
        "lease_token = NULL, lease_expires_at = NULL WHERE team_id = %s AND id = %s AND "
        f"status IN ('{CandidateStatus.PENDING}', '{CandidateStatus.RESERVED}')",
        (
            status,
            session.member_id,
            memory_id,
            row_seal(c, "team_candidates", cand["id"], cand),
            session.team_id,
            cand["id"],
        ),
    )
