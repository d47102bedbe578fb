"""`python -m memvet.daemon run [--once]` and `status [--json]`."""

from __future__ import annotations

import sys

from memvet.daemon.commands import main

if __name__ == "__main__":
    sys.exit(main())
