"""Running sync: one pass (`memvet sync --once`, and after a CLI's team write), or the live
loop (`memvet sync`, the daemon's sync thread): LISTEN for the team's changes, a periodic
catch-up pass, and bounded retries with backoff while the server is away. While it waits the
loop blocks on the socket (no polling), so a connected idle team costs no CPU."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from memvet.store.errors import StoreUnavailableError
from memvet.store.team import outbox
from memvet.store.team.errors import TeamUnavailableError
from memvet.store.team.server import classify, connect, is_connection_loss
from memvet.store.team.session import NOTIFY_CHANNEL, open_session
from memvet.store.team.sync import sync_once

RETRIES = (0.2, 0.5, 1.0)  # one pass's retries after a dropped connection
CATCH_UP_S = 60.0
MAX_BACKOFF_S = 60.0


def _pass(store, home: Path) -> dict:  # noqa: ANN001
    session = open_session(home)
    try:
        return sync_once(store, session).to_json()
    finally:
        session.close()


def one_pass(store, home: Path) -> dict:  # noqa: ANN001
    """One pass, retried a few times when the connection drops mid-way (each retry is safe:
    everything it sends or applies is idempotent); then the error (exit 3)."""
    for delay in (*RETRIES, None):
        try:
            return _pass(store, home)
        except Exception as exc:
            lost = is_connection_loss(exc) or getattr(exc, "code", "") == "team_unreachable"
            if not lost or delay is None:
                if is_connection_loss(exc):
                    raise classify(exc, "the team server") from None
                raise
            time.sleep(delay)
    raise AssertionError("unreachable")


def sync_or_offline(store, home: Path) -> dict:  # noqa: ANN001
    """After a CLI's team write: send it now if the server answers, else leave it queued."""
    try:
        return _pass(store, home)
    except TeamUnavailableError as exc:
        if exc.code != "team_unreachable":
            raise
    except Exception as exc:
        if not is_connection_loss(exc):
            raise
    return {"offline": True, "outbox": outbox.size(store), "refused": []}


def run_sync(store, home: Path, *, once: bool) -> dict:  # noqa: ANN001
    if once:
        return one_pass(store, home)
    stop = threading.Event()
    try:
        serve(store, home, stop)
    except KeyboardInterrupt:
        stop.set()
    return {"sent": 0, "applied": 0, "retired": 0, "waiting": 0, "refused": [], "stopped": True}


def serve(
    store,
    home: Path,
    stop: threading.Event,
    *,
    catch_up_s: float = CATCH_UP_S,  # noqa: ANN001
    on_pass=None,
) -> None:  # noqa: ANN001
    """Until `stop` is set: sync on every NOTIFY for this team, at least every catch_up_s, and
    reconnect with backoff (1 s doubling to 60 s) while the server is away. A key or schema
    problem (exit 3 that no retry cures) ends the loop with that error."""
    backoff = 1.0
    while not stop.is_set():
        listener = session_home = None
        try:
            from memvet.store.team.config import Secrets, load_config

            config = load_config(home)
            listener = connect(config.url, Secrets(home, config.secret_provider).password())
            listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
            session_home = open_session(home)
            backoff = 1.0
            last = 0.0
            while not stop.is_set():
                due = time.monotonic() - last >= catch_up_s or outbox.size(store) > 0
                if due or _notified(listener, config.team_id, stop):
                    report = sync_once(store, session_home).to_json()
                    last = time.monotonic()
                    if on_pass:
                        on_pass(report)
        except (TeamUnavailableError, StoreUnavailableError) as exc:
            if getattr(exc, "code", "") != "team_unreachable":
                raise
            stop.wait(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_S)
        except Exception as exc:
            if not is_connection_loss(exc):
                raise
            stop.wait(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_S)
        finally:
            for conn in (listener, session_home):
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:  # noqa: BLE001 - a dead connection closes as it can
                        pass


def _notified(listener, team_id: str, stop: threading.Event) -> bool:  # noqa: ANN001
    """Block up to a second on the socket for the first notification (returning as soon as
    it arrives), then take whatever else is already there; True when this team changed."""
    notes = list(listener.notifies(timeout=1.0, stop_after=1))
    if notes:
        notes += list(listener.notifies(timeout=0.02))  # a burst is one pass
    return any(note.payload == team_id for note in notes) and not stop.is_set()
