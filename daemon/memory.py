"""Giving freed heap back to the OS after a backfill.

A backfill reads hundreds of MB through short-lived buffers and strings; Python frees them, but
glibc keeps the freed pages inside its heap (fragmented by the few objects that stay), so the
daemon's RSS grew with every backfill while its live Python objects did not (tracemalloc flat,
issue 15). `malloc_trim(0)` returns those free pages. Elsewhere (macOS, musl) it is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim  # glibc only
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """True when the C library was asked to return free heap pages to the OS."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
