"""Approving a team candidate: the local reservation protocol, held on the server.

reserve (compare-and-set pending → reserved, with a lease by the server's clock) → commit
(the lease's token must still match) or release on failure. Each step is one transaction under
the team lock, so two approvers on two machines never commit twice. A machine that dies between
reserve and commit leaves a lease that runs out: the candidate shows as `stale` and an operator
settles it (`memvet team recover ID --commit|--release|--reject`, audited); a live lease is
recovered only with `--force` (its machine is known to be gone). Lease columns are not sealed:
a server that shortened a lease could make a candidate recoverable early, never commit it.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from memvet.store.errors import MemvetError, UsageError
from memvet.store.team import audit, tombstones
from memvet.store.team.errors import TeamRefusedError
from memvet.store.team.items import NEXT, _decide, _locked_candidate, _role, memory_id_of
from memvet.store.team.members import APPROVER_ROLES, policy
from memvet.store.team.session import TeamSession, row_seal
from memvet.store.vocabulary import CandidateStatus, MemoryStatus

DEFAULT_LEASE = timedelta(minutes=2)  # as the local store's
RECOVERY_ACTIONS = ("commit", "release", "reject")


def _lease(session: TeamSession, candidate_id: str) -> dict:
    """The locked candidate's lease: owner, token, expiry, and whether it ran out (server clock)."""
    owner, token, expires, expired = session.conn.execute(
        "SELECT lease_owner, lease_token, lease_expires_at, lease_expires_at < now() "
        "FROM team_candidates WHERE team_id = %s AND id = %s",
        (session.team_id, candidate_id),
    ).fetchone()
    return {"owner": owner, "token": token, "expires_at": expires, "expired": bool(expired)}


def _require_approver(session: TeamSession) -> None:
    if _role(session) not in APPROVER_ROLES:
        raise TeamRefusedError(
            "approving team candidates needs the approver role (an admin "
            "grants it: `memvet team admit MEMBER --role approver`)",
            code="team_not_approver",
        )


def _set_status(session: TeamSession, cand: dict, status: str, lease: dict | None) -> None:
    """pending ↔ reserved, resealed; `lease` None clears it."""
    c = session.cipher()
    lease = lease or {"owner": None, "token": None, "ttl": None}
    session.conn.execute(
        f"UPDATE team_candidates SET status = %s, seq = {NEXT}, updated_at = now(), "
        "row_mac = %s, lease_owner = %s, lease_token = %s, lease_expires_at = "
        "now() + make_interval(secs => %s::float8) WHERE team_id = %s AND id = %s",
        (
            status,
            row_seal(c, "team_candidates", cand["id"], {**cand, "status": status}),
            lease["owner"],
            lease["token"],
            lease["ttl"],
            session.team_id,
            cand["id"],
        ),
    )


def _check_may_approve(session: TeamSession, cand: dict, rules: dict) -> None:
    if cand["proposed_by"] == session.member_id and not rules["self_approval"]:
        raise TeamRefusedError(
            "the team policy does not let a member approve its own proposal (self_approval "
            "is false)",
            code="self_approval",
        )


def _refuse_not_pending(session: TeamSession, cand: dict) -> None:
    if cand["status"] == CandidateStatus.RESERVED:
        lease = _lease(session, cand["id"])
        state = "ran out (stale)" if lease["expired"] else "runs"
        raise TeamRefusedError(
            f"team candidate {cand['id']} is held by member {lease['owner']}; its lease "
            f"{state} until {lease['expires_at'].isoformat()} (an operator settles a stale "
            f"one: `memvet team recover {cand['id']} --commit|--release|--reject`)",
            code="reservation_held",
            holder=lease["owner"],
        )
    raise TeamRefusedError(
        f"team candidate {cand['id']} is already {cand['status']} (by member {cand['decided_by']})",
        code="already_decided",
        holder=cand["decided_by"],
    )


