"""S3 / MinIO through the `minio` client: every object in one bucket, keyed like the file
backend. The client is synchronous, so each call runs in a worker thread; uploads stream
as multipart parts of PART_SIZE, so memory stays flat whatever the object's size."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from urllib.parse import urlparse

import anyio
import anyio.from_thread
from minio import Minio
from minio.commonconfig import CopySource
from minio.error import S3Error

from server.storage.backends.base import CHUNK, BackendMissing, ObjectHead, TooLarge

PART_SIZE = 8 * 1024 * 1024


def make_client(endpoint: str, access_key: str, secret_key: str, region: str) -> Minio:
    url = urlparse(endpoint if "://" in endpoint else f"http://{endpoint}")
    return Minio(url.netloc, access_key=access_key, secret_key=secret_key,
                 secure=url.scheme == "https", region=region)


class _StreamReader:
    """A blocking `read(n)` over an async chunk iterator, for minio's worker thread."""

    def __init__(self, chunks: AsyncIterator[bytes], limit: int) -> None:
        self.chunks = chunks
        self.limit = limit
        self.size = 0
        self.buffer = bytearray()
        self.done = False

    def read(self, n: int = -1) -> bytes:
        while not self.done and (n < 0 or len(self.buffer) < n):
            chunk = anyio.from_thread.run(_next_chunk, self.chunks)
            if chunk is None:
                self.done = True
                break
            self.size += len(chunk)
            if self.size > self.limit:
                raise TooLarge()
            self.buffer += chunk
        if n < 0:
            n = len(self.buffer)
        block = bytes(self.buffer[:n])
        del self.buffer[:n]
        return block


async def _next_chunk(chunks: AsyncIterator[bytes]) -> bytes | None:
    try:
        return await chunks.__anext__()
    except StopAsyncIteration:
        return None


class S3Backend:
    def __init__(self, client: Minio, bucket: str) -> None:
        self.client = client
        self.bucket = bucket

    async def start(self) -> None:
        def ensure() -> None:
            if not self.client.bucket_exists(self.bucket):
                self.client.make_bucket(self.bucket)

        await anyio.to_thread.run_sync(ensure)

    async def close(self) -> None:
        return None

    async def put(self, key: str, chunks: AsyncIterator[bytes], content_type: str, limit: int) -> ObjectHead:
        reader = _StreamReader(chunks, limit)

        def upload() -> None:
            # minio only calls read(); its annotation asks for a whole BinaryIO.
            self.client.put_object(self.bucket, key, reader, length=-1, part_size=PART_SIZE,  # type: ignore[arg-type]
                                   content_type=content_type or "application/octet-stream")

        # minio aborts its multipart upload when read() raises, so nothing is left behind.
        await anyio.to_thread.run_sync(upload)
        return await self.head(key)

    async def stream(self, key: str, start: int = 0, end: int | None = None) -> AsyncIterator[bytes]:
        length = 0 if end is None else end - start + 1
        try:
            response = await anyio.to_thread.run_sync(
                lambda: self.client.get_object(self.bucket, key, offset=start, length=length))
        except S3Error as exc:
            raise _missing(exc, key) from None
        try:
            blocks = response.stream(CHUNK)
            while True:
                block = await anyio.to_thread.run_sync(next, blocks, None)
                if block is None:
                    break
                yield block
        finally:
            response.close()
            response.release_conn()

    async def get(self, key: str, limit: int) -> bytes:
        head = await self.head(key)
        if head.size > limit:
            raise TooLarge()
        parts = [block async for block in self.stream(key)]
        return b"".join(parts)

    async def head(self, key: str) -> ObjectHead:
        try:
            stat = await anyio.to_thread.run_sync(lambda: self.client.stat_object(self.bucket, key))
        except S3Error as exc:
            raise _missing(exc, key) from None
        modified = stat.last_modified or datetime.now(UTC)
        return ObjectHead(stat.size or 0, f'"{(stat.etag or "").strip(chr(34))}"', modified)

    async def copy(self, source: str, destination: str) -> ObjectHead:
        try:
            await anyio.to_thread.run_sync(
                lambda: self.client.copy_object(self.bucket, destination, CopySource(self.bucket, source)))
        except S3Error as exc:
            raise _missing(exc, source) from None
        return await self.head(destination)

    async def delete(self, key: str) -> None:
        await anyio.to_thread.run_sync(lambda: self.client.remove_object(self.bucket, key))


def _missing(exc: S3Error, key: str) -> Exception:
    if exc.code in ("NoSuchKey", "NoSuchObject", "ResourceNotFound"):
        return BackendMissing(key)
    return exc
