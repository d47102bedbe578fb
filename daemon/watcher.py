"""File events → work items. The handler only filters (event type, path pattern) and enqueues;
it never touches the disk, because it runs on watchdog's dispatch thread.

A root that does not exist yet (a host installed after memvet) gets a non-recursive watch on its
nearest existing parent; when a folder appears there, the worker calls `refresh()` and the root
is watched (and scanned) from then on.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from memvet.daemon.roots import Root, root_of, watch_base
from memvet.daemon.worker import Work
from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

log = logging.getLogger("memvet.daemon")

# Opened/closed-without-write events are left out on purpose: our own reads would wake us.
ROOT_EVENTS = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileDeletedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirMovedEvent,
    DirDeletedEvent,
]
PARENT_EVENTS = [DirCreatedEvent, DirMovedEvent]
WANTED = frozenset({"created", "modified", "moved", "deleted", "closed"})


class TranscriptEventHandler(FileSystemEventHandler):
    def __init__(self, roots: list[Root], put: Callable[[Work], None]) -> None:
        super().__init__()
        self.roots = roots
        self.put = put

    def dispatch(self, event: FileSystemEvent) -> None:
        if event.event_type not in WANTED:
            return
        paths = [os.fsdecode(event.src_path)]
        if event.event_type == "moved" and event.dest_path:
            paths.append(os.fsdecode(event.dest_path))
        if event.is_directory:
            if event.event_type == "deleted":
                return  # the files inside get their own delete events, or the rescan forgets them
            for path in paths:
                under_root = any(r.relative_parts(path) is not None for r in self.roots)
                self.put(Work("dir" if under_root else "refresh", path))
            return
        for path in paths:
            if root_of(path, self.roots) is not None:
                self.put(Work("file", path))


class Watcher:
    """Owns the Observer. Built and started by the Daemon, never at import time."""

    def __init__(
        self,
        roots: list[Root],
        put: Callable[[Work], None],
        observer_factory: Callable[[], BaseObserver] = Observer,
    ) -> None:
        self.roots = roots
        self.handler = TranscriptEventHandler(roots, put)
        self._observer_factory = observer_factory
        self.observer: BaseObserver | None = None
        self._root_watches: dict[str, ObservedWatch] = {}
        self._parent_watches: dict[str, ObservedWatch] = {}

    def start(self) -> None:
        self.observer = self._observer_factory()
        self.refresh()
        self.observer.start()

    def refresh(self) -> list[Root]:
        """Watch every root that exists (returning the ones newly watched, for a scan), and the
        nearest existing parent of each root that does not."""
        assert self.observer is not None
        added, parents = [], set()
        for root in self.roots:
            if root.path in self._root_watches:
                if os.path.isdir(root.path):
                    continue
                # The root folder was removed: its watch is dead; watch the parent again.
                self._unschedule(self._root_watches.pop(root.path))
            if os.path.isdir(root.path):
                try:
                    self._root_watches[root.path] = self.observer.schedule(
                        self.handler, root.path, recursive=True, event_filter=ROOT_EVENTS
                    )
                except OSError as exc:  # inotify watch limit, permission: the rescan still works
                    log.warning(
                        "cannot watch a %s root (errno %s); relying on rescans",
                        root.host or "transcript",
                        exc.errno,
                    )
                    continue
                added.append(root)
            else:
                base = watch_base(root)
                if base is not None:
                    parents.add(str(base))
        for path in parents - self._parent_watches.keys():
            try:
                self._parent_watches[path] = self.observer.schedule(
                    self.handler, path, recursive=False, event_filter=PARENT_EVENTS
                )
            except OSError:
                continue
        for path in self._parent_watches.keys() - parents:
            self._unschedule(self._parent_watches.pop(path))
        return added

    def _unschedule(self, watch: ObservedWatch) -> None:
        assert self.observer is not None
        try:
            self.observer.unschedule(watch)
        except (KeyError, OSError):
            pass  # the emitter already ended with its folder

    def stop(self) -> None:
        if self.observer is None:
            return
        self.observer.stop()
        self.observer.join()
        self.observer = None
        self._root_watches.clear()
        self._parent_watches.clear()

    @property
    def watched(self) -> list[str]:
        return sorted(self._root_watches)
