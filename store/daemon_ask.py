"""A command asking the running daemon over its user-only context socket: `queue approve`
(cli_approve.py) and `recall` (recall_route.py) are served there because the daemon has the
store's modules loaded and its data key unwrapped, which a fresh process pays for each time.

Standard library only (os, sys, _socket: not socket.py): what the command imports before it
knows whether the daemon answers. Both ends check `installed_version()`; a daemon of another
version refuses (`ERR version`) and the command does the work itself.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

CONNECT_TIMEOUT_S = 0.5
NOT_SENT, NO_ANSWER = "not sent", "no answer"  # the two ways the daemon route gives up


def installed_version() -> str:
    """memvet's version from its dist-info folder on sys.path (importlib.metadata would cost
    more than the rest of a command); both ends of the socket use this."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("memvet-") and name.endswith(".dist-info"):
                return name[len("memvet-") : -len(".dist-info")]
    from importlib.metadata import version

    return version("memvet")


def exchange(body: bytes, reply_timeout_s: float) -> bytes | str:
    """The daemon's whole reply to `body`, or NOT_SENT (no daemon: nothing reached one) or
    NO_ANSWER (sent, but the reply was not complete within `reply_timeout_s`)."""
    import _socket

    from memvet.store.paths import memvet_home_text

    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except (AttributeError, OSError):  # no Unix sockets here
        return NOT_SENT
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(os.path.join(memvet_home_text(), "run", "daemon.sock"))
        except OSError:  # no daemon, or it died and left its socket behind
            return NOT_SENT
        try:
            sock.sendall(body)
            sock.shutdown(_socket.SHUT_WR)
            sock.settimeout(reply_timeout_s)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except OSError:  # timed out or cut off
            return NO_ANSWER
    finally:
        sock.close()
    return b"".join(chunks)


def read_request(
    request: bytes,
    protocol: bytes,
    user: str,
    valid: Callable[[bytes], dict | None],
    version: str | None = None,
) -> dict | bytes:
    """The daemon's side: the request's document, or the `ERR …` reply that refuses it (another
    protocol or version, a body `valid` rejects, or another user than the store's: the scope
    rule reads the store's user, so it must be theirs)."""
    head, _, body = request.partition(b"\n")
    parts = head.split(b" ")
    if len(parts) != 2 or parts[0] != protocol:
        return b"ERR protocol\n"
    if parts[1].decode("utf-8", "replace") != (version or installed_version()):
        return b"ERR version\n"
    doc = valid(body)
    if doc is None:
        return b"ERR request\n"
    if doc["user"] != user:
        return b"ERR user\n"
    return doc
