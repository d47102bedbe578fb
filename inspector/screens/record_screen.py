"""What the record screens (Memories, Recovery, Tombstones, Audit) share: one RecordTable,
focused on mount, refreshed when the store changes."""

from __future__ import annotations

from memvet.inspector.screens.review_screen import ReviewScreen
from memvet.inspector.widgets.record_table import RecordTable


class RecordScreen(ReviewScreen):
    WIDE: int | None = None  # columns from which the detail sits beside the table (`-wide`)

    @property
    def table(self) -> RecordTable:
        return self.query_one(RecordTable)

    def on_mount(self) -> None:
        self.app.store_changed.subscribe(self, self.on_store_changed)
        self.table.focus()
        self.load_records()

    def on_resize(self) -> None:
        if self.WIDE is not None:
            self.set_class(self.size.width >= self.WIDE, "-wide")

    def load_records(self) -> None:
        """Start loading this screen's records (a worker)."""
        raise NotImplementedError
