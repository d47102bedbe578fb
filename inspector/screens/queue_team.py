"""`T` on the queue: offer the highlighted candidate to the team (docs/team.md), as `T` does
for a memory on the Memories screen. A mixin of QueueScreen; the offer runs in a worker thread
because it may reach the team server. The local candidate stays in this queue."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memvet.inspector.messages import CandidateOffered
from memvet.inspector.team_offer import offer_candidate, toast
from memvet.store import Candidate
from textual import work

if TYPE_CHECKING:
    from memvet.inspector.screens.review_screen import ReviewScreen as _Screen
    from memvet.inspector.widgets.queue_table import QueueTable
else:
    _Screen = object  # at run time a plain mixin; the type checker sees the screen it joins


class QueueTeam(_Screen):
    if TYPE_CHECKING:  # QueueScreen's (queue.py), declared for the type checker

        @property
        def table(self) -> QueueTable: ...

    def action_share_team(self) -> None:
        key = self.table.current_key
        if key is not None:
            self._share_team(self.table.records[key])

    @work(thread=True, group="team", exit_on_error=False)
    def _share_team(self, candidate: Candidate) -> None:
        self.post_message(CandidateOffered(candidate, offer_candidate(self.store, candidate.id)))

    def on_candidate_offered(self, message: CandidateOffered) -> None:
        note = toast(message.candidate, message.outcome)
        self.notify(note.text, severity=note.severity, timeout=note.timeout)
