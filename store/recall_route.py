"""`memvet recall` answered by the running daemon (issue 15): a fresh process spends most of a
question importing the recall modules and cryptography and unwrapping the data key; the daemon
has done that once. Both ends of the route are here, so the request is defined once.

request: b"MVR1 <memvet version>\n" + {"query": "...", "workspace": "..." | null,
         "as_of": "<ISO 8601>" | null, "user": "<the command's login name>"}
reply:   b"OK\n" + the recall document, or b"ERR <why>\n" (another version, another user, a
         malformed request, a store the sqlite3 path cannot open): the command then answers
         by itself, as it does when no daemon listens or none answers in time.

The daemon runs recall_read's RecallSource, the command's own code, on its store for the
command's user (on a connection it keeps, with the counts and decrypted memories no commit has
changed since: recall_serving.py), and re-redacts it (redaction/served.py), so the document is
the one the command would have printed. Only the present
store is asked this way (`--recorded-as-of` takes the Store's path in the command).
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    from memvet.store.recall_serving import RecallServing

PROTOCOL = b"MVR1"
REPLY_TIMEOUT_S = 5.0  # then the command answers by itself (a read: nothing to undo)
FIELDS = frozenset({"query", "workspace", "as_of", "user"})


def via_daemon(query: str, workspace: str | None, as_of: datetime | None) -> dict | None:
    """The daemon's recall document, or None when the command must answer by itself."""
    from memvet.store.daemon_ask import exchange, installed_version
    from memvet.store.login import current_user  # the direct path's user rule

    request = {
        "query": query,
        "workspace": workspace,
        "as_of": as_of.isoformat() if as_of else None,
        "user": current_user(),
    }
    body = b"%s %s\n%s" % (PROTOCOL, installed_version().encode(), json.dumps(request).encode())
    reply = exchange(body, REPLY_TIMEOUT_S)
    if isinstance(reply, str):  # no daemon, or no complete answer
        return None
    head, _, rest = reply.partition(b"\n")
    if head != b"OK":
        return None
    try:
        found = json.loads(rest)
    except ValueError:  # cut off mid-answer
        return None
    return found if isinstance(found, dict) else None


def is_recall(request: bytes) -> bool:
    return request.startswith(PROTOCOL + b" ")


def answer(
    request: bytes,
    home: str,
    user: str,
    serving: RecallServing | None = None,
    version: str | None = None,
) -> bytes:
    """The daemon's reply to one request, for the store in `home` whose user is `user`;
    `serving`: the daemon's connection and caches kept between requests (recall_serving.py),
    else the store is opened for this request alone."""
    from datetime import datetime

    from memvet.store.daemon_ask import read_request
    from memvet.store.recall_read import recall_direct
    from memvet.store.redaction.served import recall_document

    doc = read_request(request, PROTOCOL, user, _valid, version)
    if isinstance(doc, bytes):  # refused: the command does the work itself
        return doc
    try:
        as_of = datetime.fromisoformat(doc["as_of"]) if doc["as_of"] else None
    except ValueError:
        return b"ERR request\n"
    if serving is not None:
        found = serving.decision(doc["query"], doc["workspace"], as_of, user)
    else:
        found = recall_direct(
            doc["query"], workspace=doc["workspace"], as_of=as_of, home=home, user=user
        )
    if found is None:  # the command's own path reports why
        return b"ERR unavailable\n"
    served = recall_document(found)  # today's redaction rules, as the command's own path
    return b"OK\n" + json.dumps(served, ensure_ascii=False).encode("utf-8")


def _valid(body: bytes) -> dict | None:
    """The request, when it is exactly what via_daemon sends; None otherwise."""
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if not isinstance(doc, dict) or set(doc) != FIELDS:
        return None
    if not isinstance(doc["query"], str) or not isinstance(doc["user"], str):
        return None
    if not all(doc[k] is None or isinstance(doc[k], str) for k in ("workspace", "as_of")):
        return None
    return doc
