"""The base of the app's five screens: `self.app` is the ReviewApp, and `store`/`reader` are
the app's, never None here (without a store the app shows StoreErrorScreen and no mode)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memvet.store import Reader, Store
from textual.screen import Screen

if TYPE_CHECKING:
    from memvet.inspector.app import ReviewApp
    from memvet.inspector.jobs import Changes
    from memvet.inspector.screens.confirm_dialog import ConfirmDialog
    from textual import getters


class ReviewScreen(Screen[None]):
    if TYPE_CHECKING:  # how Textual types its own `app`; at run time the property is Textual's
        app = getters.app(ReviewApp)

    @property
    def store(self) -> Store:
        store = self.app.store
        assert store is not None, "a review screen is only shown once the store opened"
        return store

    @property
    def reader(self) -> Reader:
        reader = self.app.reader
        assert reader is not None, "a review screen is only shown once the store opened"
        return reader

    def ask(self, dialog: ConfirmDialog, then: Callable[[str], object]) -> None:
        """Show `dialog`; on confirm `then` gets the reason typed ("" for none), on cancel
        nothing happens."""

        def answered(reason: str | None) -> None:
            if reason is not None:
                then(reason)

        self.app.push_screen(dialog, answered)

    def on_store_changed(self, changes: Changes) -> None:
        """What the change feed says other writers did (subscribed on mount)."""
        raise NotImplementedError
