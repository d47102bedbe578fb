"""`memvet mcp` stops on SIGINT even when its parent started it with SIGINT ignored (hosts and
shells' background jobs do): Python then keeps the signal ignored, and the server ran on."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("inherited", [signal.SIG_IGN, signal.SIG_DFL])
def test_sigint_stops_the_server(inherited):
    server = subprocess.Popen(
        [sys.executable, "-m", "memvet.install.launcher", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, inherited),
    )
    try:
        server.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        server.stdin.flush()
        assert server.stdout.readline()  # up and answering
        server.send_signal(signal.SIGINT)
        started = time.monotonic()
        server.wait(10)
        assert time.monotonic() - started < 5
        assert b"Traceback" not in server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
