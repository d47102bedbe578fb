"""`memvet hook {claude-code,codex} {session-start,user-prompt-submit}`: approved memories as the
host's additionalContext, read from the hook JSON on stdin.

It runs at every session start and every prompt, so it is built for start-up time:
1. ask the daemon's context server over its user-only Unix socket, importing only os, sys and
   _socket (not socket.py, not json: the daemon parses the host's JSON);
2. without a daemon, read the store directly (memvet.store.fast_read: sqlite3 + cryptography).
It never hurts the host: any failure exits 0 with no output and one line in
MEMVET_HOME/logs/hook.log (codes, counts and times, never user text), and a hard alarm ends it
after DEADLINE_S, well under the hosts' hook timeouts (Claude Code 30 s for prompts, Codex 600 s).
"""

from __future__ import annotations

import os
import sys
import time

from memvet.store.hosts import REGISTRY, all_hook_events  # plain data, no imports

DEADLINE_S = 2
DAEMON_TIMEOUT_S = 0.8  # then the direct path still has over a second
MAX_INPUT = 4 << 20
MAX_LOG = 1 << 20  # hook.log is rotated to hook.log.1 beyond this
# request: b"MVH1 <host> <event>\n<the hook's cwd>\n" + stdin; reply: b"OK\n" + stdout
PROTOCOL = b"MVH1"
GATE_DEADLINE_S = 8  # the native-memory gate (pre-tool-use) opens the store; hooks get 10 s


def memvet_home() -> str:
    env = os.environ.get("MEMVET_HOME")
    if env:
        return os.path.expanduser(env)
    import platformdirs  # as memvet.store.paths does; that module would pull in pathlib

    return platformdirs.user_data_dir("memvet", appauthor=False)


def main(argv: list[str]) -> int:
    started = time.monotonic()
    home = memvet_home()
    host = argv[0] if argv and argv[0] in REGISTRY else "?"
    event = argv[1] if len(argv) > 1 and argv[1] in all_hook_events() else "?"
    _arm_alarm(home, host, event, started)
    path, outcome = "daemon", "empty"
    try:
        if "?" in (host, event) or len(argv) != 2 or event not in REGISTRY[host].hook_events:
            raise ValueError("usage")
        raw = sys.stdin.buffer.read(MAX_INPUT)
        if event == "pre-tool-use":  # Claude Code's auto memory behind review (native_memory.py)
            path, out = "gate", _gate(home, host, event, started, raw)
        else:
            out = (
                None
                if os.environ.get("MEMVET_HOOK_DAEMON") == "off"
                else _via_daemon(home, host, event, raw)
            )
        if out is None and event != "pre-tool-use":
            path = "direct"
            out = _direct(home, host, event, raw)
        if out:
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
            outcome = "denied" if path == "gate" else "context"
    except Exception as exc:  # noqa: BLE001 - the host must never see a failure
        outcome = str(
            getattr(exc, "code", "")
            or (exc.args[0] if type(exc) is ValueError else type(exc).__name__)
        )
    _disarm_alarm()
    _log(home, host, event, path, outcome, started)
    return 0


def _via_daemon(home: str, host: str, event: str, raw: bytes) -> str | None:
    """The daemon's answer, or None when there is no daemon (or it failed): then go direct."""
    try:
        import _socket

        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except (ImportError, AttributeError, OSError):
        return None
    chunks = []
    try:
        sock.settimeout(DAEMON_TIMEOUT_S)
        sock.connect(os.path.join(home, "run", "daemon.sock"))
        sock.sendall(
            b"%s %s %s\n%s\n%s"
            % (PROTOCOL, host.encode(), event.encode(), os.fsencode(os.getcwd()), raw)
        )
        sock.shutdown(_socket.SHUT_WR)
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except OSError:  # refused, missing, timed out
        return None
    finally:
        sock.close()
    reply = b"".join(chunks)
    return reply[3:].decode("utf-8") if reply.startswith(b"OK\n") else None


def _load_read_side():  # noqa: ANN202 - three modules
    """Imported only on the direct path; memvet.store's __init__ is lazy, so this pays for
    these modules' own imports (sqlite3, cryptography) and nothing else."""
    from memvet.store import fast_keys, fast_read, hook_reply

    return fast_keys, fast_read, hook_reply


def _direct(home: str, host: str, event: str, raw: bytes) -> str | None:
    fk, fr, reply = _load_read_side()
    from datetime import UTC, datetime  # sqlite3 has imported it already

    from memvet.store.login import current_user  # os only

    conns = []

    def open_source(workspace: str | None):  # noqa: ANN202
        conn, cipher = fk.open_direct(home)
        conns.append(conn)
        return fr.DirectSource(conn, cipher, current_user(), workspace)

    try:
        return reply.answer(host, event, raw, home, open_source, fr.cp.stamp(datetime.now(UTC)))
    finally:
        for conn in conns:
            conn.close()


def _gate(home: str, host: str, event: str, started: float, raw: bytes) -> str | None:
    """Fails closed: past its deadline (queueing took too long) the write is denied."""
    from memvet.install import native_memory

    def on_alarm(_signum, _frame) -> None:  # noqa: ANN001
        sys.stdout.write(
            native_memory.json.dumps(
                native_memory.deny(
                    "memvet could not queue this memory for review in time, so it was not written"
                )
            )
            + "\n"
        )
        sys.stdout.flush()
        _log(home, host, event, "gate", "deadline", started)
        os._exit(0)

    try:
        import _signal

        _signal.signal(_signal.SIGALRM, on_alarm)
        _signal.alarm(GATE_DEADLINE_S)
    except (ImportError, AttributeError):
        pass
    return native_memory.pre_tool_use(raw)


def _arm_alarm(home: str, host: str, event: str, started: float) -> None:
    try:
        import _signal
    except ImportError:
        return
    if not hasattr(_signal, "SIGALRM"):
        return

    def on_alarm(_signum, _frame) -> None:  # noqa: ANN001
        _log(home, host, event, "-", "deadline", started)
        os._exit(0)

    _signal.signal(_signal.SIGALRM, on_alarm)
    _signal.alarm(DEADLINE_S)


def _disarm_alarm() -> None:
    try:
        import _signal

        _signal.alarm(0)
    except (ImportError, AttributeError):
        pass


def _log(home: str, host: str, event: str, path: str, outcome: str, started: float) -> None:
    """One line per run. Only fixed words, codes and numbers: never what the user typed."""
    ms = int((time.monotonic() - started) * 1000)
    line = (
        f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {host} {event} "
        f"path={path} outcome={outcome[:40]} ms={ms}\n"
    )
    try:
        folder = os.path.join(home, "logs")
        # makedirs applies its mode to the last folder only: MEMVET_HOME is made private first.
        os.makedirs(home, mode=0o700, exist_ok=True)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        log = os.path.join(folder, "hook.log")
        try:
            if os.stat(log).st_size > MAX_LOG:
                os.replace(log, log + ".1")
        except FileNotFoundError:
            pass
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("ascii", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass
