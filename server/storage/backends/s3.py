"""S3 / MinIO through the `minio` client: every object in one bucket, keyed like the file
backend. The client is synchronous, so each call runs in a worker thread; uploads stream
as multipart parts of PART_SIZE, so memory stays flat whatever the object's size.

A resumable upload is an S3 multipart upload created at the object's key, as
storage-api's TUS S3 store does: each request's bytes are spooled to a temporary file
and sent as parts of at most `resumable_part_size` (TUS_PART_SIZE); a tail shorter than
S3's 5 MiB minimum part that is not the upload's end is kept as a separate object
(`#resumable/<scratch>.part`, upstream's "incomplete part") and sent in front of the next
request's bytes. Parts are sent from the file through a presigned URL, so a part is never
held in memory.

For the reaper, `stored_before` lists the stored versions by LastModified, and
`unfinished_before` the multipart uploads never completed (a process killed during a
large upload leaves one, invisible but stored) by their initiation time."""

from __future__ import annotations

import functools
import itertools
import re
import tempfile
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import IO, Any
from urllib.parse import urlparse

import anyio
import anyio.from_thread
from minio import Minio
from minio.commonconfig import CopySource
from minio.datatypes import Part
from minio.error import S3Error

from server.storage.backends.base import CHUNK, BackendMissing, ObjectHead, OnDurable, PartState, TooLarge

