"""Local files under <data_dir>/storage: `<bucket>/<name>/<version>`.

Writes go to a temporary file renamed into place, so a failed or too-large upload leaves
nothing; every path is checked to stay under the root (the secure-path guard)."""

from __future__ import annotations

import hashlib
import os
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import AsyncIterator, BinaryIO, Callable, TypeVar

import anyio

from server.storage.backends.base import CHUNK, BackendMissing, ObjectHead, TooLarge
from server.storage.backends.fileread import open_for_reading, read_range

T = TypeVar("T")


class FileBackend:
    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.abspath(root))

    async def start(self) -> None:
        await anyio.to_thread.run_sync(lambda: self.root.mkdir(parents=True, exist_ok=True))

    async def close(self) -> None:
        return None

    def path(self, key: str) -> Path:
        path = Path(os.path.normpath(self.root / key))
        if path == self.root or self.root not in path.parents:
            raise BackendMissing(key)
        return path

    async def put(self, key: str, chunks: AsyncIterator[bytes], content_type: str, limit: int) -> ObjectHead:
        final = self.path(key)
        temp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.part")
        digest = hashlib.md5(usedforsecurity=False)
        size = 0
        handle: BinaryIO = await anyio.to_thread.run_sync(_in_folder, temp, lambda: open(temp, "wb"))
        try:
            buffer = bytearray()
            async for chunk in chunks:
                size += len(chunk)
                if size > limit:
                    raise TooLarge()
                buffer += chunk
                if len(buffer) >= CHUNK:
                    block, buffer = bytes(buffer), bytearray()
                    await anyio.to_thread.run_sync(_write_block, handle, digest, block)
            if buffer:
                await anyio.to_thread.run_sync(_write_block, handle, digest, bytes(buffer))
            await anyio.to_thread.run_sync(handle.close)
            await anyio.to_thread.run_sync(os.replace, temp, final)
        except BaseException:
            handle.close()
            temp.unlink(missing_ok=True)
            self._prune(final.parent)
            raise
        return ObjectHead(size, f'"{digest.hexdigest()}"', _mtime(final))

    async def stream(self, key: str, start: int = 0, end: int | None = None) -> AsyncIterator[bytes | memoryview]:
        path = self.path(key)
        try:
            fd, size = await open_for_reading(str(path))
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise BackendMissing(key) from None
        try:
            stop = size if end is None else min(end + 1, size)
            async for block in read_range(fd, start, stop):
                yield block  # a memoryview over a fresh buffer: not copied again
        finally:
            os.close(fd)

    async def get(self, key: str, limit: int) -> bytes:
        path = self.path(key)

        def read() -> bytes:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
            if len(data) > limit:
                raise TooLarge()
            return data

        try:
            return await anyio.to_thread.run_sync(read)
        except FileNotFoundError:
            raise BackendMissing(key) from None

    async def head(self, key: str) -> ObjectHead:
        path = self.path(key)

        def compute() -> ObjectHead:
            digest = hashlib.md5(usedforsecurity=False)
            with open(path, "rb") as handle:
                while block := handle.read(CHUNK):
                    digest.update(block)
            return ObjectHead(path.stat().st_size, f'"{digest.hexdigest()}"', _mtime(path))

        try:
            return await anyio.to_thread.run_sync(compute)
        except FileNotFoundError:
            raise BackendMissing(key) from None

    async def copy(self, source: str, destination: str) -> ObjectHead:
        src, dst = self.path(source), self.path(destination)

        def link() -> None:
            if not src.is_file():
                raise BackendMissing(source)
            try:
                os.link(src, dst)  # versions are immutable: sharing the inode is a free copy
            except FileNotFoundError:
                raise
            except OSError:
                import shutil

                shutil.copyfile(src, dst)

        try:
            await anyio.to_thread.run_sync(_in_folder, dst, link)
        except FileNotFoundError:
            raise BackendMissing(source) from None
        return await self.head(destination)

    async def delete(self, key: str) -> None:
        path = self.path(key)

        def remove() -> None:
            path.unlink(missing_ok=True)
            self._prune(path.parent)

        await anyio.to_thread.run_sync(remove)

    def _prune(self, folder: Path) -> None:
        """Remove the now-empty folders of a name, never the root itself."""
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent


def _in_folder(path: Path, create: Callable[[], T]) -> T:
    """Create `path` after making its folder. A concurrent delete (the reaper) may prune
    the folder the moment it is empty, between the mkdir and the create: make it again."""
    for _ in range(5):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return create()
        except FileNotFoundError:
            if path.parent.is_dir():
                raise  # not a pruned folder: a real missing source
    return create()


def _write_block(handle: BinaryIO, digest: "hashlib._Hash", block: bytes) -> None:
    digest.update(block)
    handle.write(block)


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
