"""`memvet …` with one test-only change: `key rotate` says where it is on stderr and hangs
there, so a test can SIGKILL a real rotation at that point. Lives in tests; memvet has no such
hook. argv[1] is the point: "before-commit" (the new key saved, the new wrap not committed) or
"after-commit" (the new wrap committed, the old key not yet removed)."""

from __future__ import annotations

import sys
import time

from memvet.install.launcher import main
from memvet.store.keys import FileKeyProvider

POINT = sys.argv.pop(1)
_save, _delete = FileKeyProvider.save, FileKeyProvider.delete


def _hang(where: str) -> None:
    print(where, file=sys.stderr, flush=True)
    time.sleep(600)


def _save_then_hang(self, version, kek):  # noqa: ANN001, ANN202
    _save(self, version, kek)
    if POINT == "before-commit":
        _hang("saved")


def _hang_before_removing_an_older_key(self, version):  # noqa: ANN001, ANN202
    # A rotation deletes its new version first (an orphan of an earlier try), then, once
    # committed, an older one: the point to stop at.
    present = [
        int(p.name[5:]) for p in self.path(version).parent.glob("kek-v*") if p.name[5:].isdigit()
    ]
    if POINT == "after-commit" and self.path(version).exists() and version < max(present):
        _hang("committed")
    _delete(self, version)


FileKeyProvider.save = _save_then_hang
FileKeyProvider.delete = _hang_before_removing_an_older_key
sys.exit(main(sys.argv[1:]))
