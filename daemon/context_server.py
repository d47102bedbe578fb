"""The daemon's side of the hook: a Unix socket only the user can open (0600 in a 0700 folder)
that answers `memvet hook` requests from a context pack kept per scope.

The daemon starts it with `ContextServer(store, socket_path).start()`, stops it with `.stop()`
and calls `.invalidate()` after each ingest batch. Packs are never served stale: a request first
checks SQLite's `data_version` (any commit by any connection, other processes included) and, when
it moved, a fingerprint of the memories table; a change there updates each cached pack in place
with the rows changed since (`_update_packs`: an approval reads one row, not the scope), and only
a deletion or a mass change rebuilds them. Ingest batches only add candidates, so they cost a
fingerprint check.

A pack is built (O(N): every memory of the scope decrypted and its terms indexed) by the
refresher thread on its own connection, outside the server's lock, from one read snapshot; it
is caught up with the changes committed since that snapshot and published under the lock. So
no request, approval or change waits behind a build (issue 15): a hook whose scope has no pack
yet is answered from SQL (fast_read.DirectSource, the no-daemon path's source) after waiting
at most BUILD_WAIT_S, and `memvet recall` never touches the packs.

The answer itself is memvet.store.hook_reply's `answer`, the same function the no-daemon path
runs, over the cached (already decrypted) items instead of SQL. `MVA1` requests are
`memvet queue approve` run here on the command's behalf (approve_requests.py); `MVR1` requests
are `memvet recall` (store/recall_route.py).
"""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import threading
import time
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memvet.daemon import approve_requests
from memvet.daemon import peer_socket as peer
from memvet.daemon.context_cache import CachedSource
from memvet.store import Store, hook_reply, recall_route
from memvet.store import context_pack as cp
from memvet.store import fast_keys as fk
from memvet.store.recall_serving import RecallServing
from memvet.store.redaction.served import recheck

log = logging.getLogger("memvet.context_server")
# A whole request must arrive within this (the hook gives up after 0.8 s); each client has its
# own thread, so a slow or silent one delays nobody else.
CLIENT_DEADLINE_S = 0.5
APPROVAL_SEND_S = 5.0  # an approval's answer may be long (ids from stdin); the command waits
MAX_CLIENTS = 16  # concurrent requests; more are refused (the hook then reads the store itself)
MAX_SCOPES = 8  # packs kept (least recently used dropped): memory stays bounded
# Scalar subqueries: each max() is one index lookup and the count walks the smallest index; as
# one SELECT of three aggregates SQLite scans the table (issue 15: 200 ms at 100k memories).
FINGERPRINT_SQL = (
    "SELECT (SELECT count(*) FROM memories), (SELECT max(updated_at) FROM memories), "
    "(SELECT max(recorded_at) FROM memories)"
)
CHANGED_SQL = "SELECT id FROM memories WHERE updated_at >= ? OR recorded_at >= ?"
MAX_INCREMENTAL = 2000  # more changed memories than this at once: rebuild the packs instead
BUILD_WAIT_S = 0.2  # a hook waits this long for its scope's first pack, then SQL answers it
BUILD_TRIES = 3  # a build overtaken by changes it cannot catch up with is started again


