"""Reading whole lines of a growing file from a byte offset, with bounded memory.

A file's identity is (device, inode, fingerprint of its first bytes). The fingerprint covers up
to the first 1 KiB; while a file is smaller it covers what exists and is recomputed as it grows.
Only complete lines are returned: a partial last line waits for its newline, and a line longer
than `max_line_bytes` is skipped (counted), never held whole in memory.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import BinaryIO

FINGERPRINT_BYTES = 1024
READ_BUFFER = 1 << 20
SKIP_CHUNK = 1 << 20


def fingerprint_of(head: bytes) -> str:
    """`<n hex>:<sha256 of the first n bytes, 56 hex>`; fits the store's 64-character column."""
    n = min(len(head), FINGERPRINT_BYTES)
    return f"{n:x}:{hashlib.sha256(head[:n]).hexdigest()[:56]}"


def fingerprint_length(fingerprint: str) -> int:
    try:
        return int(fingerprint.split(":", 1)[0], 16)
    except ValueError:
        return -1


def same_start(fingerprint: str, head: bytes) -> bool:
    """Does the file still start with the bytes this fingerprint was taken of?"""
    n = fingerprint_length(fingerprint)
    return 0 <= n <= len(head) and fingerprint_of(head[:n]) == fingerprint


class NotRegularFileError(OSError):
    """A FIFO, socket or device named like a transcript: never read (a FIFO would block)."""


@dataclass
class OpenedFile:
    handle: BinaryIO
    device: int
    inode: int
    size: int
    mtime_ns: int
    head: bytes  # the first FINGERPRINT_BYTES bytes

    def close(self) -> None:
        self.handle.close()


def open_transcript(path: str) -> OpenedFile:
    """Open without blocking and without following into a non-regular file. Raises OSError
    (FileNotFoundError when it vanished, PermissionError, ELOOP for a symlink loop, ...)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"not a regular file: {path}")
        head = os.pread(fd, FINGERPRINT_BYTES, 0)
        handle = os.fdopen(fd, "rb", buffering=READ_BUFFER)
    except BaseException:
        os.close(fd)
        raise
    return OpenedFile(handle, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, head)


def read_lines(
    handle: BinaryIO, offset: int, max_line_bytes: int
) -> Iterator[tuple[bytes | None, int]]:
    """Complete lines from `offset` to the last newline, as (line without its newline, offset
    just past it); the line is None when it was skipped as too long. Stops before a partial
    last line. Reads in large chunks split in C: this loop runs once per transcript line."""
    handle.seek(offset)
    read = handle.read
    head: list[bytes] = []  # the start of a line whose newline has not been read yet
    held = 0
    while True:
        chunk = read(READ_BUFFER)
        if not chunk:
            return  # a partial last line (or none): wait for its newline
        if head:
            cut = chunk.find(b"\n")
            if cut < 0:
                head.append(chunk)
                held += len(chunk)
                if held > max_line_bytes:
                    offset = yield from _skip_long_line(handle, offset + held)
                    if offset < 0:
                        return
                    head, held = [], 0
                continue
            line = b"".join(head) + chunk[:cut]
            head, held = [], 0
            offset += len(line) + 1
            yield (line if len(line) <= max_line_bytes else None), offset
            chunk = chunk[cut + 1 :]
        lines = chunk.split(b"\n")
        rest = lines.pop()  # after the last newline: the start of the next line
        for line in lines:
            offset += len(line) + 1
            yield (line if len(line) <= max_line_bytes else None), offset
        if rest:
            if len(rest) > max_line_bytes:
                offset = yield from _skip_long_line(handle, offset + len(rest))
                if offset < 0:
                    return
            else:
                head, held = [rest], len(rest)


def _skip_long_line(handle: BinaryIO, offset: int) -> Generator[tuple[None, int], None, int]:
    """Trigger: a line longer than the limit, read up to `offset` without its newline. Outcome:
    read on to its newline in bounded chunks, report it skipped and leave the file just after it
    (returns that offset); -1 when the file ends first (the line is still being written)."""
    while True:
        chunk = handle.read(SKIP_CHUNK)
        if not chunk:
            return -1
        cut = chunk.find(b"\n")
        if cut >= 0:
            offset += cut + 1
            handle.seek(offset)
            yield None, offset
            return offset
        offset += len(chunk)