def reserve(session: TeamSession, candidate_id: str, ttl: timedelta = DEFAULT_LEASE) -> str:
    """Compare-and-set pending → reserved for this member; returns the lease token."""
    rules = policy(session)  # an invalid policy stops before anything is held
    with session.write():
        _require_approver(session)
        cand = _locked_candidate(session, candidate_id)
        if cand["status"] != CandidateStatus.PENDING:
            _refuse_not_pending(session, cand)
        _check_may_approve(session, cand, rules)
        token = secrets.token_hex(16)
        lease = {"owner": session.member_id, "token": token, "ttl": ttl.total_seconds()}
        _set_status(session, cand, CandidateStatus.RESERVED, lease)
    return token


def _approve_reserved(session: TeamSession, cand: dict) -> dict:
    """This member's approval of a reserved candidate, in the caller's transaction: committed
    once enough approvers agreed, else back to pending (approval counted)."""
    rules = policy(session)
    cid = cand["id"]
    _check_may_approve(session, cand, rules)
    session.conn.execute(
        "INSERT INTO team_approvals (team_id, candidate_id, member_id, at) VALUES "
        "(%s, %s, %s, now()) ON CONFLICT DO NOTHING",
        (session.team_id, cid, session.member_id),
    )
    count = session.conn.execute(
        "SELECT count(*) FROM team_approvals WHERE team_id = %s AND candidate_id = %s",
        (session.team_id, cid),
    ).fetchone()[0]
    audit.append(session, "candidate.approved", "candidate", cid)
    if count < rules["approvals_required"]:
        _set_status(session, cand, CandidateStatus.PENDING, None)
        return {
            "id": cid,
            "status": CandidateStatus.PENDING,
            "memory_id": None,
            "approvals": count,
            "approvals_required": rules["approvals_required"],
        }
    mid = memory_id_of(cid)
    _commit_memory(session, cand, mid)
    _decide(session, cand, CandidateStatus.COMMITTED, mid)
    audit.append(session, "candidate.committed", "candidate", cid)
    session.notify()
    return {"id": cid, "status": CandidateStatus.COMMITTED, "memory_id": mid}


def commit(session: TeamSession, candidate_id: str, token: str) -> dict:
    """Commit under this member's lease (idempotent for its own commit). A lease an operator
    recovered meanwhile is refused: the other outcome stands."""
    with session.write():
        cand = _locked_candidate(session, candidate_id)
        if cand["status"] == CandidateStatus.COMMITTED and cand["decided_by"] == session.member_id:
            return {
                "id": candidate_id,
                "status": CandidateStatus.COMMITTED,
                "memory_id": cand["memory_id"],
            }
        if (
            cand["status"] != CandidateStatus.RESERVED
            or _lease(session, candidate_id)["token"] != token
        ):
            raise TeamRefusedError(
                f"this member's lease on team candidate {candidate_id} is gone (an operator "
                f"recovered it; it is now {cand['status']})",
                code="lease_lost",
                holder=cand["decided_by"],
            )
        return _approve_reserved(session, cand)


def release(session: TeamSession, candidate_id: str, token: str | None) -> None:
    """Give a lease back (this member's, by token; an operator's recovery passes None)."""
    with session.write():
        cand = _locked_candidate(session, candidate_id)
        if cand["status"] != CandidateStatus.RESERVED:
            return
        if token is not None and _lease(session, candidate_id)["token"] != token:
            return  # recovered and perhaps re-reserved meanwhile: not ours to give back
        _set_status(session, cand, CandidateStatus.PENDING, None)
        audit.append(session, "candidate.released", "candidate", candidate_id)


