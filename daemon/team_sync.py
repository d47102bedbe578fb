"""The daemon's team sync thread (issue 16): when this home belongs to a team, it runs the
store's sync loop (memvet.store.team.loop.serve: LISTEN/NOTIFY, a periodic catch-up, bounded
reconnect backoff) beside ingestion. Logs counts and error codes only, never text."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger("memvet.daemon.team_sync")


def _configured(home: Path) -> bool:
    return (home / "team.json").is_file()


def _report(report: dict) -> None:
    if any(report.get(k) for k in ("sent", "applied", "retired", "refused", "unreadable")):
        log.info(
            "team sync: sent %d, applied %d, retired %d, refused %d, unreadable %d",
            report["sent"],
            report["applied"],
            report["retired"],
            len(report["refused"]),
            report["unreadable"],
        )


def run_team_once(store, home: Path) -> None:  # noqa: ANN001
    """`daemon run --once`: one sync pass when in a team; a server away is only logged."""
    if not _configured(home):
        return
    from memvet.store.errors import MemvetError
    from memvet.store.team.loop import sync_or_offline

    try:
        _report(
            {
                "sent": 0,
                "applied": 0,
                "retired": 0,
                "refused": [],
                "unreadable": 0,
                **sync_or_offline(store, home),
            }
        )
    except MemvetError as exc:
        log.warning("team sync skipped: %s", exc.code)


def _serve(store, home: Path, stop: threading.Event) -> None:  # noqa: ANN001
    from memvet.store.errors import MemvetError
    from memvet.store.team.loop import serve

    try:
        serve(store, home, stop, on_pass=_report)
    except MemvetError as exc:  # exit-3 causes no retry cures (key, schema): say so, stop
        log.error("team sync stopped: %s (run `memvet team status`)", exc.code)
    except Exception:  # noqa: BLE001 - the thread must not take the daemon down
        log.exception("team sync stopped by an unexpected error")


@contextmanager
def team_sync(store, home: Path) -> Iterator[threading.Thread | None]:  # noqa: ANN001
    """Runs the sync thread for the duration of the block (nothing when not in a team)."""
    if not _configured(home):
        yield None
        return
    stop = threading.Event()
    thread = threading.Thread(
        target=_serve, args=(store, home, stop), name="memvet-team-sync", daemon=True
    )
    thread.start()
    try:
        yield thread
    finally:
        stop.set()
        thread.join(5)
