"""Connecting to the team server. psycopg is imported here, lazily: nothing on the hook path
or at import time of the store touches it. Connection failures become exit-3 errors that say
the cause and the fix, naming the server as host:port/database and never the password."""

from __future__ import annotations

from memvet.store.team.config import server_label
from memvet.store.team.errors import auth_failed, unreachable

CONNECT_TIMEOUT_S = 3
AUTH_STATES = {"28P01", "28000"}  # invalid_password, invalid_authorization_specification


def connect(url: str, password: str | None = None, *, autocommit: bool = True):  # noqa: ANN201
    """A psycopg connection (autocommit: each `with conn.transaction()` is one transaction)."""
    import psycopg

    where = server_label(url)
    kwargs = {
        "connect_timeout": CONNECT_TIMEOUT_S,
        "autocommit": autocommit,
        "application_name": "memvet",
    }
    if password is not None:
        kwargs["password"] = password
    try:
        return psycopg.connect(url, **kwargs)
    except psycopg.OperationalError as exc:
        raise classify(exc, where) from None


def classify(exc: Exception, where: str) -> Exception:
    """Map a psycopg failure to unreachable or auth (the text itself is never shown: libpq's
    message may quote the connection string)."""
    state = getattr(exc, "sqlstate", None)
    text = str(exc).lower()
    if (
        state in AUTH_STATES
        or "password authentication failed" in text
        or ("no password supplied" in text)
    ):
        return auth_failed(where)
    return unreachable(where)


def is_connection_loss(exc: BaseException) -> bool:
    """A failure that a retry can cure (the server went away), not a refusal or a bug."""
    import psycopg

    return isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError))