def approve(session: TeamSession, candidate_id: str, ttl: timedelta = DEFAULT_LEASE) -> dict:
    """Reserve and commit; release with the error kept if anything fails in between. A replay
    of this member's own committed approval returns it."""
    try:
        token = reserve(session, candidate_id, ttl)
    except TeamRefusedError as exc:
        if exc.code == "already_decided" and exc.details.get("holder") == session.member_id:
            cand = session.conn.execute(
                "SELECT status, memory_id FROM team_candidates WHERE team_id = %s AND id = %s",
                (session.team_id, candidate_id),
            ).fetchone()
            if cand and cand[0] == CandidateStatus.COMMITTED:
                return {
                    "id": candidate_id,
                    "status": CandidateStatus.COMMITTED,
                    "memory_id": cand[1],
                }
        raise
    try:
        return commit(session, candidate_id, token)
    except MemvetError:
        try:
            release(session, candidate_id, token)
        except MemvetError:
            pass  # the server went away too: the lease runs out and an operator settles it
        raise


def recover(session: TeamSession, candidate_id: str, action: str, *, force: bool = False) -> dict:
    """An operator settles a reservation whose machine died: commit (as this member's approval),
    release (back to pending) or reject (and tombstone). Audited as `lease.recovered`."""
    if action not in RECOVERY_ACTIONS:
        raise UsageError(f"unknown recovery action {action!r}: commit, release or reject")
    with session.write():
        tombstones.require_approver(session, "recovering a team reservation")
        cand = _locked_candidate(session, candidate_id)
        if cand["status"] != CandidateStatus.RESERVED:
            raise TeamRefusedError(
                f"team candidate {candidate_id} is {cand['status']}, not reserved: there is "
                "no lease to recover",
                code="not_reserved",
                holder=cand["decided_by"],
            )
        lease = _lease(session, candidate_id)
        if not lease["expired"] and not force:
            raise TeamRefusedError(
                f"the lease of member {lease['owner']} on team candidate {candidate_id} runs "
                f"until {lease['expires_at'].isoformat()}; wait for it to run out, or pass "
                "--force if that approver's machine is known to be gone",
                code="lease_live",
                holder=lease["owner"],
            )
        audit.append(session, "lease.recovered", "candidate", candidate_id)
        if action == "commit":
            return _approve_reserved(session, cand)
        if action == "reject":
            return tombstones.reject(session, candidate_id, "stale lease", recovery=True)
        _set_status(session, cand, CandidateStatus.PENDING, None)
        audit.append(session, "candidate.released", "candidate", candidate_id)
        session.notify()
    return {"id": candidate_id, "status": CandidateStatus.PENDING, "memory_id": None}


def _commit_memory(session: TeamSession, cand: dict, mid: str) -> None:
    c = session.cipher()
    statement = c.decrypt("team_candidates", "statement", cand["id"], cand["statement_ct"])
    remote = c.decrypt("team_candidates", "workspace", cand["id"], cand["workspace_ct"])
    row = {
        "candidate_id": cand["id"],
        "status": MemoryStatus.ACTIVE,
        "kind": cand["kind"],
        "polarity": cand["polarity"],
        "statement_key": cand["statement_key"],
        "workspace_bidx": cand["workspace_bidx"],
        "approved_by": session.member_id,
    }
    session.conn.execute(
        f"INSERT INTO team_memories (team_id, id, seq, candidate_id, status, kind, polarity, "
        f"statement_key, workspace_bidx, statement_ct, workspace_ct, approved_by, created_at, "
        f"updated_at, row_mac) VALUES (%s, %s, {NEXT}, %s, %s, %s, %s, %s, %s, %s, %s, %s, now(), "
        "now(), %s) ON CONFLICT DO NOTHING",
        (
            session.team_id,
            mid,
            cand["id"],
            MemoryStatus.ACTIVE,
            cand["kind"],
            cand["polarity"],
            cand["statement_key"],
            cand["workspace_bidx"],
            c.encrypt("team_memories", "statement", mid, statement),
            c.encrypt("team_memories", "workspace", mid, remote),
            session.member_id,
            row_seal(c, "team_memories", mid, row),
        ),
    )
