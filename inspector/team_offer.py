"""Offering a memory or a candidate to the team from the inspector (`T` on the Memories and the
Queue screens): the same store calls as `memvet memories share ID`, and the toast that says
what became of it. No Textual here; the screens run `offer*` in a worker thread (it may reach
the team server)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from memvet.inspector.formatting import one_line
from memvet.inspector.jobs import Outcome, attempt
from memvet.store import Candidate, Memory, Store

NO_TEAM = "team_not_configured"


@dataclass(frozen=True)
class Toast:
    text: str
    severity: Literal["information", "warning", "error"]
    timeout: float = 8.0


def offer(store: Store, memory_id: str) -> Outcome:
    from memvet.store.team.share import offer_memory  # the team code only when asked for

    return attempt(offer_memory, store, memory_id)


def offer_candidate(store: Store, candidate_id: str) -> Outcome:
    from memvet.store.team.share import offer_candidate as offer_to_team

    return attempt(offer_to_team, store, candidate_id)


def toast(record: Memory | Candidate, outcome: Outcome) -> Toast:
    statement = one_line(record.statement, 60)
    if outcome.ok and not outcome.value["offline"]:
        return Toast(f"Offered to the team (a team approver decides): {statement}", "information")
    if outcome.ok:  # queued in the outbox; the exit-3 cause says what to check
        return Toast(f"Queued for the team: {statement}. {outcome.value['cause']}", "warning", 12)
    if outcome.code == NO_TEAM:
        return Toast(f"Not offered: {outcome.error}", "warning", 12)
    return Toast(f"Could not offer to the team: {outcome.error}", "error", 12)
