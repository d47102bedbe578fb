"""The command palette's record search: pending candidates and memories by their statement.

Choosing a hit opens the screen that holds it with the cursor on its row. The records are read
once when the palette opens (in a thread: decrypting is the store's work, not the UI's), at most
SEARCH_LIMIT of each, newest first.
"""

from __future__ import annotations

import asyncio
from functools import partial

from memvet.inspector.formatting import one_line
from textual.command import Hit, Hits, Provider

SEARCH_LIMIT = 500


def _records(app) -> list[tuple[str, str, str]]:  # noqa: ANN001
    """(screen, id, statement) of what the palette can find."""
    from memvet.store.candidates import QueueFilter
    from memvet.store.vocabulary import MEMORY_STATUSES, REVIEWABLE_STATUSES

    store, reader = app.store, app.reader
    if store is None:
        return []
    found = [
        ("queue", c.id, c.statement)
        for c in store.list_candidates(
            reader, QueueFilter(statuses=REVIEWABLE_STATUSES), limit=SEARCH_LIMIT
        )
    ]
    found += [
        ("memories", m.id, m.statement)
        for m in store.list_memories(reader, statuses=MEMORY_STATUSES, limit=SEARCH_LIMIT)
    ]
    return found


class RecordSearch(Provider):
    async def startup(self) -> None:
        try:
            self.records = await asyncio.to_thread(_records, self.app)
        except Exception:  # noqa: BLE001 - a store problem shows elsewhere; search finds nothing
            self.records = []

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for screen, record_id, statement in getattr(self, "records", []):
            text = one_line(statement, 120)
            score = matcher.match(text)
            if score > 0:
                label = "candidate" if screen == "queue" else "memory"
                yield Hit(
                    score,
                    matcher.highlight(text),
                    partial(self._open, screen, record_id),
                    help=f"{label} {record_id}",
                )

    def _open(self, screen: str, record_id: str) -> None:
        app = self.app
        app.switch_mode(screen)
        app.call_later(_move_to, app, record_id)


def _move_to(app, record_id: str) -> None:  # noqa: ANN001
    table = getattr(app.screen, "table", None)
    if table is not None and record_id in getattr(table, "records", {record_id: None}):
        table.move_to_key(record_id)