PART_SIZE = 8 * 1024 * 1024
MIN_PART_SIZE = 5 * 1024 * 1024  # S3's smallest part, but for the last one
RESUMABLE_PREFIX = "#resumable"  # two segments: never an object's key (bucket/name/version)
LIST_PAGE = 1000  # S3's page of ListObjects and ListMultipartUploads
_VERSION = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


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
    def __init__(self, client: Minio, bucket: str, resumable_part_size: int = 50 * 1024 * 1024) -> None:
        self.client = client
        self.bucket = bucket
        self.resumable_part_size = max(resumable_part_size, MIN_PART_SIZE)

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

    async def check_key(self, key: str) -> None:
        return None  # keys are flat strings: `a/<v>` and `a/<v>/b` live side by side

    # -- what a crash leaves behind ---------------------------------------------------

    async def stored_before(self, moment: datetime) -> AsyncIterator[list[str]]:
        listing = iter(self.client.list_objects(self.bucket, recursive=True))  # paged lazily
        while page := await anyio.to_thread.run_sync(lambda: list(itertools.islice(listing, LIST_PAGE))):
            batch = [o.object_name for o in page
                     if o.object_name and _is_version_key(o.object_name)
                     and o.last_modified is not None and o.last_modified < moment]
            if batch:
                yield batch

    async def unfinished_before(self, moment: datetime) -> AsyncIterator[list[tuple[str, str]]]:
        key_marker: str | None = None
        upload_marker: str | None = None
        while True:
            result = await anyio.to_thread.run_sync(functools.partial(
                self.client._list_multipart_uploads, self.bucket, key_marker=key_marker,
                upload_id_marker=upload_marker, max_uploads=LIST_PAGE))
            batch = [(u.object_name, u.upload_id) for u in result.uploads
                     if u.upload_id and u.initiated_time is not None and u.initiated_time < moment]
            if batch:
                yield batch
            if not result.is_truncated or not result.uploads:
                return
            # minio does not read NextUploadIdMarker back: the page's last upload is the marker.
            key_marker, upload_marker = result.uploads[-1].object_name, result.uploads[-1].upload_id

    async def abort_unfinished(self, key: str, upload_id: str) -> None:
        try:
            await anyio.to_thread.run_sync(lambda: self.client._abort_multipart_upload(self.bucket, key, upload_id))
        except S3Error as exc:
            if exc.code != "NoSuchUpload":
                raise


    # -- resumable uploads --------------------------------------------------------------

    def _pending_key(self, scratch: str) -> str:
        return f"{RESUMABLE_PREFIX}/{scratch}.part"

    async def resumable_open(self, scratch: str, key: str, content_type: str, cache_control: str) -> PartState:
        headers: dict[str, str | list[str] | tuple[str]] = {
            "Content-Type": content_type or "application/octet-stream", "Cache-Control": cache_control}
        upload_id = await anyio.to_thread.run_sync(
            lambda: self.client._create_multipart_upload(self.bucket, key, headers))
        return {"uploadId": upload_id, "parts": [], "pending": 0, "contentType": content_type}

    async def resumable_append(self, scratch: str, key: str, state: PartState, offset: int,
                               chunks: AsyncIterator[bytes], final: int, on_durable: OnDurable) -> tuple[PartState, int]:
        if not state.get("uploadId"):
            raise BackendMissing(scratch)  # reserved, but its multipart upload was never recorded
        parts: list[dict[str, Any]] = list(state.get("parts") or [])
        pending = int(state.get("pending") or 0)
        if sum(int(p["size"]) for p in parts) + pending != offset:
            raise BackendMissing(scratch)  # the row and the parts disagree: nothing safe to append to
        stored = offset - pending  # bytes in parts; the spool holds the rest
        spool = await anyio.to_thread.run_sync(tempfile.TemporaryFile)
        spooled = 0

        async def send_part() -> None:
            nonlocal stored, spooled
            number = len(parts) + 1
            etag = await anyio.to_thread.run_sync(self._put_part, key, str(state["uploadId"]), number, spool, spooled)
            parts.append({"number": number, "etag": etag, "size": spooled})
            stored, spooled = stored + spooled, 0
            await anyio.to_thread.run_sync(_reset, spool)
            await on_durable({**state, "parts": parts, "pending": 0}, stored)

        try:
            if pending:  # the previous request's short tail goes first
                async for block in self.stream(self._pending_key(scratch)):
                    await anyio.to_thread.run_sync(spool.write, block)
                spooled = pending
            fresh = False
            buffer = bytearray()
            try:
                async for chunk in chunks:
                    fresh = True
                    buffer += chunk
                    if len(buffer) >= CHUNK or spooled + len(buffer) >= self.resumable_part_size:
                        block, buffer = bytes(buffer), bytearray()
                        await anyio.to_thread.run_sync(spool.write, block)
                        spooled += len(block)
                        if spooled >= self.resumable_part_size:
                            await send_part()
            finally:
                # Whatever ended the stream (its end, a client gone), what arrived is kept.
                with anyio.CancelScope(shield=True):
                    if buffer:
                        await anyio.to_thread.run_sync(spool.write, bytes(buffer))
                        spooled += len(buffer)
                    if spooled and (spooled >= MIN_PART_SIZE or stored + spooled == final):
                        await send_part()
                    elif spooled and fresh:
                        await anyio.to_thread.run_sync(self._put_pending, scratch, spool, spooled)
                    new_state = {**state, "parts": parts, "pending": spooled}
                    await on_durable(new_state, stored + spooled)
                    if pending and not spooled:
                        await self._remove(self._pending_key(scratch))
        finally:
            spool.close()
        return new_state, stored + spooled

    def _put_part(self, key: str, upload_id: str, number: int, spool: IO[bytes], size: int) -> str:
        """UploadPart from the spool file, streamed: a presigned PUT takes any body."""
        url = self.client.get_presigned_url("PUT", self.bucket, key, expires=timedelta(hours=1),
                                            extra_query_params={"partNumber": str(number), "uploadId": upload_id})
        spool.seek(0)
        response = self.client._http.urlopen("PUT", url, body=spool, headers={"Content-Length": str(size)},
                                             preload_content=True, retries=False)
        if response.status != 200:
            raise RuntimeError(f"S3 UploadPart answered {response.status}: {response.data[:200]!r}")
        return str(response.headers.get("ETag", "")).strip('"')

    def _put_pending(self, scratch: str, spool: IO[bytes], size: int) -> None:
        spool.seek(0)
        self.client.put_object(self.bucket, self._pending_key(scratch), spool, length=size)  # type: ignore[arg-type]

    async def _remove(self, key: str) -> None:
        try:
            await self.delete(key)
        except S3Error:
            pass  # best effort: an expired upload's sweep removes it again

    async def resumable_complete(self, scratch: str, key: str, state: PartState) -> ObjectHead:
        if not state.get("uploadId"):
            raise BackendMissing(scratch)
        parts = [Part(int(p["number"]), str(p["etag"])) for p in state.get("parts") or []]
        upload_id = str(state["uploadId"])

        def complete() -> None:
            if not parts:  # an empty upload: S3 completes no multipart upload without parts
                self.client._abort_multipart_upload(self.bucket, key, upload_id)
                self.client.put_object(self.bucket, key, _Empty(), length=0,  # type: ignore[arg-type]
                                       content_type=str(state.get("contentType") or "application/octet-stream"))
                return
            self.client._complete_multipart_upload(self.bucket, key, upload_id, parts)

        try:
            await anyio.to_thread.run_sync(complete)
        except S3Error as exc:
            if exc.code != "NoSuchUpload":
                raise
            # Completed by an earlier attempt whose row could not be written: the object is there.
        await self._remove(self._pending_key(scratch))
        return await self.head(key)

    async def resumable_abort(self, scratch: str, key: str, state: PartState) -> None:
        upload_id = state.get("uploadId")
        if upload_id:
            try:
                await anyio.to_thread.run_sync(
                    lambda: self.client._abort_multipart_upload(self.bucket, key, str(upload_id)))
            except S3Error as exc:
                if exc.code != "NoSuchUpload":
                    raise
        await self._remove(self._pending_key(scratch))


class _Empty:
    def read(self, n: int = -1) -> bytes:
        return b""


def _reset(spool: IO[bytes]) -> None:
    spool.seek(0)
    spool.truncate()


def _is_version_key(key: str) -> bool:
    """`<bucket>/<name>/<uuid>`: a version this server stored (not `#resumable/...`)."""
    parts = key.split("/")
    return len(parts) >= 3 and parts[0] != RESUMABLE_PREFIX and bool(_VERSION.fullmatch(parts[-1]))


def _missing(exc: S3Error, key: str) -> Exception:
    if exc.code in ("NoSuchKey", "NoSuchObject", "ResourceNotFound"):
        return BackendMissing(key)
    return exc
