# The C module under `signal`, which typeshed does not describe. The hook imports it directly:
# `signal` loads `enum`, a cost on every prompt (install/hook_entry.py). Only what it calls.
from collections.abc import Callable
from types import FrameType

SIGALRM: int

def signal(
    signalnum: int, handler: Callable[[int, FrameType | None], object] | int, /
) -> object: ...
def alarm(seconds: int, /) -> int: ...
