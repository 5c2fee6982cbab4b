"""Local files under <data_dir>/storage: `<bucket>/<name>/<version>`.

Writes go to a temporary file (`.<version>.<hex>.part`), flushed to disk and renamed into
place, then the folder is flushed too: a failed or too-large upload leaves nothing, and a
committed row never points at bytes a power cut could lose. The writer holds an exclusive
lock on its temporary file while it writes; at start a sweep removes the temporary files
nobody holds (left by a process killed mid-upload). Every path is checked to stay under
the root (the secure-path guard).

A resumable upload appends to its own file under `#resumable/` (a name no bucket can
take), written at the offset its row records and flushed to disk before the row moves
on, then renamed into place when complete.

An object's ETag is made by its Etag (STORAGE_FILE_ETAG_ALGORITHM, as upstream's file
backend): the MD5 of its bytes, or its modification time and size (no hashing at all).

The layout is upstream's (`<name>/<version>`), where a name running through another
object's stored version (`a.txt/<a.txt's version>/...`) would need a folder where a file
is: such a key is refused with KeyConflict before any byte is taken (the service answers
InvalidKey), never an error of the file system. A version's name is a fresh UUID, so no
name can reach the place of bytes that are not yet stored either.

For the reaper, `stored_before` lists the stored versions (UUID-named files) by the time
they were placed: their ctime, which a rename into place or a hard-linked copy sets (the
mtime of a copy is its source's)."""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import logging
import os
import re
import stat
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO, TypeVar

import anyio

from server.storage.backends.base import (
    CHUNK,
    BackendMissing,
    KeyConflict,
    ObjectHead,
    OnDurable,
    PartState,
    TooLarge,
)
from server.storage.backends.fileread import open_for_reading, read_range
from server.storage.backends.filewrite import pwrite_all, run_to_the_end, write_stream

T = TypeVar("T")
log = logging.getLogger("supalite.storage.file")
_PART_NAME = re.compile(r"\..+\.[0-9a-f]{32}\.part")
_SCRATCH = re.compile(r"[0-9a-f]{32}")
_VERSION = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Errors of a path that runs through a file (or stands where a folder is): not "missing"
# in the sense of FileNotFoundError, but no bytes are there either.
_NOT_THERE = (FileNotFoundError, IsADirectoryError, NotADirectoryError)
ORPHAN_BATCH = 500
MTIME_SLACK = 0.05
RESUMABLE_DIR = "#resumable"  # '#' is no bucket name's character: never an object's folder


class Etag:
    """How the file backend makes an object's ETag, in one place (upstream storage-api's
    STORAGE_FILE_ETAG_ALGORITHM).

    md5 (the default): `"<md5 of the bytes>"`, hashed while an upload is written, or read
    back from the file by `head`. One core hashes a few hundred MB/s: that bounds uploads.
    mtime: `"<mtime in ms, hex>-<size, hex>"` of the committed file, nothing hashed. A new
    version is a new file, so its ETag changes (unless written in the same millisecond
    with the same size); a hard-linked copy shares its source's."""

    ALGORITHMS = ("md5", "mtime")

    def __init__(self, algorithm: str = "md5") -> None:
        if algorithm not in self.ALGORITHMS:
            raise ValueError(f"unknown ETag algorithm {algorithm!r} (md5 or mtime)")
        self.hashes = algorithm == "md5"

    def digest(self) -> hashlib._Hash | None:
        """What an upload hashes its bytes into as it writes them (None: nothing)."""
        return hashlib.md5(usedforsecurity=False) if self.hashes else None

    def head(self, path: Path, digest: hashlib._Hash | None = None) -> ObjectHead:
        """The committed file's head. `digest`: the MD5 its write computed (md5 only;
        without it the file is read back and hashed, which blocks for a while)."""
        if not self.hashes:
            stat = path.stat()
            return _head(stat, f'"{stat.st_mtime_ns // 1_000_000:x}-{stat.st_size:x}"')
        if digest is None:
            digest = _md5_of(path)
        return _head(path.stat(), f'"{digest.hexdigest()}"')


