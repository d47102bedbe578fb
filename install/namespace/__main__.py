"""`python -m memvet …`: the same launcher as the `memvet` script (`memvet hook` included).

This folder is the `memvet` namespace's own portion (no `__init__.py`: the components stay
separate portions of one PEP 420 namespace); it holds only this entry."""

import sys

from memvet.install.launcher import main

if __name__ == "__main__":
    sys.exit(main())
