"""The daemon's side of the hook: a Unix socket only the user can open (0600 in a 0700 folder)
that answers `memvet hook` requests from a context pack kept per scope.

The daemon starts it with `ContextServer(store, socket_path).start()`, stops it with `.stop()`
and calls `.invalidate()` after each ingest batch. Packs are never served stale: a request first
checks SQLite's `data_version` (any commit by any connection, other processes included) and, when
it moved, a fingerprint of the memories table; a change there updates each cached pack in place
with the rows changed since (`_update_packs`: an approval reads one row, not the scope), and only
a deletion or a mass change rebuilds them. Ingest batches only add candidates, so they cost a
fingerprint check. `invalidate()` wakes a refresher thread that builds scopes not cached yet.

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
import struct
import threading
import time
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path

from memvet.daemon import approve_requests
from memvet.daemon.context_cache import CachedSource
from memvet.store import Store, hook_reply, recall_route
from memvet.store import context_pack as cp
from memvet.store import fast_keys as fk
from memvet.store.recall_serving import RecallServing
from memvet.store.redaction.served import recheck

log = logging.getLogger("memvet.context_server")
MAX_REQUEST = 4 << 20
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


class ContextServer:
    def __init__(self, store: Store, socket_path: Path) -> None:
        self.store = store
        self.socket_path = Path(socket_path)
        self.home = str(store.home)
        self._lock = threading.Lock()  # guards the connection and the packs
        self._packs: OrderedDict[str | None, CachedSource] = OrderedDict()
        self._seen: OrderedDict[str | None, None] = OrderedDict()  # scopes to warm up
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
            if _answers(self.socket_path):
                raise RuntimeError(f"another context server answers on {self.socket_path}")
            self.socket_path.unlink()  # left behind by a daemon that died
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.socket_path))
        os.chmod(self.socket_path, 0o600)  # the 0700 folder already keeps others out
        listener.listen(16)
        self._listener = listener
        self._conn = sqlite3.connect(
            str(self.store.path),
            check_same_thread=False,
            isolation_level=None,
            timeout=fk.BUSY_TIMEOUT_S * 4,
        )
        self._conn.execute("PRAGMA query_only = ON")
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
        _answers(self.socket_path)  # wakes accept() so the thread sees the flag
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
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def invalidate(self) -> None:
        """Something may have changed: re-check before the next answer, and rebuild the cached
        scopes now (in the background) if the memories did change."""
        with self._lock:
            self._data_version = -1
        self._wake.set()

    # --- packs ---------------------------------------------------------------------------------
    def _check_fresh(self) -> None:
        """Drop every pack when the memories changed. Caller holds the lock."""
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

    def _update_packs(self, before: tuple | None, now: tuple) -> bool:
        """Apply the memories changed since `before` to each cached pack (an approval, a
        retirement, an edit): False when that cannot be told (a row deleted, too many
        changes, nothing cached yet), and the packs are rebuilt instead."""
        assert self._conn is not None
        if before is None or not self._packs or now[0] < before[0] or None in before[1:]:
            return False
        changed = {r[0] for r in self._conn.execute(CHANGED_SQL, before[1:])}
        if len(changed) > MAX_INCREMENTAL or now[0] - before[0] > len(changed):
            return False
        for workspace, pack in self._packs.items():
            direct = self.store.direct_source(self._conn, workspace)
            pack.update(changed, direct.scoped_items(changed))
        return True

    def source(self, workspace: str | None) -> CachedSource:
        with self._lock:
            self._seen[workspace] = None
            self._seen.move_to_end(workspace)
            while len(self._seen) > MAX_SCOPES:
                self._seen.popitem(last=False)
            self._check_fresh()
            pack = self._packs.get(workspace)
            if pack is None:
                pack = self._build(workspace)
            self._packs.move_to_end(workspace)
            return pack

    def _build(self, workspace: str | None) -> CachedSource:
        assert self._conn is not None
        direct = self.store.direct_source(self._conn, workspace)
        pack = CachedSource(direct.all_items())
        self._packs[workspace] = pack
        while len(self._packs) > MAX_SCOPES:
            self._packs.popitem(last=False)
        return pack

    def _refresh_loop(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping.is_set():
                return
            try:
                with self._lock:
                    self._check_fresh()
                    for workspace in [w for w in self._seen if w not in self._packs]:
                        self._build(workspace)
            except Exception as exc:  # noqa: BLE001 - a failed warm-up is retried at the next request
                log.error("context pack refresh failed: %s", type(exc).__name__)

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
                if _same_user(client):
                    deadline = time.monotonic() + CLIENT_DEADLINE_S
                    request = _read_all(client, deadline)
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
        try:
            out = hook_reply.answer(
                host,
                event,
                body,
                self.home,
                self.source,
                now,
                process_cwd=os.fsdecode(cwd),
                recheck=recheck,
            )
        except fk.FastReadError as exc:
            return f"ERR {exc.code}\n".encode()
        return b"OK\n" + (out or "").encode("utf-8")


def _read_all(client: socket.socket, deadline: float) -> bytes:
    """The request up to the client's end of stream, all of it before `deadline`."""
    chunks, size = [], 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("request not complete in time")
        client.settimeout(left)
        chunk = client.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError("request too large")
    return b"".join(chunks)


def _same_user(client: socket.socket) -> bool:
    """Linux: the peer's uid (the 0600 socket already keeps other users out; this is belt and
    braces). Elsewhere the file mode alone decides."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    creds = client.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1] == os.getuid()


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()
