"""`memvet queue approve` run in the daemon's process, on the command's behalf (the context
server routes `MVA1` requests here): the store is open and the ORM loaded, so an approval costs
what it costs, not the command's start-up (memvet.store.cli_approve explains the route).

request: b"MVA1 <memvet version>\n" + {"ids": [...], "options": {...}, "actor": "...",
         "user": "<the command's login name>"}
reply:   b"OK\n" + {"results": [...]} | {"error": {...}, "exit": N}, or b"ERR <why>\n" when
         nothing was done (another version, another user, a malformed request): the command
         then approves by itself.

The work is memvet.store.approval_run.approve_all, the direct path's own function, under the
command's actor, so the rows, the audit and what is printed are the same either way.
"""

from __future__ import annotations

import json

from memvet.store.approval_run import approve_all
from memvet.store.cli_approve import OPTION_KEYS, PROTOCOL
from memvet.store.daemon_ask import read_request
from memvet.store.errors import MemvetError

MAX_IDS = 100_000


def is_approval(request: bytes) -> bool:
    return request.startswith(PROTOCOL + b" ")


def answer(store, request: bytes, version: str | None = None) -> bytes:  # noqa: ANN001
    doc = read_request(request, PROTOCOL, store.user, _valid, version)
    if isinstance(doc, bytes):  # refused: the command does the work itself
        return doc
    try:
        out: dict = {"results": approve_all(store, doc["ids"], doc["options"], doc["actor"])}
    except MemvetError as exc:  # refused as a whole (the direct path raises the same)
        out = {**exc.to_json(), "exit": exc.exit_code}
    return b"OK\n" + json.dumps(out, ensure_ascii=False).encode("utf-8")


def _valid(body: bytes) -> dict | None:
    """The request, when it is exactly what cli_approve sends; None otherwise."""
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if not isinstance(doc, dict) or set(doc) != {"ids", "options", "actor", "user"}:
        return None
    ids, options, actor = doc["ids"], doc["options"], doc["actor"]
    if not isinstance(doc["user"], str):
        return None
    if not (isinstance(ids, list) and 0 < len(ids) <= MAX_IDS):
        return None
    if not all(isinstance(i, str) for i in ids) or not isinstance(actor, str) or not actor:
        return None
    if not isinstance(options, dict) or set(options) != set(OPTION_KEYS):
        return None
    return doc
