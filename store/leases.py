"""The one rule for an approval lease that ran out: a `reserved` candidate whose lease has
expired is `stale` — shown and filtered as such at read time, so a crashed approval is visible
(and recoverable) without a daemon to run the sweep that records it."""

from __future__ import annotations

from datetime import UTC, datetime

from memvet.store.vocabulary import CandidateStatus

TYPE_CHECKING = False  # read_layer.py imports this module without SQLAlchemy or typing
if TYPE_CHECKING:
    from collections.abc import Iterable

    import sqlalchemy as sa

RESERVED, STALE = CandidateStatus.RESERVED, CandidateStatus.STALE
LEASED = frozenset((RESERVED, STALE))  # held, live or run out: the lease time tells which


def default_owner(tool: str) -> str:
    """Who holds a lease and decided a candidate, as the audit names them (the same string
    whichever process does the work: the daemon approves under the command's name)."""
    import os  # os.uname's node name is gethostname(): socket.py would cost the command ~5 ms

    return f"{tool} pid {os.getpid()} on {os.uname().nodename}"


def lease_expired(expires_at: datetime | None, now: datetime) -> bool:
    if expires_at is None:
        return False
    if expires_at.tzinfo is None:  # SQLite hands back naive UTC
        expires_at = expires_at.replace(tzinfo=UTC)
    return expires_at < now


def shown_status(status: str, expires_at: datetime | None, now: datetime) -> str:
    return STALE if status == RESERVED and lease_expired(expires_at, now) else status


def expired_clause(table: sa.Table, now: datetime) -> sa.ColumnElement[bool]:
    import sqlalchemy as sa

    return sa.and_(table.c.status == RESERVED, table.c.lease_expires_at < now)


def status_clause(
    table: sa.Table, statuses: Iterable[str], now: datetime
) -> sa.ColumnElement[bool]:
    """`status IN (…)` by shown status, kept index-friendly: an expired reservation counts as
    stale, not as reserved. `status_sql` is the same rule in SQL text (a test compares them)."""
    import sqlalchemy as sa

    wanted = set(statuses)
    if LEASED <= wanted or not wanted & LEASED:
        return table.c.status.in_(sorted(wanted))
    plain = sorted(wanted - {RESERVED})
    if STALE in wanted:
        return sa.or_(table.c.status.in_(plain), expired_clause(table, now))
    return sa.or_(
        table.c.status.in_(plain),
        sa.and_(
            table.c.status == RESERVED,
            sa.or_(table.c.lease_expires_at.is_(None), table.c.lease_expires_at >= now),
        ),
    )


def status_sql(statuses: Iterable[str], now: str) -> tuple[str, list[str]]:
    """status_clause as SQL text and parameters, for the sqlite3 read path (read_layer.py);
    `now` as SQLite holds times."""
    wanted = set(statuses)

    def among(names: Iterable[str]) -> tuple[str, list[str]]:
        names = sorted(names)
        return f"status IN ({','.join('?' * len(names))})" if names else "0", names

    if LEASED <= wanted or not wanted & LEASED:
        return among(wanted)
    plain, params = among(wanted - {RESERVED})
    if STALE in wanted:
        return (f"{plain} OR (status = '{RESERVED}' AND lease_expires_at < ?)", [*params, now])
    return (
        f"{plain} OR (status = '{RESERVED}' "
        "AND (lease_expires_at IS NULL OR lease_expires_at >= ?))",
        [*params, now],
    )


def shown_counts(by_status: dict[str, int], expired: int) -> dict[str, int]:
    """Counts by recorded status, with the `expired` reservations among them moved to stale
    (two indexed counts: cheaper than a CASE over every row)."""
    counts = dict(by_status)
    if expired:
        counts["stale"] = counts.get("stale", 0) + expired
        counts["reserved"] = counts.get("reserved", 0) - expired
        if not counts["reserved"]:
            del counts["reserved"]
    return counts
