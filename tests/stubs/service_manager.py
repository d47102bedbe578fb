"""A stand-in for `systemctl` and `launchctl` (tests only): `memvet service` runs the real
commands, and the tests put this first on PATH (the `service_manager` fixture in
tests/conftest.py), so nothing touches the machine's service manager.

Each call appends `{"argv": [name, *args]}` to the file MEMVET_TEST_COMMANDS names and answers
success, or what the first entry of MEMVET_TEST_REPLIES (a JSON list of `{"match": "<text in
the command line>", "returncode", "stdout", "stderr"}`) whose text the command line holds says.
"""

from __future__ import annotations

import json
import os
import shlex
import sys


def main(argv: list[str]) -> int:
    with open(os.environ["MEMVET_TEST_COMMANDS"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"argv": argv}) + "\n")
    replies = os.environ.get("MEMVET_TEST_REPLIES")
    canned = json.loads(open(replies, encoding="utf-8").read()) if replies else []
    line = shlex.join(argv)
    for reply in canned:
        if reply["match"] in line:
            sys.stdout.write(reply.get("stdout", ""))
            sys.stderr.write(reply.get("stderr", ""))
            return int(reply.get("returncode", 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
