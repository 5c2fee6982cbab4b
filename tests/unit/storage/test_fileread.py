"""Reading file ranges for downloads: page-cache reads on the loop, cold blocks in a thread."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from server.storage.backends import fileread


def read_all(path: Path, start: int, stop: int, block: int = fileread.BLOCK) -> bytes:
    async def run() -> bytes:
        fd, _ = await fileread.open_for_reading(str(path))
        try:
            return b"".join([bytes(b) async for b in fileread.read_range(fd, start, stop, block)])
        finally:
            os.close(fd)

    return anyio.run(run)


@pytest.fixture
def sample(tmp_path: Path) -> tuple[Path, bytes]:
    data = os.urandom(3 * 1024 * 1024 + 123)
    path = tmp_path / "sample.bin"
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("start,stop", [(0, None), (0, 1), (1000, 2_000_000), (3 * 1024 * 1024, None)])
def test_ranges_come_back_exactly(sample: tuple[Path, bytes], start: int, stop: int | None) -> None:
    path, data = sample
    stop = len(data) if stop is None else stop
    assert read_all(path, start, stop) == data[start:stop]
    assert read_all(path, start, stop, block=4096 + 7) == data[start:stop]


def test_a_file_shorter_than_asked_ends_early(sample: tuple[Path, bytes]) -> None:
    path, data = sample
    assert read_all(path, 100, len(data) + 10_000) == data[100:]


def test_blocks_are_fresh_buffers(sample: tuple[Path, bytes]) -> None:
    path, data = sample

    async def run() -> list[memoryview]:
        fd, _ = await fileread.open_for_reading(str(path))
        try:
            return [b async for b in fileread.read_range(fd, 0, len(data), 1024 * 1024)]
        finally:
            os.close(fd)

    blocks = anyio.run(run)
    # Kept blocks still hold their own bytes: no buffer was reused under a pending send.
    assert b"".join(bytes(b) for b in blocks) == data
    assert len({id(b.obj) for b in blocks}) == len(blocks)


def test_cold_file_is_read_through_a_worker(sample: tuple[Path, bytes]) -> None:
    path, data = sample
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # evict: the next read must wait for the disk
        if fileread._read_nowait(fd, bytearray(4096), 0) is not None:
            pytest.skip("this file system serves RWF_NOWAIT reads of evicted pages (or keeps them cached)")
    finally:
        os.close(fd)
    assert read_all(path, 0, len(data)) == data
