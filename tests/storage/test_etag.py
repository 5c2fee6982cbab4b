"""STORAGE_FILE_ETAG_ALGORITHM: the file backend's ETag is the MD5 of the bytes (md5, the
default) or `"<mtime in ms, hex>-<size, hex>"` of the stored file (mtime, nothing hashed),
for uploads, heads, copies and resumable uploads; then a whole server run with mtime."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from server.storage.backends import FileBackend, ObjectHead
from tests import harness
from tests.storage import tus_client as tus
from tests.storage.support import create_bucket, service_headers

MTIME_ETAG = re.compile(r'"([0-9a-f]+)-([0-9a-f]+)"')


async def chunks(data: bytes, size: int = 100_000) -> AsyncIterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i:i + size]


async def nothing(state: dict[str, Any], offset: int) -> None:
    return None


def mtime_parts(head: ObjectHead) -> tuple[int, int]:
    """(mtime in ms, size) that an mtime ETag names."""
    found = MTIME_ETAG.fullmatch(head.etag)
    assert found, head.etag
    return int(found[1], 16), int(found[2], 16)


def of_file(path: Path) -> str:
    """The mtime ETag the file on disk has now."""
    stat = path.stat()
    return f'"{stat.st_mtime_ns // 1_000_000:x}-{stat.st_size:x}"'


async def resumable(backend: FileBackend, key: str, data: bytes) -> ObjectHead:
    scratch = uuid.uuid4().hex
    state = await backend.resumable_open(scratch, key, "application/octet-stream", "no-cache")
    half = len(data) // 2
    state, offset = await backend.resumable_append(scratch, key, state, 0, chunks(data[:half]), len(data), nothing)
    state, offset = await backend.resumable_append(scratch, key, state, offset, chunks(data[offset:]), len(data), nothing)
    assert offset == len(data)
    return await backend.resumable_complete(scratch, key, state)


def test_md5_etag_is_the_md5_of_the_bytes(tmp_path: Path) -> None:
    backend = FileBackend(tmp_path / "storage")  # md5 is the default
    data = hashlib.shake_256(b"md5").digest(3 * 1024 * 1024 + 17)
    md5 = f'"{hashlib.md5(data).hexdigest()}"'

    async def scenario() -> None:
        await backend.start()
        put = await backend.put("b/a/v1", chunks(data), "application/octet-stream", len(data))
        assert (put.size, put.etag) == (len(data), md5)
        assert (await backend.head("b/a/v1")).etag == md5
        assert (await backend.copy("b/a/v1", "b/c/v1")).etag == md5
        assert (await resumable(backend, "b/r/v1", data)).etag == md5

    anyio.run(scenario)


def test_mtime_etag_is_the_files_mtime_and_size(tmp_path: Path) -> None:
    backend = FileBackend(tmp_path / "storage", "mtime")
    assert backend.etag.digest() is None  # nothing hashed on upload
    data = hashlib.shake_256(b"mtime").digest(3 * 1024 * 1024 + 17)  # several blocks, one short

    async def scenario() -> None:
        await backend.start()
        put = await backend.put("b/a/v1", chunks(data), "application/octet-stream", len(data))
        assert put.size == len(data)
        assert mtime_parts(put)[1] == len(data)
        assert put.etag == of_file(backend.path("b/a/v1"))  # the committed file's stat
        assert mtime_parts(put)[0] == int(put.last_modified.timestamp() * 1000)
        assert b"".join([bytes(c) async for c in backend.stream("b/a/v1")]) == data  # written whole, unhashed

        head = await backend.head("b/a/v1")
        assert head == await backend.head("b/a/v1") == put  # unchanged: the same ETag every time

        copied = await backend.copy("b/a/v1", "b/c/v1")
        assert mtime_parts(copied)[1] == len(data)
        assert copied.etag == of_file(backend.path("b/c/v1"))

        done = await resumable(backend, "b/r/v1", data[:1_000_001])
        assert mtime_parts(done)[1] == 1_000_001
        assert done.etag == of_file(backend.path("b/r/v1"))
        assert await backend.head("b/r/v1") == done

        await anyio.sleep(0.01)  # past the millisecond the ETag names
        other = await backend.put("b/a/v1", chunks(data[:-1] + b"!"), "application/octet-stream", len(data))
        assert other.etag != put.etag and mtime_parts(other)[1] == len(data)  # same size, other bytes
        assert (await backend.head("b/a/v1")).etag == other.etag

    anyio.run(scenario)


def test_an_unknown_algorithm_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="sha1"):
        FileBackend(tmp_path / "storage", "sha1")


def test_whole_server_with_mtime_etags(database_url: str) -> None:
    """Upload, head, upsert, copy and a resumable upload through the API of a server run
    with STORAGE_FILE_ETAG_ALGORITHM=mtime: the ETag headers and metadata are mtime ETags."""
    server = harness.start_server(database_url, args=["--no-migrate"],
                                  extra_env={"STORAGE_FILE_ETAG_ALGORITHM": "mtime"})
    auth = service_headers(server)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            create_bucket(client, server, "mtime")
            url = "/storage/v1/object/mtime/a.bin"

            def upload(data: bytes, upsert: bool = False) -> None:
                response = client.post(url, content=data, headers={
                    **auth, "content-type": "application/octet-stream", "x-upsert": "true" if upsert else "false"})
                assert response.status_code == 200, response.text

            def etag(path: str = url, size: int | None = None) -> str:
                got = client.get(path, headers=auth)
                assert got.status_code == 200, got.text
                found = MTIME_ETAG.fullmatch(got.headers["etag"])
                assert found, got.headers["etag"]
                assert int(found[2], 16) == len(got.content) == (size if size is not None else len(got.content))
                return got.headers["etag"]

            upload(b"first bytes")
            first = etag(size=11)
            assert etag() == first
            head = client.head(url, headers=auth)
            assert (head.status_code, head.headers["etag"]) == (200, first)
            info = client.get("/storage/v1/object/info/mtime/a.bin", headers=auth)
            assert (info.status_code, info.json()["etag"], info.json()["size"]) == (200, first, 11)
            assert client.get(url, headers={**auth, "If-None-Match": first}).status_code == 304

            upload(b"other bytes, longer", upsert=True)
            second = etag(size=19)
            assert second != first
            assert client.get(url, headers={**auth, "If-None-Match": first}).status_code == 200

            copied = client.post("/storage/v1/object/copy", headers=auth,
                                 json={"bucketId": "mtime", "sourceKey": "a.bin", "destinationKey": "b.bin"})
            assert copied.status_code == 200, copied.text
            etag("/storage/v1/object/mtime/b.bin", size=19)

            data = b"".join(tus.pattern(0, 3 * 1024 * 1024 + 5))
            created = tus.create(client, auth, len(data), {"bucketName": "mtime", "objectName": "t.bin"})
            assert created.status_code == 201, created.text
            sent = tus.patch(client, auth, created.headers["location"], 0, data)
            assert sent.status_code == 204, sent.text
            etag("/storage/v1/object/mtime/t.bin", size=len(data))
    finally:
        server.stop()
