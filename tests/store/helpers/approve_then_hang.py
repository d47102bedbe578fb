"""`memvet …` with one test-only change: an approval reserves (with a one-second lease), says
"reserved" on stderr and then hangs before its commit, so a test can SIGKILL a real approver
between reserve and commit. Lives in tests; memvet itself has no such hook."""

from __future__ import annotations

import sys
import time
from datetime import timedelta

from memvet.install.launcher import main
from memvet.store.reservation import Reservations

LEASE = timedelta(seconds=1)
_approve = Reservations.approve


def _approve_with_short_lease(self, candidate_id, *, actor, edits=None, ttl=LEASE, **more):  # noqa: ANN001, ANN003, ANN202
    return _approve(self, candidate_id, actor=actor, edits=edits, ttl=LEASE, **more)


def _hang(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
    print("reserved", file=sys.stderr, flush=True)
    time.sleep(600)


Reservations.approve = _approve_with_short_lease
Reservations.commit = _hang
sys.exit(main(sys.argv[1:]))
