"""The daemon's log: a rotating, owner-only file `MEMVET_HOME/logs/daemon.log`, and stderr too
when stderr is systemd's journal.

What goes in: counts, keyed file ids, candidate ids, reasons. Never transcript text or paths:
every log call in the daemon passes only those (see Store.log_tag).
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import time
import traceback
from pathlib import Path

from memvet.store.paths import ensure_private_dir

LOGGER = "memvet"  # every memvet.* logger in the daemon process (context server too)
MAX_BYTES = 5 * 2**20
BACKUPS = 3


class _UTCFormatter(logging.Formatter):
    converter = time.gmtime

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return (
            time.strftime("%Y-%m-%dT%H:%M:%S", self.converter(record.created))
            + f".{int(record.msecs):03d}Z"
        )


def configure_logging(log_dir: Path, *, level: str = "INFO", echo: bool = False) -> Path:
    """Idempotent: calling it twice (tests, --once after run) does not double the handlers."""
    ensure_private_dir(log_dir)
    path = log_dir / "daemon.log"
    if not path.exists():  # created owner-only before the handler opens it
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    logger, aps = logging.getLogger(LOGGER), logging.getLogger("apscheduler")
    for owner in (logger, aps):
        for handler in list(owner.handlers):
            if getattr(handler, "_memvet", False):
                owner.removeHandler(handler)
                handler.close()
    fmt = _UTCFormatter("%(asctime)s %(levelname)s pid=%(process)d %(message)s")
    handlers: list[logging.Handler] = [
        logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
    ]
    if echo or stderr_is_journal():
        handlers.append(logging.StreamHandler(sys.stderr))
    for handler in handlers:
        handler.setFormatter(fmt)
        handler._memvet = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    # APScheduler logs job names and run times only; keep its warnings and errors in our file.
    aps.setLevel(logging.WARNING)
    aps.propagate = False
    for handler in handlers:
        aps.addHandler(handler)
    return path


def stderr_is_journal() -> bool:
    """Under systemd, stderr is a journal stream and JOURNAL_STREAM names it (`dev:inode`), so
    `journalctl --user -u memvet-daemon` shows the log too. Compared with stderr itself, as
    systemd.exec(5) advises: a process that inherited the variable but not the stream (started
    from a service's shell) keeps its log in the file only."""
    stream = os.environ.get("JOURNAL_STREAM", "")
    try:
        st = os.fstat(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):  # no stderr, or a non-file object (tests)
        return False
    return bool(stream) and stream == f"{st.st_dev}:{st.st_ino}"


def describe(exc: BaseException) -> str:
    """An exception for the log without its message (which may quote a transcript line or SQL
    parameters): the type and where it was raised, innermost frame first."""
    frames = traceback.extract_tb(exc.__traceback__)[-4:]
    where = " < ".join(f"{os.path.basename(f.filename)}:{f.lineno}" for f in reversed(frames))
    code = getattr(exc, "code", None)
    return f"{type(exc).__name__}{f'[{code}]' if isinstance(code, str) else ''} at {where}"
