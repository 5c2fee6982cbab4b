"""Reading a file's bytes for a download without a thread hop per block when it can be
done without blocking.

A download is bound by copies (page cache -> Python -> socket) and, with a thread per
read, by the hand-off between the event loop and the worker (queue, condition variable,
GIL). Linux's `preadv(..., RWF_NOWAIT)` reads only what is already in the page cache and
fails with EAGAIN instead of waiting for the disk, so the hot case runs on the event
loop and only a cold block goes to a worker thread: the loop never waits on a disk.

Blocks are fresh buffers handed out as memoryviews (no copy into a `bytes`): the
transport may still hold a block after `send` returned, so a buffer is never reused.
"""

from __future__ import annotations

import errno
import os
from collections.abc import AsyncIterator

import anyio

BLOCK = 512 * 1024  # measured best on loopback: large enough for few sends, small enough to stay in cache
_NOWAIT = getattr(os, "RWF_NOWAIT", None)


def _read_nowait(fd: int, buffer: bytearray, offset: int) -> int | None:
    """Bytes read from the page cache, or None when the read would wait for the disk."""
    try:
        return os.preadv(fd, [buffer], offset, _NOWAIT)  # type: ignore[arg-type]
    except BlockingIOError:
        return None


async def read_range(fd: int, start: int, stop: int, block: int = BLOCK) -> AsyncIterator[memoryview]:
    """Blocks of bytes start..stop (exclusive) of an open file; ends early at end of file."""
    nowait = _NOWAIT is not None
    offset = start
    while offset < stop:
        buffer = bytearray(min(block, stop - offset))
        count = None
        if nowait:
            try:
                count = _read_nowait(fd, buffer, offset)
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):
                    raise
                nowait = False  # this file system cannot: threads for the rest of the file
        if not count:  # would block (or a 0 we do not trust before `stop`): a worker reads
            count = await anyio.to_thread.run_sync(os.preadv, fd, [buffer], offset)
        if count == 0:
            return
        offset += count
        yield memoryview(buffer)[:count]


async def open_for_reading(path: str) -> tuple[int, int]:
    """(fd, size). Opening may touch the disk (metadata): a worker thread does it."""

    def run() -> tuple[int, int]:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            size = os.fstat(fd).st_size
            if hasattr(os, "posix_fadvise"):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)  # larger readahead
        except BaseException:
            os.close(fd)
            raise
        return fd, size

    return await anyio.to_thread.run_sync(run)
