"""Team tombstones: a rejected team candidate, or a team memory marked a false write, blocks
its statement for the whole team (items.blocking_tombstone); every member's sync retires the
local copy and refuses to offer the statement to the team again. Tombstones travel: they are
rows with change numbers like memories."""

from __future__ import annotations

from memvet.store.errors import NotFoundError
from memvet.store.team import audit
from memvet.store.team.errors import TeamRefusedError
from memvet.store.team.items import (
    MEM_COLS,
    NEXT,
    _decide,
    _locked_candidate,
    _role,
    new_item_id,
)
from memvet.store.team.members import APPROVER_ROLES
from memvet.store.team.session import TeamSession, check_seal, row_seal
from memvet.store.vocabulary import CandidateStatus, MemoryStatus, TombstoneReason


def _write_tombstone(session: TeamSession, table: str, source: dict, reason: str) -> str:
    c = session.cipher()
    statement = c.decrypt(table, "statement", source["id"], source["statement_ct"])
    remote = c.decrypt(table, "workspace", source["id"], source["workspace_ct"])
    tid = "tt" + source["id"][2:]  # one tombstone per source: a replay writes none
    if session.conn.execute(
        "SELECT 1 FROM team_tombstones WHERE team_id = %s AND id = %s", (session.team_id, tid)
    ).fetchone():
        return tid
    row = {
        "statement_key": source["statement_key"],
        "workspace_bidx": source["workspace_bidx"],
        "reason": reason,
        "source_id": source["id"],
        "created_by": session.member_id,
    }
    session.conn.execute(
        f"INSERT INTO team_tombstones (team_id, id, seq, statement_key, workspace_bidx, "
        f"statement_ct, workspace_ct, reason, source_id, created_by, created_at, row_mac) VALUES "
        f"(%s, %s, {NEXT}, %s, %s, %s, %s, %s, %s, %s, now(), %s)",
        (
            session.team_id,
            tid,
            row["statement_key"],
            row["workspace_bidx"],
            c.encrypt("team_tombstones", "statement", tid, statement),
            c.encrypt("team_tombstones", "workspace", tid, remote),
            reason,
            source["id"],
            session.member_id,
            row_seal(c, "team_tombstones", tid, row),
        ),
    )
    audit.append(session, "tombstone.written", "tombstone", tid)
    return tid


def require_approver(session: TeamSession, what: str) -> None:
    """In a personal team every member is the same person: each machine may retire."""
    if session.config.personal and _role(session) is not None:
        return
    if _role(session) not in APPROVER_ROLES:
        raise TeamRefusedError(f"{what} needs the approver role", code="team_not_approver")


def reject(
    session: TeamSession, candidate_id: str, reason: str = "rejected", *, recovery: bool = False
) -> dict:
    """Pending → rejected (or, in an operator's recovery, reserved → rejected) and tombstoned."""
    session.cipher()
    with session.write():
        require_approver(session, "rejecting a team candidate")
        cand = _locked_candidate(session, candidate_id)
        if cand["status"] != (CandidateStatus.RESERVED if recovery else CandidateStatus.PENDING):
            if cand["status"] == CandidateStatus.REJECTED:
                return {"id": candidate_id, "status": CandidateStatus.REJECTED}
            raise TeamRefusedError(
                f"team candidate {candidate_id} is already {cand['status']}",
                code="already_decided",
                holder=cand["decided_by"],
            )
        _decide(session, cand, CandidateStatus.REJECTED, None)
        audit.append(session, "candidate.rejected", "candidate", candidate_id)
        _write_tombstone(session, "team_candidates", cand, TombstoneReason.REJECTED)
        session.notify()
    return {"id": candidate_id, "status": CandidateStatus.REJECTED}


def false_write(
    session: TeamSession, memory_id: str, reason: str = TombstoneReason.FALSE_WRITE
) -> dict:
    """Retire a team memory and tombstone its statement for the team (idempotent)."""
    session.cipher()
    with session.write() as conn:
        require_approver(session, "retiring a team memory")
        found = conn.execute(
            f"SELECT {', '.join(MEM_COLS)} FROM team_memories WHERE team_id = %s "
            "AND id = %s FOR UPDATE",
            (session.team_id, memory_id),
        ).fetchone()
        if found is None:
            raise NotFoundError(f"no team memory {memory_id}")
        mem = dict(zip(MEM_COLS, found, strict=True))
        c = session.cipher()
        check_seal(c, "team_memories", memory_id, mem)
        if mem["status"] != MemoryStatus.RETIRED:
            mem["status"] = MemoryStatus.RETIRED
            conn.execute(
                f"UPDATE team_memories SET status = '{MemoryStatus.RETIRED}', seq = {NEXT}, "
                "updated_at = now(), row_mac = %s WHERE team_id = %s AND id = %s",
                (row_seal(c, "team_memories", memory_id, mem), session.team_id, memory_id),
            )
            audit.append(session, "memory.false_write", "memory", memory_id)
        tid = _write_tombstone(session, "team_memories", mem, reason)
        session.notify()
    return {"id": memory_id, "status": MemoryStatus.RETIRED, "tombstone": tid}


def publish(session: TeamSession, item_id: str, statement: str, remote: str | None) -> dict:
    """A personal team: a statement one machine rejected, tombstoned for the others
    (idempotent by item id)."""
    c = session.cipher()
    with session.write():
        require_approver(session, "tombstoning a statement")
        c = session.cipher()
        source = {
            "id": item_id,
            "statement_key": c.statement_key("team", statement),
            "workspace_bidx": c.blind_index("workspace", remote),
            "statement_ct": c.encrypt("team_candidates", "statement", item_id, statement),
            "workspace_ct": c.encrypt("team_candidates", "workspace", item_id, remote),
        }
        tid = _write_tombstone(session, "team_candidates", source, TombstoneReason.REJECTED)
        session.notify()
    return {"id": tid, "status": "tombstoned"}


__all__ = ["false_write", "new_item_id", "publish", "reject"]
