"""The context server's socket chores (context_server.py): a whole request read before a
deadline, the peer's uid checked, a probe that tells a live server from a socket file left
behind."""

from __future__ import annotations

import os
import socket
import struct
import time
from pathlib import Path

MAX_REQUEST = 4 << 20


def read_all(client: socket.socket, deadline: float) -> bytes:
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


def same_user(client: socket.socket) -> bool:
    """Linux: the peer's uid (the 0600 socket already keeps other users out; this is belt and
    braces). Elsewhere the file mode alone decides."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    creds = client.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1] == os.getuid()


def answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()