class ContextServer:
    def __init__(self, store: Store, socket_path: Path) -> None:
        self.store = store
        self.socket_path = Path(socket_path)
        self.home = str(store.home)
        self._lock = (
            threading.Lock()
        )  # guards the connection and the packs; never held over a build
        self._packs: OrderedDict[str | None, CachedSource] = OrderedDict()
        self._seen: OrderedDict[str | None, None] = OrderedDict()  # scopes to warm up
        self._built: dict[str | None, threading.Event] = {}  # set once a wanted build is over
        self._conn: sqlite3.Connection | None = None
        self._data_version = -1
        self._fingerprint: tuple | None = None
        self._listener: socket.socket | None = None
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._clients: set[threading.Thread] = set()
        self._clients_lock = threading.Lock()
        self._client_slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self._recall_serving = RecallServing(self.home)  # opened at the first `memvet recall`

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> ContextServer:
        folder = self.socket_path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(folder, 0o700)
        if self.socket_path.exists():
            if peer.answers(self.socket_path):
                raise RuntimeError(f"another context server answers on {self.socket_path}")
            self.socket_path.unlink()  # left behind by a daemon that died
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.socket_path))
        os.chmod(self.socket_path, 0o600)  # the 0700 folder already keeps others out
        listener.listen(16)
        self._listener = listener
        self._conn = self._connect()
        self._stopping.clear()
        for target, name in ((self._serve, "memvet-context"), (self._refresh_loop, "memvet-pack")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        if self._listener is None:
            return
        self._stopping.set()
        self._wake.set()
        peer.answers(self.socket_path)  # wakes accept() so the thread sees the flag
        with self._clients_lock:
            clients = list(self._clients)
        for thread in [*self._threads, *clients]:
            thread.join(timeout=5)
        self._threads.clear()
        self._listener.close()
        self._listener = None
        try:
            self.socket_path.unlink()
        except FileNotFoundError:
            pass
        self._recall_serving.close()
        with self._lock:
            self._packs.clear()
            for done in self._built.values():
                done.set()
            self._built.clear()
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            str(self.store.path),
            check_same_thread=False,
            isolation_level=None,
            timeout=fk.BUSY_TIMEOUT_S * 4,
        )
        conn.execute("PRAGMA query_only = ON")
        return conn

    def invalidate(self) -> None:
        """Something may have changed: re-check before the next answer, and rebuild the cached
        scopes now (in the background) if the memories did change."""
        with self._lock:
            self._data_version = -1
        self._wake.set()

    # --- packs ---------------------------------------------------------------------------------
    def _check_fresh(self) -> None:
        """Bring every cached pack up to the memories now committed (in place when it can be
        told what changed, else the packs are dropped and rebuilt). Caller holds the lock."""
        assert self._conn is not None
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if version == self._data_version:
            return
        self._data_version = version
        fingerprint = tuple(self._conn.execute(FINGERPRINT_SQL).fetchone())
        if fingerprint != self._fingerprint:
            before, self._fingerprint = self._fingerprint, fingerprint
            if not self._update_packs(before, fingerprint):
                self._packs.clear()
                self._wake.set()  # rebuilt by the refresher, never by a request

    def _changed_since(self, before: tuple | None, now: tuple) -> set[str] | None:
        """Ids of the memories changed between two fingerprints, or None when that cannot be
        told (a row deleted, too many changes, no fingerprint before). Caller holds the lock."""
        assert self._conn is not None
        if before == now:
            return set()
        if before is None or now[0] < before[0] or None in before[1:]:
            return None
        changed = {r[0] for r in self._conn.execute(CHANGED_SQL, before[1:])}
        if len(changed) > MAX_INCREMENTAL or now[0] - before[0] > len(changed):
            return None
        return changed

    def _apply(self, workspace: str | None, pack: CachedSource, changed: set[str]) -> None:
        if changed:
            direct = self.store.direct_source(self._conn, workspace)  # type: ignore[arg-type]
            pack.update(changed, direct.scoped_items(changed))

    def _update_packs(self, before: tuple | None, now: tuple) -> bool:
        """Apply the memories changed since `before` to each cached pack (an approval, a
        retirement, an edit): False when that cannot be told, and the packs are rebuilt."""
        changed = self._changed_since(before, now) if self._packs else None
        if changed is None:
            return False
        for workspace, pack in self._packs.items():
            self._apply(workspace, pack, changed)
        return True

    def source(self, workspace: str | None) -> CachedSource:
        """The scope's pack, waiting for its build if need be (the hooks' requests wait at most
        BUILD_WAIT_S: `_request_source`)."""
        for _ in range(BUILD_TRIES):
            pack = self.pack(workspace, timeout=None)
            if pack is not None:
                return pack
        raise RuntimeError("context pack could not be built")

    def pack(self, workspace: str | None, timeout: float | None) -> CachedSource | None:
        """The scope's current pack; if it has none, its build is asked for and waited for up
        to `timeout` seconds (None: until it is over). None when it is not ready by then."""
        with self._lock:
            if self._conn is None:
                raise RuntimeError("context server stopped")
            self._seen[workspace] = None
            self._seen.move_to_end(workspace)
            while len(self._seen) > MAX_SCOPES:
                self._seen.popitem(last=False)
            self._check_fresh()
            pack = self._packs.get(workspace)
            if pack is not None:
                self._packs.move_to_end(workspace)
                return pack
            done = self._built.setdefault(workspace, threading.Event())
        self._wake.set()
        done.wait(timeout)
        with self._lock:
            return self._packs.get(workspace)

    def _request_source(self, workspace: str | None, opened: list[sqlite3.Connection]) -> Any:
        """A hook's source: the scope's pack, or while it is being built, SQL on a connection
        of this request's own (what the no-daemon hook reads: the same answer)."""
        pack = self.pack(workspace, timeout=BUILD_WAIT_S)
        if pack is not None:
            return pack
        opened.append(self._connect())
        return self.store.direct_source(opened[-1], workspace)

    def _build(self, workspace: str | None) -> CachedSource | None:
        """The scope's pack built from one read snapshot on a connection of its own, outside
        the lock, then caught up with what was committed since and published under it. None
        when changes overtook it that cannot be applied in place (tried again)."""
        conn = self._connect()
        try:
            conn.execute("BEGIN")  # one snapshot: the fingerprint is the items'
            seen = tuple(conn.execute(FINGERPRINT_SQL).fetchone())
            items = self.store.direct_source(conn, workspace).all_items()
            conn.execute("COMMIT")
        finally:
            conn.close()
        pack = CachedSource(items)  # the terms of every item: most of a build's time
        with self._lock:
            if self._conn is None:
                return None
            self._check_fresh()
            changed = self._changed_since(seen, self._fingerprint)  # type: ignore[arg-type]
            if changed is None:
                return None
            self._apply(workspace, pack, changed)
            self._packs[workspace] = pack
            self._packs.move_to_end(workspace)
            while len(self._packs) > MAX_SCOPES:
                self._packs.popitem(last=False)
            return pack

    def _refresh_loop(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping.is_set():
                return
            wanted: list[str | None] = []
            try:
                with self._lock:
                    self._check_fresh()
                    asked = dict.fromkeys([*self._seen, *self._built])  # waited for too
                    wanted = [w for w in asked if w not in self._packs]
                for workspace in wanted:
                    for _ in range(BUILD_TRIES):
                        if self._stopping.is_set() or self._build(workspace) is not None:
                            break
            except Exception as exc:  # noqa: BLE001 - a failed warm-up is retried at the next request
                log.error("context pack refresh failed: %s", type(exc).__name__)
            finally:
                with self._lock:
                    for workspace in [*wanted, *(w for w in self._built if w in self._packs)]:
                        done = self._built.pop(workspace, None)
                        if done is not None:
                            done.set()

    # --- requests ------------------------------------------------------------------------------
    def _serve(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                if self._stopping.is_set():
                    return
                continue
            if self._stopping.is_set():
                client.close()
                return
            if not self._client_slots.acquire(blocking=False):
                client.close()  # too many at once: the hook falls back to the direct path
                continue
            thread = threading.Thread(
                target=self._handle, args=(client,), name="memvet-context-client", daemon=True
            )
            with self._clients_lock:
                self._clients.add(thread)
            thread.start()

    def _handle(self, client: socket.socket) -> None:
        try:
            with client:
                if peer.same_user(client):
                    deadline = time.monotonic() + CLIENT_DEADLINE_S
                    request = peer.read_all(client, deadline)
                    if approve_requests.is_approval(request):
                        self._approve(client, request)
                        return
                    if recall_route.is_recall(request):
                        self._recall(client, request)
                        return
                    client.settimeout(max(0.05, deadline - time.monotonic()))
                    client.sendall(self._reply(request))
        except Exception as exc:  # noqa: BLE001 - one bad request never stops the server
            # The type only: a message could quote the request, i.e. what the user typed.
            log.error("context request failed: %s", type(exc).__name__)
        finally:
            with self._clients_lock:
                self._clients.discard(threading.current_thread())
            self._client_slots.release()

    def _approve(self, client: socket.socket, request: bytes) -> None:
        """`memvet queue approve` on the command's behalf (approve_requests.py); the packs then
        take the new memories in now rather than at the next prompt."""
        reply = approve_requests.answer(self.store, request)
        client.settimeout(APPROVAL_SEND_S)
        client.sendall(reply)
        if reply.startswith(b"OK\n"):
            self.invalidate()

    def _recall(self, client: socket.socket, request: bytes) -> None:
        """`memvet recall` on the command's behalf (store/recall_route.py): the recall modules
        and cryptography are loaded here once, not in every command's process, and the store
        kept open between questions (store/recall_serving.py)."""
        reply = recall_route.answer(request, self.home, self.store.user, self._recall_serving)
        client.settimeout(APPROVAL_SEND_S)
        client.sendall(reply)

    def _reply(self, request: bytes) -> bytes:
        """b"MVH1 <host> <event>\n<the hook's cwd>\n<its stdin>" -> b"OK\n<its stdout>"."""
        head, _, rest = request.partition(b"\n")
        cwd, _, body = rest.partition(b"\n")
        parts = head.split(b" ")
        if len(parts) != 3 or parts[0] != b"MVH1" or not cwd.startswith(b"/"):
            return b"ERR protocol\n"
        host, event = parts[1].decode(), parts[2].decode()
        now = cp.stamp(datetime.now(UTC))
        opened: list[sqlite3.Connection] = []  # SQL of a scope whose pack is being built
        try:
            out = hook_reply.answer(
                host,
                event,
                body,
                self.home,
                lambda workspace: self._request_source(workspace, opened),
                now,
                process_cwd=os.fsdecode(cwd),
                recheck=recheck,
            )
        except fk.FastReadError as exc:
            return f"ERR {exc.code}\n".encode()
        finally:
            for conn in opened:
                conn.close()
        return b"OK\n" + (out or "").encode("utf-8")
