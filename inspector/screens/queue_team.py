"""`T` on the queue: offer the highlighted candidate to the team (docs/team.md), as `T` does
for a memory on the Memories screen. A mixin of QueueScreen; the offer runs in a worker thread
because it may reach the team server. The local candidate stays in this queue."""

from __future__ import annotations

from memvet.inspector.messages import CandidateOffered
from memvet.inspector.team_offer import offer_candidate, toast
from memvet.store import Candidate
from textual import work


class QueueTeam:
    def action_share_team(self) -> None:
        key = self.table.current_key
        if key is not None:
            self._share_team(self.table.records[key])

    @work(thread=True, group="team", exit_on_error=False)
    def _share_team(self, candidate: Candidate) -> None:
        self.post_message(
            CandidateOffered(candidate, offer_candidate(self.app.store, candidate.id))
        )

    def on_candidate_offered(self, message: CandidateOffered) -> None:
        note = toast(message.candidate, message.outcome)
        self.notify(note.text, severity=note.severity, timeout=note.timeout)
