"""server.storage.backends.filewrite: an upload's writer threads outlive no call to write_stream."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.storage.backends import filewrite


def test_a_twice_cancelled_upload_returns_only_once_its_writer_is_done(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller closes the file as soon as write_stream returns: a thread still writing
    would write to a closed descriptor, or into whatever file took its number next. The
    server stopping cancels an upload, and may cancel it again while it waits."""
    writing, release = threading.Event(), threading.Event()
    finished: list[int] = []
    write_block = filewrite._write_block

    def slow_disk(fd: int, block: list[bytes], offset: int) -> None:
        writing.set()
        release.wait(10)
        write_block(fd, block, offset)
        finished.append(offset)

    monkeypatch.setattr(filewrite, "_write_block", slow_disk)

    async def go() -> None:
        fd = os.open(tmp_path / "object", os.O_RDWR | os.O_CREAT)

        async def stalling_client() -> AsyncIterator[bytes]:
            yield b"x" * filewrite.BLOCK
            await asyncio.sleep(60)  # then the client sends nothing more

        upload = asyncio.create_task(filewrite.write_stream(fd, None, stalling_client(), 10**9))
        while not writing.is_set():
            await asyncio.sleep(0.01)
        for _ in range(3):  # cancelled, and cancelled again while it waits for the writer
            upload.cancel()
            await loop_turns()  # the cancellation delivered and handled: no wait for a time
            assert not upload.done()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await upload
        assert finished == [0]  # the write was over before write_stream returned
        os.close(fd)
        assert (tmp_path / "object").stat().st_size == filewrite.BLOCK

    asyncio.run(go())


def test_run_to_the_end_outlasts_cancellations() -> None:
    """What the resumable append awaits for each write and fsync."""
    done = threading.Event()
    release = threading.Event()

    def work() -> str:
        release.wait(10)
        done.set()
        return "written"

    async def go() -> None:
        task = asyncio.create_task(filewrite.run_to_the_end(work))
        await loop_turns()
        for _ in range(2):
            task.cancel()
            await loop_turns()
            assert not task.done() and not done.is_set()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert done.is_set()
        assert await filewrite.run_to_the_end(lambda: "plain") == "plain"

    asyncio.run(go())


async def loop_turns(turns: int = 20) -> None:
    """Lets the event loop run every ready callback a few times over: what a cancellation sets
    off on the loop has happened after it (the writer thread is held by its event meanwhile)."""
    for _ in range(turns):
        await asyncio.sleep(0)
