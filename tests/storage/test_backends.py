"""One backend suite, run against the local file backend and against a real S3 protocol
server (moto in server mode) through the minio client; then a whole server on S3."""

from __future__ import annotations

import hashlib
import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx
import pytest

from server.storage.backends import BackendMissing, FileBackend, TooLarge
from server.storage.backends.s3 import S3Backend, make_client
from tests import harness
from tests.storage.support import create_bucket, service_headers


@pytest.fixture(params=["file", "s3"])
def backend(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "file":
        return FileBackend(tmp_path / "storage")
    endpoint = request.getfixturevalue("s3_endpoint")
    return S3Backend(make_client(endpoint, "testing", "testing", "us-east-1"), f"b-{uuid.uuid4().hex[:8]}")


async def chunks(data: bytes, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i:i + size]


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


def test_put_stream_head_get(backend) -> None:
    data = bytes(range(256)) * 40_000  # ~10 MB: several S3 parts

    async def scenario() -> None:
        await backend.start()
        head = await backend.put("bucket/a/b.bin/v1", chunks(data), "application/octet-stream", len(data))
        assert head.size == len(data)
        assert head.etag.startswith('"') and head.etag.endswith('"')
        streamed = b"".join([c async for c in backend.stream("bucket/a/b.bin/v1")])
        assert hashlib.md5(streamed).digest() == hashlib.md5(data).digest()
        middle = b"".join([c async for c in backend.stream("bucket/a/b.bin/v1", 1000, 1999)])
        assert middle == data[1000:2000]
        assert (await backend.head("bucket/a/b.bin/v1")).size == len(data)
        assert await backend.get("bucket/a/b.bin/v1", len(data)) == data
        with pytest.raises(TooLarge):
            await backend.get("bucket/a/b.bin/v1", 10)

    run(scenario)


def test_copy_and_delete(backend) -> None:
    async def scenario() -> None:
        await backend.start()
        await backend.put("bkt/src/v1", chunks(b"copy me"), "text/plain", 100)
        copied = await backend.copy("bkt/src/v1", "bkt/dst/v2")
        assert copied.size == 7
        await backend.delete("bkt/src/v1")
        assert b"".join([c async for c in backend.stream("bkt/dst/v2")]) == b"copy me"
        with pytest.raises(BackendMissing):
            await backend.head("bkt/src/v1")
        await backend.delete("bkt/never/existed")  # not an error

    run(scenario)


def test_too_large_leaves_nothing(backend) -> None:
    async def scenario() -> None:
        await backend.start()
        with pytest.raises(TooLarge):
            await backend.put("bkt/big/v1", chunks(b"z" * 300_000), "application/octet-stream", 100_000)
        with pytest.raises(BackendMissing):
            await backend.head("bkt/big/v1")

    run(scenario)
    if isinstance(backend, FileBackend):
        assert not [p for p in backend.root.rglob("*") if p.is_file()]


async def uneven_chunks(data: bytes) -> AsyncIterator[bytes]:
    """1-byte chunks (more than a block holds), then sizes across block boundaries."""
    position = 0
    for size in [1] * 3000 + [7, 65_536, 1_000_003, 262_144, 3 * 1024 * 1024 + 1]:
        yield data[position:position + size]
        position += size
    while position < len(data):
        yield data[position:position + 500_000]
        position += 500_000


def test_put_of_many_blocks_in_uneven_chunks_comes_back_exact(backend) -> None:
    data = hashlib.shake_256(b"upload").digest(7 * 1024 * 1024 + 12_345)

    async def scenario() -> None:
        await backend.start()
        head = await backend.put("bkt/many/v1", uneven_chunks(data), "application/octet-stream", len(data))
        assert head.size == len(data)
        if isinstance(backend, FileBackend):  # S3's ETag of a multipart upload is not the MD5
            assert head.etag == f'"{hashlib.md5(data).hexdigest()}"'
            assert (await backend.head("bkt/many/v1")).etag == head.etag
        assert b"".join([c async for c in backend.stream("bkt/many/v1")]) == data
        with pytest.raises(TooLarge):  # past the limit several blocks in: nothing is left
            await backend.put("bkt/many/v2", uneven_chunks(data), "application/octet-stream", len(data) - 1)
        with pytest.raises(BackendMissing):
            await backend.head("bkt/many/v2")

    run(scenario)
    if isinstance(backend, FileBackend):
        assert [p.name for p in backend.root.rglob("*") if p.is_file()] == ["v1"]


class ClientGone(Exception):
    pass


def test_file_put_of_a_stream_failing_or_cancelled_mid_body_leaves_nothing(tmp_path: Path) -> None:
    """A client vanishing (the stream raises) or the request cancelled while blocks are
    still hashed and written in worker threads: the error stands, no file is left."""
    backend = FileBackend(tmp_path / "storage")
    block = b"x" * 300_000

    async def failing() -> AsyncIterator[bytes]:
        for _ in range(20):
            yield block
        raise ClientGone()

    async def stalled(sent: anyio.Event) -> AsyncIterator[bytes]:
        for _ in range(20):
            yield block
        sent.set()
        await anyio.sleep_forever()
        yield block

    async def scenario() -> None:
        await backend.start()
        with pytest.raises(ClientGone):
            await backend.put("bkt/gone/v1", failing(), "application/octet-stream", 100 * len(block))
        sent = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(backend.put, "bkt/cancelled/v1", stalled(sent), "application/octet-stream",
                             100 * len(block))
            await sent.wait()
            group.cancel_scope.cancel()

    run(scenario)
    assert not [p for p in backend.root.rglob("*") if p.is_file()]


def test_file_backend_keys_stay_under_the_root(tmp_path: Path) -> None:
    backend = FileBackend(tmp_path / "root")
    for key in ("../outside", "a/../../outside", "/etc/passwd"):
        with pytest.raises(BackendMissing):
            backend.path(key)


def test_whole_server_on_s3(s3_endpoint: str, database_url: str) -> None:
    data_dir = harness.scratch_dir("supalite-s3-")
    server = harness.start_server(database_url, args=["--no-migrate"], data_dir=data_dir, extra_env={
        "STORAGE_BACKEND": "s3", "STORAGE_S3_ENDPOINT": s3_endpoint, "STORAGE_S3_BUCKET": "supalite-test",
        "STORAGE_S3_ACCESS_KEY": "testing", "STORAGE_S3_SECRET_KEY": "testing"})
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            create_bucket(client, server, "on-s3")
            data = b"s3 bytes " * 1000
            up = client.post("/storage/v1/object/on-s3/dir/file.bin", content=data,
                             headers={**service_headers(server), "content-type": "application/octet-stream"})
            assert up.status_code == 200, up.text
            got = client.get("/storage/v1/object/on-s3/dir/file.bin", headers={**service_headers(server), "Range": "bytes=9-17"})
            assert (got.status_code, got.content) == (206, data[9:18])
            moved = client.post("/storage/v1/object/move", headers=service_headers(server),
                                json={"bucketId": "on-s3", "sourceKey": "dir/file.bin", "destinationKey": "dir/moved.bin"})
            assert moved.status_code == 200, moved.text
            assert client.get("/storage/v1/object/on-s3/dir/moved.bin", headers=service_headers(server)).content == data
        minio = make_client(s3_endpoint, "testing", "testing", "us-east-1")
        keys = [o.object_name for o in minio.list_objects("supalite-test", prefix="on-s3/", recursive=True)]
        assert len(keys) == 1 and keys[0].startswith("on-s3/dir/moved.bin/")
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
