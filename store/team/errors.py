"""The team store's errors, each with its cause and its fix. Messages name the server as
host:port/database only: never a password, never a whole connection URL."""

from __future__ import annotations

from memvet.store.errors import MemvetError, StoreUnavailableError


class TeamUnavailableError(StoreUnavailableError):
    """Exit 3: the server cannot be used (unreachable, wrong password, schema, no team key)."""

    code = "team_unavailable"


class TeamRefusedError(MemvetError):
    """Exit 1: the server refused this action (role, policy, already decided, tombstoned)."""

    code = "team_refused"


def unreachable(where: str) -> TeamUnavailableError:
    return TeamUnavailableError(
        f"the team server {where} cannot be reached; check that PostgreSQL runs and accepts "
        "connections there (host, port, pg_hba.conf). Local memory keeps working and team "
        "writes wait in the outbox until `memvet sync` reaches it.",
        code="team_unreachable",
        server=where,
    )


def auth_failed(where: str) -> TeamUnavailableError:
    return TeamUnavailableError(
        f"the team server {where} refused the login (wrong user or password); put the right "
        "password in the URL, in a PGPASSFILE entry, or run `memvet team join URL` again to "
        "store it in the keyring",
        code="team_auth",
        server=where,
    )


def schema_error(found: int, expected: int) -> TeamUnavailableError:
    if found == 0:
        fix = "run `memvet team create URL --name NAME` to set up a team on it"
    elif found < expected:
        fix = "run `memvet team migrate` to upgrade the server schema"
    else:
        fix = "upgrade memvet on this machine (`pip install -U memvet`); the server is newer"
    return TeamUnavailableError(
        f"the team server's schema is at version {found} and this memvet expects {expected}; {fix}",
        code="team_schema_mismatch",
        found=found,
        expected=expected,
    )


def no_team_key(member_id: str, status: str) -> TeamUnavailableError:
    why = (
        "it is waiting to be admitted"
        if status == "pending"
        else "it was removed from the team"
        if status == "removed"
        else "its private key does not open the team key"
    )
    return TeamUnavailableError(
        f"this member ({member_id}) has no team key: {why}. Ask a team admin to run "
        f"`memvet team admit {member_id}`",
        code="team_no_key",
        member=member_id,
        status=status,
    )


def not_configured() -> TeamUnavailableError:
    return TeamUnavailableError(
        "this memvet home belongs to no team; run `memvet team create URL --name NAME` or "
        "`memvet team join URL --name NAME`",
        code="team_not_configured",
    )