class FileBackend:
    def __init__(self, root: Path, etag_algorithm: str = "md5") -> None:
        self.root = Path(os.path.abspath(root))
        self.etag = Etag(etag_algorithm)
        self.started_at = time.time()
        self._sweep: asyncio.Task[int] | None = None

    async def start(self) -> None:
        self.started_at = time.time()
        await anyio.to_thread.run_sync(lambda: self.root.mkdir(parents=True, exist_ok=True))
        # In the background: a large tree must not delay serving.
        self._sweep = asyncio.create_task(anyio.to_thread.run_sync(self.remove_abandoned_parts))

    async def close(self) -> None:
        if self._sweep is not None and not self._sweep.done():
            self._sweep.cancel()

    def remove_abandoned_parts(self) -> int:
        """Remove the temporary files of uploads whose writer is gone: older than this
        process and not locked by a live writer (another worker may be mid-upload)."""
        removed = 0
        for folder, _, files in os.walk(self.root):
            for name in files:
                if _PART_NAME.fullmatch(name) and _remove_if_abandoned(Path(folder) / name, self.started_at):
                    removed += 1
                    self._prune(Path(folder))
        if removed:
            log.warning("storage: removed %d partial upload file(s) left by an interrupted upload", removed)
        return removed

    def path(self, key: str) -> Path:
        path = Path(os.path.normpath(self.root / key))
        if path == self.root or self.root not in path.parents:
            raise BackendMissing(key)
        return path

    async def put(self, key: str, chunks: AsyncIterator[bytes], content_type: str, limit: int) -> ObjectHead:
        final = self.path(key)
        temp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.part")
        digest = self.etag.digest()
        handle: BinaryIO = await anyio.to_thread.run_sync(_in_folder, temp, lambda: _open_locked(temp))
        try:
            await write_stream(handle.fileno(), digest, chunks, limit)
            await anyio.to_thread.run_sync(_commit, handle, temp, final)
        except BaseException:
            handle.close()
            temp.unlink(missing_ok=True)
            self._prune(final.parent)
            raise
        return self.etag.head(final, digest)  # a stat: the digest is done

    async def stream(self, key: str, start: int = 0, end: int | None = None) -> AsyncIterator[bytes | memoryview]:
        path = self.path(key)
        try:
            fd, size = await open_for_reading(str(path))
        except _NOT_THERE:
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
        except _NOT_THERE:
            raise BackendMissing(key) from None

    async def head(self, key: str) -> ObjectHead:
        path = self.path(key)
        try:
            return await anyio.to_thread.run_sync(self.etag.head, path)
        except _NOT_THERE:
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
                _fsync(dst)
            _fsync(dst.parent)

        try:
            await anyio.to_thread.run_sync(_in_folder, dst, link)
        except FileNotFoundError:
            raise BackendMissing(source) from None
        return await self.head(destination)

    async def delete(self, key: str) -> None:
        path = self.path(key)

        def remove() -> None:
            try:
                path.unlink()
            except _NOT_THERE:
                return
            self._prune(path.parent)

        await anyio.to_thread.run_sync(remove)

    async def check_key(self, key: str) -> None:
        path = self.path(key)

        def check() -> None:
            for folder in reversed(path.parents):  # from the root down
                if folder != self.root and self.root not in folder.parents:
                    continue
                try:
                    mode = os.stat(folder).st_mode
                except FileNotFoundError:
                    return  # nothing deeper exists: nothing is in the way
                except NotADirectoryError:
                    raise KeyConflict(key) from None
                if not stat.S_ISDIR(mode):
                    raise KeyConflict(key)

        await anyio.to_thread.run_sync(check)

    # -- what a crash leaves behind ---------------------------------------------------

    async def stored_before(self, moment: datetime) -> AsyncIterator[list[str]]:
        batches = _stored_batches(self.root, moment.timestamp(), ORPHAN_BATCH)
        while (batch := await anyio.to_thread.run_sync(next, batches, None)) is not None:
            yield batch

    async def unfinished_before(self, moment: datetime) -> AsyncIterator[list[tuple[str, str]]]:
        # No multipart uploads here: an interrupted write leaves a `.part` file, removed at start.
        none: tuple[list[tuple[str, str]], ...] = ()
        for batch in none:
            yield batch

    async def abort_unfinished(self, key: str, upload_id: str) -> None:
        return None

    # -- resumable uploads --------------------------------------------------------------

    def scratch_path(self, scratch: str) -> Path:
        if not _SCRATCH.fullmatch(scratch):
            raise BackendMissing(scratch)
        return self.root / RESUMABLE_DIR / f"{scratch}.upload"

    async def resumable_open(self, scratch: str, key: str, content_type: str, cache_control: str) -> PartState:
        path = self.scratch_path(scratch)

        def create() -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            _fsync(path.parent)

        await anyio.to_thread.run_sync(create)
        return {}

    async def resumable_append(self, scratch: str, key: str, state: PartState, offset: int,
                               chunks: AsyncIterator[bytes], final: int, on_durable: OnDurable) -> tuple[PartState, int]:
        path = self.scratch_path(scratch)

        def open_at() -> int:
            fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
            if os.fstat(fd).st_size < offset:  # bytes the row counts are gone: nothing to append to
                os.close(fd)
                raise FileNotFoundError(path)
            os.ftruncate(fd, offset)  # drop what a crashed request wrote past the recorded offset
            return fd

        try:
            fd = await anyio.to_thread.run_sync(open_at)
        except FileNotFoundError:
            raise BackendMissing(scratch) from None
        position = offset
        buffer = bytearray()
        try:
            async for chunk in chunks:
                buffer += chunk
                if len(buffer) >= CHUNK:
                    block, buffer = bytes(buffer), bytearray()
                    await run_to_the_end(pwrite_all, fd, [block], position)
                    position += len(block)
        finally:
            # Whatever ended the stream (its end, a client gone), what arrived is kept.
            with anyio.CancelScope(shield=True):
                try:
                    if buffer:
                        await run_to_the_end(pwrite_all, fd, [bytes(buffer)], position)
                        position += len(buffer)
                    await run_to_the_end(os.fsync, fd)
                finally:
                    os.close(fd)  # no thread is at work on it (run_to_the_end)
                await on_durable(state, position)
        return state, position

    async def resumable_complete(self, scratch: str, key: str, state: PartState) -> ObjectHead:
        source, final = self.scratch_path(scratch), self.path(key)

        def place() -> None:
            os.replace(source, final)
            _fsync(final.parent)

        try:
            await anyio.to_thread.run_sync(_in_folder, final, place)
        except FileNotFoundError:
            if not final.is_file():  # not a repeat of a completion that already placed it
                raise BackendMissing(scratch) from None
        return await self.head(key)

    async def resumable_abort(self, scratch: str, key: str, state: PartState) -> None:
        path = self.scratch_path(scratch)
        await anyio.to_thread.run_sync(lambda: path.unlink(missing_ok=True))

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
    the folder the moment it is empty, between the mkdir and the create: make it again.
    A folder that a file stands in the way of is a KeyConflict."""
    for _ in range(5):
        _make_folder(path.parent)
        try:
            return create()
        except FileNotFoundError:
            if path.parent.is_dir():
                raise  # not a pruned folder: a real missing source
    return create()


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # a file (another object's version) is in the way
        raise KeyConflict(str(folder)) from None


def _stored_batches(root: Path, before: float, size: int) -> Iterator[list[str]]:
    """The keys (`<bucket>/<name>/<uuid>`) of the version files placed before `before`, in
    batches; scratch bytes of resumable uploads and temporary `.part` files are not versions."""
    batch: list[str] = []
    for top, folders, files in os.walk(root):
        if top == str(root):
            folders[:] = [f for f in folders if f != RESUMABLE_DIR]
        for name in files:
            if not _VERSION.fullmatch(name):
                continue
            path = os.path.join(top, name)
            key = os.path.relpath(path, root)
            if key.count("/") < 2 or not _utf8(key):
                continue  # not <bucket>/<name>/<version> (or not UTF-8): nothing this server stored
            try:
                info = os.lstat(path)
            except OSError:
                continue  # removed meanwhile
            if not stat.S_ISREG(info.st_mode) or max(info.st_ctime, info.st_mtime) >= before:
                continue
            batch.append(key)
            if len(batch) >= size:
                yield batch
                batch = []
    if batch:
        yield batch


def _open_locked(path: Path) -> BinaryIO:
    handle = open(path, "wb")  # noqa: SIM115 - closed by put, once renamed or on failure
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # released with the file, or when the process dies
    return handle


def _commit(handle: BinaryIO, temp: Path, final: Path) -> None:
    """Bytes on disk, then the name: a crash leaves either the old state or the whole file."""
    handle.flush()
    os.fsync(handle.fileno())
    os.replace(temp, final)
    handle.close()
    _fsync(final.parent)


def _fsync(path: Path) -> None:
    """Flush a file's bytes, or a folder's entries (a new name), to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_if_abandoned(path: Path, started_at: float) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False  # gone meanwhile: renamed into place or removed by its writer
    try:
        # Slack: file times tick by the kernel's coarse clock (a few ms behind time.time()),
        # so a file created just after the start, its writer not yet locking it, looks older.
        if os.fstat(fd).st_mtime >= started_at - MTIME_SLACK:
            return False  # written since this process started: maybe a live upload
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a live writer holds it
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _utf8(name: str) -> bool:
    """Whether a name read from the disk is UTF-8 (os.walk escapes other bytes as surrogates)."""
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True


def _md5_of(path: Path) -> hashlib._Hash:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest


def _head(stat: os.stat_result, etag: str) -> ObjectHead:
    return ObjectHead(stat.st_size, etag, datetime.fromtimestamp(stat.st_mtime, tz=UTC))
