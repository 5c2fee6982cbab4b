"""Writing an upload's stream to a file while the event loop keeps receiving it.

The loop receives the body; hashing it (MD5, the ETag) and writing it run in worker
threads, one call of each per block of BLOCK bytes, so the loop only gathers chunks. Up
to DEPTH blocks are handed to the workers while the loop gathers the next one: the
socket keeps flowing while a block is hashed, and an upload costs about the longest of
receiving, hashing and writing instead of their sum (MD5 is the slowest: one core hashes
300-600 MB/s). At most DEPTH + 1 blocks are held, whatever the object's size. Each block
is sent on to the disk as soon as written, so the final fsync has little left to wait for.
Without a digest (the mtime ETag) nothing is hashed: an upload costs about the longest of
receiving and writing.

A block is the list of chunks as they arrived (growing one buffer by appends would copy
it over and over as it is reallocated). Hashes run one after the other, in order; each
block is written at its own offset, so writes need no order.
"""

from __future__ import annotations

import asyncio
import ctypes
import hashlib
import os
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from server.storage.backends.base import CHUNK, TooLarge

T = TypeVar("T")
# The threads that hash and write uploads (as many as anyio's default limit of its own):
# their own pool, so that busy disks never hold up the loop's other thread work.
_DISK_THREADS = ThreadPoolExecutor(max_workers=40, thread_name_prefix="supalite-disk")

BLOCK = CHUNK
DEPTH = 2
# Linux's sync_file_range (not in `os`); ctypes releases the GIL while it runs.
_sync_file_range = getattr(ctypes.CDLL(None, use_errno=True), "sync_file_range", None)
if _sync_file_range is not None:
    _sync_file_range.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
_SYNC_FILE_RANGE_WRITE = 2
# Chunks per block at most: a client sending tiny chunks must not make a block a list of
# a million small objects (each costs more than its bytes); under writev's IOV_MAX too.
MAX_PIECES = 256


async def write_stream(fd: int, digest: hashlib._Hash | None, chunks: AsyncIterator[bytes], limit: int) -> int:
    """Hash (into `digest`, unless None) and write the stream's bytes to fd from offset 0:
    the size written. TooLarge once past `limit`, before a byte past it is written. On
    return or on any error no worker is still at work on fd (the caller may close it and
    remove the file)."""
    workers = _Workers(fd, digest)
    size = 0
    block: list[bytes] = []
    gathered = 0
    try:
        async for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise TooLarge()
            block.append(chunk)
            gathered += len(chunk)
            if gathered >= BLOCK or len(block) >= MAX_PIECES:
                await workers.submit(block, gathered)
                block, gathered = [], 0
        if block:
            await workers.submit(block, gathered)
        await workers.drain()
        return size
    finally:
        await workers.settle()


class _Workers:
    """The hashes and writes handed to worker threads and not yet known done, oldest first."""

    def __init__(self, fd: int, digest: hashlib._Hash | None) -> None:
        self.fd = fd
        self.digest = digest
        self.per_block = 1 if digest is None else 2  # its write, and its hash if any
        self.offset = 0
        self.last_hash: asyncio.Future[None] | None = None
        self.in_flight: deque[asyncio.Future[None]] = deque()

    async def submit(self, block: list[bytes], length: int) -> None:
        """Hand a block over, first waiting for the oldest while DEPTH are in flight."""
        await self._wait_until(self.per_block * (DEPTH - 1))
        if self.digest is not None:
            self.last_hash = self._start(self._hash_after(self.last_hash, self.digest, block))
        self._start(run_to_the_end(_write_block, self.fd, block, self.offset))
        self.offset += length

    async def drain(self) -> None:
        await self._wait_until(0)

    async def _wait_until(self, count: int) -> None:
        while len(self.in_flight) > count:
            # Shielded: a cancelled upload leaves the task running, and `settle` waits for it.
            await asyncio.shield(self.in_flight[0])
            self.in_flight.popleft()

    def _start(self, work: Coroutine[Any, Any, None]) -> asyncio.Future[None]:
        task = asyncio.ensure_future(work)
        self.in_flight.append(task)
        return task

    async def _hash_after(self, previous: asyncio.Future[None] | None, digest: hashlib._Hash,
                          block: list[bytes]) -> None:
        if previous is not None:
            await previous  # MD5 is a sequence: the blocks in their order
        await run_to_the_end(_hash, digest, block)

    async def settle(self) -> None:
        """After success or failure: wait for the workers still running (they end on their
        own), and let the caller's error stand over theirs.

        The caller closes fd once this returns, so it returns only when no thread is at work
        on it, however many cancellations arrive meanwhile (the server stopping cancels an
        upload, and may again while it waits): a thread still writing would write to a
        closed descriptor, or into whatever file took its number next. The cancellation is
        raised once they are done."""
        cancelled = False
        running = [task for task in self.in_flight if not task.done()]
        while running:
            try:
                await asyncio.wait(running)
            except asyncio.CancelledError:
                cancelled = True
            running = [task for task in running if not task.done()]
        for task in self.in_flight:
            if not task.cancelled():
                task.exception()  # retrieved: never logged as "exception was never retrieved"
        if cancelled:
            raise asyncio.CancelledError


async def run_to_the_end(func: Callable[..., T], *args: Any) -> T:
    """`func(*args)` in a worker thread, awaited until the thread is done with it, even when
    the waiting task is cancelled meanwhile (the cancellation is raised once it is).

    anyio.to_thread.run_sync, cancelled by asyncio (the server stopping), returns while its
    thread still runs; a thread writing to a descriptor the caller then closes would write
    into whatever file took its number next."""
    work = asyncio.get_running_loop().run_in_executor(_DISK_THREADS, func, *args)
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(work)
            break
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return result


def _hash(digest: hashlib._Hash, block: list[bytes]) -> None:
    for chunk in block:
        digest.update(chunk)  # releases the GIL (past 2 KiB): the loop keeps receiving meanwhile


def pwrite_all(fd: int, pieces: list[bytes], offset: int) -> int:
    """Write every piece, in order, at `offset` (short writes resumed); the offset after them."""
    views = [memoryview(piece) for piece in pieces if piece]
    while views:
        written = os.pwritev(fd, views, offset)
        offset += written
        while views and written >= len(views[0]):  # drop what a short write did write
            written -= len(views.pop(0))
        if views and written:
            views[0] = views[0][written:]
    return offset


def _write_block(fd: int, block: list[bytes], offset: int) -> None:
    end = pwrite_all(fd, block, offset)
    _start_writeback(fd, offset, end - offset)


def _start_writeback(fd: int, offset: int, length: int) -> None:
    """Have the kernel start writing these bytes to disk now, without waiting (the pages
    stay cached): the fsync before the upload's answer then waits for the last ones only.
    A hint: where it is missing, the fsync writes everything."""
    if _sync_file_range is not None:
        _sync_file_range(fd, offset, length, _SYNC_FILE_RANGE_WRITE)
