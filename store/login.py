"""Whose store a process reads: the login name, by getpass.getuser()'s rule (LOGNAME, USER,
LNAME, USERNAME, else the password database) without importing getpass. Standard library only:
the hook, the read commands and the commands that ask the daemon (daemon_ask.py) use it."""

from __future__ import annotations

import os


def current_user() -> str:
    """getpass.getuser() without importing getpass: the store keys its user the same way."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        user = os.environ.get(name)
        if user:
            return user
    import pwd

    return pwd.getpwuid(os.getuid())[0]
