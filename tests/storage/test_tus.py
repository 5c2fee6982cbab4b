"""Resumable uploads (TUS) at /storage/v1/upload/resumable, protocol level: creation,
HEAD, PATCH at offsets, termination, bad headers, limits, RLS at creation, expiry, an
interrupted PATCH resumed, several processes serving one upload, on both backends."""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import psycopg
import pytest

from server.storage.backends import Backend, BackendMissing, FileBackend
from server.storage.backends.s3 import S3Backend, make_client
from tests import harness
from tests.harness import LiveServer
from tests.storage import tus_client as tus
from tests.storage.support import create_bucket, headers, own_folder_policies, service_headers, user_token

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def s3_server(database_url: str, s3_endpoint: str) -> Iterator[LiveServer]:
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env={
        "STORAGE_BACKEND": "s3", "STORAGE_S3_ENDPOINT": s3_endpoint, "STORAGE_S3_BUCKET": "tus-tests",
        "STORAGE_S3_ACCESS_KEY": "testing", "STORAGE_S3_SECRET_KEY": "testing", "TUS_PART_SIZE": "5"})
    yield server
    server.stop()


@pytest.fixture(scope="module", params=["file", "s3"])
def server(request: pytest.FixtureRequest, live_server: LiveServer) -> LiveServer:
    return live_server if request.param == "file" else request.getfixturevalue("s3_server")


@pytest.fixture(scope="module")
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def bucket(client: httpx.Client, live_server: LiveServer) -> str:
    name = f"tus-{uuid.uuid4().hex[:6]}"
    create_bucket(httpx.Client(base_url=live_server.url), live_server, name)
    return name


def url(server: LiveServer, path: str = tus.ENDPOINT) -> str:
    return server.url + path


def meta(bucket: str, name: str, **extra: str) -> dict[str, str | None]:
    return {"bucketName": bucket, "objectName": name, **extra}


def sql_one(server: LiveServer, query: str, *params: object) -> tuple[Any, ...] | None:
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        return conn.execute(query, params).fetchone()


def upload_row(server: LiveServer, location: str) -> tuple[Any, ...] | None:
    return sql_one(server, "select upload_offset, upload_length, scratch from storage.resumable_uploads where id = %s",
                   tus.upload_id(location))


def part_file(server: LiveServer, location: str) -> Path:
    """Where the file backend keeps the bytes of an upload in progress."""
    scratch = (upload_row(server, location) or ("", "", ""))[2]
    return server.settings.data_dir / "storage" / "#resumable" / f"{scratch}.upload"


def wait_part_size(server: LiveServer, location: str, size: int, timeout: float = 20) -> int:
    """Wait until a PATCH in progress has written at least `size` bytes of the upload, and
    say how many (the server writes its part file in blocks of about a MiB as the body
    arrives, and records the offset only at the end)."""
    part = part_file(server, location)
    deadline = time.monotonic() + timeout
    while not (part.exists() and part.stat().st_size >= size) and time.monotonic() < deadline:
        time.sleep(0.05)
    written = part.stat().st_size
    assert written >= size
    return written


# -- the whole protocol on both backends -----------------------------------------------

def test_create_head_patch_complete(client: httpx.Client, server: LiveServer, bucket: str) -> None:
    auth = service_headers(server)
    sizes = [1 * MiB, 6 * MiB, 300 * 1024]  # a short first part: S3 keeps it until the next one
    data = b"".join(tus.pattern(0, sum(sizes)))
    name = f"video-{uuid.uuid4().hex[:6]}.mp4"
    created = tus.create(client, auth, len(data), meta(bucket, name, contentType="video/mp4", cacheControl="3600",
                                                          metadata='{"lesson": 3}'), endpoint=url(server))
    assert created.status_code == 201, created.text
    location = created.headers["location"]
    assert location.startswith(url(server) + "/")
    path, version = tus.upload_id(location).rsplit("/", 1)
    assert path == f"{bucket}/{name}"  # base64url of bucket/name/version, as storage-api's UploadId
    assert str(uuid.UUID(version)) == version
    assert created.headers["tus-resumable"] == "1.0.0"
    proxied = tus.create(client, {**auth, "X-Forwarded-Host": "project.example", "X-Forwarded-Proto": "https"},
                         10, meta(bucket, f"p-{name}"), endpoint=url(server))
    assert proxied.headers["location"].startswith("https://project.example/storage/v1/upload/resumable/")
    assert created.headers["upload-expires"].endswith(" GMT")
    assert "upload-offset" not in created.headers

    first = tus.head(client, auth, location)
    assert first.status_code == 200
    assert (first.headers["upload-offset"], first.headers["upload-length"]) == ("0", str(len(data)))
    assert first.headers["cache-control"] == "no-store"
    assert first.headers["upload-metadata"].startswith("bucketName ")

    offset = 0
    for size in sizes:
        sent = tus.patch(client, auth, location, offset, data[offset:offset + size])
        assert sent.status_code == 204, sent.text
        offset += size
        assert sent.headers["upload-offset"] == str(offset)
        assert tus.head(client, auth, location).headers["upload-offset"] == str(offset)
    assert sent.headers["tus-complete"] == "1"
    assert "upload-expires" not in sent.headers

    got = client.get(f"{server.url}/storage/v1/object/{bucket}/{name}", headers=auth)
    assert got.status_code == 200
    assert hashlib.sha256(got.content).digest() == hashlib.sha256(data).digest()
    assert got.headers["content-type"] == "video/mp4"
    assert got.headers["cache-control"] == "max-age=3600"
    info = client.get(f"{server.url}/storage/v1/object/info/{bucket}/{name}", headers=auth).json()
    assert info["size"] == len(data)
    assert info["metadata"] == {"lesson": 3}
    assert info["version"] == version
    # A finished upload is not terminated; a repeated last PATCH is refused by the write
    # check every PATCH runs (the object exists now), as storage-api's canUpload refuses it.
    again = tus.patch(client, auth, location, len(data), b"")
    assert (again.status_code, again.text) == (409, "The resource already exists")
    ended = client.delete(location, headers={**auth, **tus.TUS, "x-upsert": "true"})
    assert (ended.status_code, ended.text) == (400, "Cannot terminate an already completed upload")
    assert client.get(f"{server.url}/storage/v1/object/{bucket}/{name}", headers=auth).content == data


def test_creation_with_upload(client: httpx.Client, server: LiveServer, bucket: str) -> None:
    """tus-js-client's uploadDataDuringCreation: the first bytes ride on the POST."""
    auth = service_headers(server)
    name = f"doc-{uuid.uuid4().hex[:6]}.pdf"
    created = tus.create(client, auth, 10, meta(bucket, name, contentType="application/pdf"), endpoint=url(server),
                         body=b"0123456789")
    assert created.status_code == 201, created.text
    assert created.headers["upload-offset"] == "10"
    assert created.headers["tus-complete"] == "1"
    got = client.get(f"{server.url}/storage/v1/object/{bucket}/{name}", headers=auth)
    assert (got.content, got.headers["content-type"]) == (b"0123456789", "application/pdf")


def test_empty_upload_completes_at_creation(client: httpx.Client, server: LiveServer, bucket: str) -> None:
    auth = service_headers(server)
    name = f"empty-{uuid.uuid4().hex[:6]}"
    created = tus.create(client, auth, 0, meta(bucket, name), endpoint=url(server))
    assert created.status_code == 201, created.text
    got = client.get(f"{server.url}/storage/v1/object/{bucket}/{name}", headers=auth)
    assert (got.status_code, got.content) == (200, b"")


def test_interrupted_patch_keeps_what_arrived(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    """The client dies mid-PATCH: the bytes it sent stay, HEAD says how many, and the
    upload resumes from there. (On the file backend, whose part file shows what the server
    has read; the S3 backend's append on a stream cut short is tested directly below.)"""
    server = live_server
    auth = service_headers(server)
    total = 4 * MiB
    data = b"".join(tus.pattern(0, total))
    name = f"cut-{uuid.uuid4().hex[:6]}.bin"
    location = tus.create(client, auth, total, meta(bucket, name), endpoint=url(server)).headers["location"]

    written: list[int] = []

    def dying_body() -> Iterator[bytes]:
        yield data[:3 * MiB]
        written.append(wait_part_size(server, location, 2 * MiB))  # what the server has surely taken in
        raise ConnectionResetError("client gone")

    with pytest.raises(Exception):  # noqa: B017 - whatever httpx makes of a body that dies
        tus.patch(client, auth, location, 0, dying_body(), **{"Content-Length": str(total)})
    offset = wait_offset(client, auth, location, lambda o: o > 0)
    # Nothing the server had written is lost; nothing unsent is counted. (Bytes still in the
    # socket when the client goes are dropped by the server's HTTP layer: the client resends.)
    assert written[0] <= offset <= 3 * MiB
    done = tus.patch(client, auth, location, offset, data[offset:])
    assert done.status_code == 204, done.text
    got = client.get(f"{server.url}/storage/v1/object/{bucket}/{name}", headers=auth)
    assert got.content == data


def wait_offset(client: httpx.Client, auth: dict[str, str], location: str, ready: Callable[[int], bool],
                timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while True:
        response = tus.head(client, auth, location)
        offset = int(response.headers.get("upload-offset", "-1"))
        if ready(offset) or time.monotonic() > deadline:
            return offset
        time.sleep(0.1)


def test_termination_removes_the_bytes(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    auth = service_headers(live_server)
    name = f"gone-{uuid.uuid4().hex[:6]}"
    location = tus.create(client, auth, 100, meta(bucket, name), endpoint=url(live_server)).headers["location"]
    assert tus.patch(client, auth, location, 0, b"x" * 40).status_code == 204
    part = part_file(live_server, location)
    assert part.stat().st_size == 40
    ended = client.delete(location, headers={**auth, **tus.TUS})
    assert ended.status_code == 204
    assert not part.exists()
    assert upload_row(live_server, location) is None
    missing = tus.head(client, auth, location)
    assert missing.status_code == 404
    gone = tus.patch(client, auth, location, 40, b"y")
    assert (gone.status_code, gone.text) == (404, "The file for this url was not found\n")


# -- protocol errors ---------------------------------------------------------------------

def test_protocol_errors(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    auth = service_headers(live_server)
    endpoint = url(live_server)
    good = tus.encode_metadata(meta(bucket, "e.bin"))

    no_version = client.post(endpoint, headers={**auth, "Upload-Length": "3", "Upload-Metadata": good})
    assert (no_version.status_code, no_version.text) == (412, "Tus-Resumable Required\n")
    bad_length = client.post(endpoint, headers={**auth, **tus.TUS, "Upload-Length": "-3", "Upload-Metadata": good})
    assert (bad_length.status_code, bad_length.text) == (400, "Invalid upload-length\n")
    no_length = client.post(endpoint, headers={**auth, **tus.TUS, "Upload-Metadata": good})
    assert (no_length.status_code, no_length.text) == (400, "Upload-Length or Upload-Defer-Length header required\n")
    bad_meta = client.post(endpoint, headers={**auth, **tus.TUS, "Upload-Length": "3", "Upload-Metadata": "a b c"})
    assert (bad_meta.status_code, bad_meta.text) == (400, "Invalid upload-metadata\n")
    no_meta = client.post(endpoint, headers={**auth, **tus.TUS, "Upload-Length": "3"})
    assert (no_meta.status_code, no_meta.text) == (400, "Metadata header is required")
    no_bucket = tus.create(client, auth, 3, meta("no-such-bucket", "e.bin"), endpoint=endpoint)
    assert (no_bucket.status_code, no_bucket.text) == (404, "Bucket not found")
    bad_name = tus.create(client, auth, 3, meta(bucket, "../e.bin"), endpoint=endpoint)
    assert (bad_name.status_code, bad_name.text) == (400, "Invalid key: ../e.bin")
    deferred = client.post(endpoint, headers={**auth, **tus.TUS, "Upload-Defer-Length": "1", "Upload-Metadata": good})
    assert deferred.status_code == 501
    concat = client.post(endpoint, headers={**auth, **tus.TUS, "Upload-Length": "3", "Upload-Concat": "partial",
                                            "Upload-Metadata": good})
    assert concat.status_code == 501

    location = tus.create(client, auth, 10, meta(bucket, f"e-{uuid.uuid4().hex[:6]}"), endpoint=endpoint).headers["location"]
    wrong_type = client.patch(location, headers={**auth, **tus.TUS, "Upload-Offset": "0",
                                                 "Content-Type": "application/octet-stream"}, content=b"abc")
    assert (wrong_type.status_code, wrong_type.text) == (400, "Invalid content-type\n")
    no_type = client.patch(location, headers={**auth, **tus.TUS, "Upload-Offset": "0"}, content=b"abc")
    assert (no_type.status_code, no_type.text) == (403, "Content-Type header required\n")
    no_offset = client.patch(location, headers={**auth, **tus.TUS, **tus.OFFSET_STREAM}, content=b"abc")
    assert (no_offset.status_code, no_offset.text) == (403, "Upload-Offset header required\n")
    put = client.put(location, headers={**auth, **tus.TUS}, content=b"abc")
    assert (put.status_code, put.text) == (404, "Not found\n")
    conflict = tus.patch(client, auth, location, 5, b"abc")
    assert (conflict.status_code, conflict.text) == (409, "Upload-Offset conflict\n")
    too_long = tus.patch(client, auth, location, 0, b"x" * 11)
    assert (too_long.status_code, too_long.text) == (413, "upload's size exceeded\n")
    assert tus.head(client, auth, location).headers["upload-offset"] == "0"  # refused before any byte
    garbage = tus.head(client, auth, url(live_server, tus.ENDPOINT + "/bm90LWFuLWlk"))
    assert garbage.status_code == 400
    mangled = tus.head(client, auth, location[:-8] + "AAAAAAAA")
    assert mangled.status_code == 400  # a HEAD answer has no body
    assert tus.patch(client, auth, location[:-8] + "AAAAAAAA", 0, b"x").text == "Invalid upload id"
    unknown = tus.head(client, auth, url(live_server, tus.ENDPOINT + "/" + tus.encode_id(f"{bucket}/e.bin/{uuid.uuid4()}")))
    assert unknown.status_code == 404
    no_jwt = client.post(endpoint, headers={**tus.TUS, "Upload-Length": "3", "Upload-Metadata": good,
                                            "Authorization": "Bearer not-a-jwt"})
    assert no_jwt.status_code == 400
    assert no_jwt.json()["statusCode"] in ("400", "403")  # refused in front of the tus server, in storage's format


def test_options_advertises_the_server(client: httpx.Client, live_server: LiveServer) -> None:
    options = client.options(url(live_server), headers={"Origin": "http://example.test"})
    assert options.status_code == 204
    assert options.headers["tus-version"] == "1.0.0"
    assert options.headers["tus-resumable"] == "1.0.0"
    assert options.headers["tus-extension"] == "creation,creation-with-upload,termination,expiration"
    assert options.headers["tus-max-size"] == str(live_server.settings.file_size_limit)
    assert "x-upsert" in options.headers["access-control-allow-headers"].lower()
    assert options.headers["access-control-allow-origin"] == "http://example.test"
    assert "PATCH" in options.headers["access-control-allow-methods"]


# -- limits and permissions, before any byte ---------------------------------------------

def test_bucket_size_limit_and_mime_types(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    auth = service_headers(live_server)
    small = f"small-{uuid.uuid4().hex[:6]}"
    create_bucket(httpx.Client(base_url=live_server.url), live_server, small, file_size_limit=1000,
                  allowed_mime_types=["image/png"])
    over = tus.create(client, auth, 1001, meta(small, "a.png", contentType="image/png"), endpoint=url(live_server))
    assert (over.status_code, over.text) == (413, "Maximum size exceeded\n")
    wrong = tus.create(client, auth, 10, meta(small, "a.txt", contentType="text/plain"), endpoint=url(live_server))
    assert (wrong.status_code, wrong.text) == (415, "mime type text/plain is not supported")
    untyped = tus.create(client, auth, 10, meta(small, "a"), endpoint=url(live_server))
    assert (untyped.status_code, untyped.text) == (415, "mime type application/octet-stream is not supported")
    malformed = tus.create(client, auth, 10, meta(bucket, "a", contentType="text/html\r\nX: y"), endpoint=url(live_server))
    assert malformed.status_code == 415  # refused as a normal upload's type is: it would be sent back as a header
    fits = tus.create(client, auth, 1000, meta(small, "a.png", contentType="image/png"), endpoint=url(live_server))
    assert fits.status_code == 201
    beyond_global = tus.create(client, auth, live_server.settings.file_size_limit + 1,
                               meta(f"tus-{uuid.uuid4().hex[:4]}", "x"), endpoint=url(live_server))
    assert beyond_global.status_code == 404  # no such bucket: the limit is the bucket's
    assert sql_one(live_server, "select count(*) from storage.resumable_uploads where bucket_id = %s", small) == (1,)


def test_rls_decides_at_creation(client: httpx.Client, live_server: LiveServer) -> None:
    private = f"own-{uuid.uuid4().hex[:6]}"
    create_bucket(httpx.Client(base_url=live_server.url), live_server, private)
    own_folder_policies(live_server, private)
    user, token = user_token(live_server)
    _, other_token = user_token(live_server)
    auth = headers(live_server, token)
    refused = tus.create(client, auth, 10, meta(private, "someone-else/a.bin"), endpoint=url(live_server))
    assert (refused.status_code, refused.text) == (403, "new row violates row-level security policy")
    anon = tus.create(client, headers(live_server), 10, meta(private, f"{user}/a.bin"), endpoint=url(live_server))
    assert anon.status_code == 403
    assert sql_one(live_server, "select count(*) from storage.resumable_uploads where bucket_id = %s", private) == (0,)

    location = tus.create(client, auth, 10, meta(private, f"{user}/a.bin"), endpoint=url(live_server)).headers["location"]
    intruder = tus.patch(client, headers(live_server, other_token), location, 0, b"0123456789")
    assert (intruder.status_code, intruder.text) == (403, "new row violates row-level security policy")
    assert tus.patch(client, auth, location, 0, b"0123456789").status_code == 204
    row = sql_one(live_server, "select owner_id from storage.objects where bucket_id = %s and name = %s",
                  private, f"{user}/a.bin")
    assert row == (user,)  # written under the caller's role, owned by the caller


def test_upsert(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    auth = service_headers(live_server)
    name = f"twice-{uuid.uuid4().hex[:6]}"
    first = tus.create(client, auth, 3, meta(bucket, name), endpoint=url(live_server), body=b"one")
    assert first.status_code == 201
    again = tus.create(client, auth, 3, meta(bucket, name), endpoint=url(live_server))
    assert (again.status_code, again.text) == (409, "The resource already exists")
    replaced = tus.create(client, auth, 3, meta(bucket, name), endpoint=url(live_server), body=b"two",
                          **{"x-upsert": "true"})
    assert replaced.status_code == 201, replaced.text
    got = client.get(f"{live_server.url}/storage/v1/object/{bucket}/{name}", headers=auth)
    assert got.content == b"two"


def test_signed_upload_url(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    auth = service_headers(live_server)
    name = f"signed-{uuid.uuid4().hex[:6]}.txt"
    signed = client.post(f"{live_server.url}/storage/v1/object/upload/sign/{bucket}/{name}", headers=auth).json()
    endpoint = url(live_server, tus.ENDPOINT + "/sign")
    missing = tus.create(client, {}, 5, meta(bucket, name), endpoint=endpoint)
    assert (missing.status_code, missing.text) == (400, "Missing x-signature header")
    invalid = tus.create(client, {"x-signature": "nope"}, 5, meta(bucket, name), endpoint=endpoint)
    assert invalid.status_code == 400
    elsewhere = tus.create(client, {"x-signature": signed["token"]}, 5, meta(bucket, "other.txt"), endpoint=endpoint)
    assert elsewhere.status_code == 400
    created = tus.create(client, {"x-signature": signed["token"]}, 5, meta(bucket, name, contentType="text/plain"),
                         endpoint=endpoint)
    assert created.status_code == 201, created.text
    location = created.headers["location"]
    assert "/upload/resumable/sign/" in location
    assert tus.patch(client, {"x-signature": signed["token"]}, location, 0, b"hello").status_code == 204
    got = client.get(f"{live_server.url}/storage/v1/object/{bucket}/{name}", headers=auth)
    assert got.content == b"hello"


# -- expiry --------------------------------------------------------------------------------

def test_expired_upload_answers_gone(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    auth = service_headers(live_server)
    location = tus.create(client, auth, 10, meta(bucket, f"old-{uuid.uuid4().hex[:6]}"),
                          endpoint=url(live_server)).headers["location"]
    # Expired, and held by a lease so that no sweep removes it while we look.
    sql_one(live_server, "update storage.resumable_uploads set expires_at = now() - interval '1 second',"
                         " lock_token = gen_random_uuid(), lock_expires = now() + interval '1 hour'"
                         " where id = %s returning id", tus.upload_id(location))
    gone = tus.head(client, auth, location)
    assert gone.status_code == 410
    sql_one(live_server, "update storage.resumable_uploads set lock_token = null, lock_expires = null"
                         " where id = %s returning id", tus.upload_id(location))
    patched = tus.patch(client, auth, location, 0, b"x")
    assert (patched.status_code, patched.text) == (410, "The file for this url no longer exists\n")


def test_abandoned_uploads_are_swept(database_url: str, client: httpx.Client) -> None:
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env={"TUS_URL_EXPIRY_MS": "1500"})
    try:
        auth = service_headers(server)
        name = f"swept-{uuid.uuid4().hex[:6]}"
        create_bucket(httpx.Client(base_url=server.url), server, name)
        location = tus.create(client, auth, 100, meta(name, "a.bin"), endpoint=url(server)).headers["location"]
        assert tus.patch(client, auth, location, 0, b"z" * 10).status_code == 204
        part = part_file(server, location)
        assert part.exists()
        deadline = time.monotonic() + 20
        while upload_row(server, location) is not None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert upload_row(server, location) is None
        assert not part.exists()
        assert tus.head(client, auth, location).status_code == 404
    finally:
        server.stop()


# -- several processes, one upload ---------------------------------------------------------

@pytest.fixture(scope="module")
def replicas(database_url: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two server processes on one database and one data folder, as behind a balancer."""
    shared = harness.scratch_dir("supalite-shared-")
    first = harness.start_server(database_url, args=["--no-migrate"], data_dir=shared / "data")
    second = harness.start_server(database_url, args=["--no-migrate"], data_dir=shared / "data")
    yield first, second
    first.stop()
    second.stop()


def test_replicas_serve_one_upload(client: httpx.Client, replicas: tuple[LiveServer, LiveServer]) -> None:
    """Created on one process, written through both: the row and the bytes are shared, and
    a PATCH stuck on one process is asked to let go when the client comes back on the other."""
    a, b = replicas
    auth = service_headers(a)
    name = f"shared-{uuid.uuid4().hex[:6]}"
    create_bucket(httpx.Client(base_url=a.url), a, name)
    total = 3 * MiB
    data = b"".join(tus.pattern(0, total))
    location = tus.create(client, auth, total, meta(name, "a.bin"), endpoint=url(a)).headers["location"]
    on_b = location.replace(a.url, b.url)
    assert tus.patch(client, auth, on_b, 0, data[:MiB]).status_code == 204
    assert tus.head(client, auth, location).headers["upload-offset"] == str(MiB)

    # A PATCH on `a` that sends 1 MiB and then hangs (a client on a dead network)...
    stop = threading.Event()

    def stalled_body() -> Iterator[bytes]:
        yield data[MiB:2 * MiB]
        stop.wait(60)

    outcome: list[object] = []

    def stalled() -> None:
        try:
            outcome.append(tus.patch(httpx.Client(timeout=60), auth, location, MiB, stalled_body(),
                                     **{"Content-Length": str(2 * MiB)}).status_code)
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=stalled)
    thread.start()
    try:
        wait_part_size(a, location, 2 * MiB)  # its first MiB is in
        # ...and the client, back through `b`, retries from the offset it knew: `a` is asked
        # to stop (rather than `b` timing out on the lock), keeps the MiB it read, and `b`
        # answers with the conflict that sends the client to HEAD.
        retried = tus.patch(client, auth, on_b, MiB, data[MiB:])
        assert (retried.status_code, retried.text) == (409, "Upload-Offset conflict\n")
        offset = int(tus.head(client, auth, on_b).headers["upload-offset"])
        assert offset == 2 * MiB
        assert tus.patch(client, auth, on_b, offset, data[offset:]).status_code == 204
    finally:
        stop.set()
        thread.join(30)
    got = client.get(f"{a.url}/storage/v1/object/{name}/a.bin", headers=auth)
    assert got.content == data


def test_process_killed_mid_patch(client: httpx.Client, replicas: tuple[LiveServer, LiveServer],
                                  database_url: str) -> None:
    """The process serving a PATCH dies: its lease holds the upload for a while (others
    get storage-api's LockTimeout), then runs out; the upload goes on from the last
    recorded offset on a surviving process."""
    survivor = replicas[1]
    doomed = harness.start_server(database_url, args=["--no-migrate"], data_dir=survivor.settings.data_dir)
    try:
        auth = service_headers(survivor)
        name = f"crash-{uuid.uuid4().hex[:6]}"
        create_bucket(httpx.Client(base_url=survivor.url), survivor, name)
        data = b"".join(tus.pattern(0, 2 * MiB))
        location = tus.create(client, auth, len(data), meta(name, "a.bin"), endpoint=url(survivor)).headers["location"]
        stop = threading.Event()

        def hanging() -> Iterator[bytes]:
            yield data[:MiB]
            stop.wait(30)

        thread = threading.Thread(target=lambda: _quietly(lambda: tus.patch(
            httpx.Client(timeout=30), auth, location.replace(survivor.url, doomed.url), 0, hanging(),
            **{"Content-Length": str(len(data))})))
        thread.start()
        wait_part_size(survivor, location, MiB)  # the doomed process holds the upload, its first MiB in
        doomed.process.kill()  # SIGKILL: no cleanup of any kind
        doomed.process.wait(10)
        stop.set()
        thread.join(30)
        locked = tus.patch(client, auth, location, 0, data)
        assert (locked.status_code, locked.text) == (503, "acquiring lock timeout")
        deadline = time.monotonic() + 30
        while (sent := tus.patch(client, auth, location, 0, data)).status_code == 503 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert sent.status_code == 204, sent.text  # from offset 0: the dead process recorded nothing
        assert client.get(f"{survivor.url}/storage/v1/object/{name}/a.bin", headers=auth).content == data
    finally:
        doomed.stop()


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except Exception:
        pass


# -- 200 MB, cut and resumed -----------------------------------------------------------------

def test_200_mb_in_chunks_cut_and_resumed(client: httpx.Client, database_url: str) -> None:
    """200 MB in Supabase's 6 MB chunks, generated on the fly; the connection dies in the
    middle of a chunk, the client asks where the server is and finishes from there."""
    total, chunk = 200 * MiB, 6 * MiB
    live_server = harness.start_server(database_url, args=["--no-migrate"],
                                       extra_env={"SUPALITE_FILE_SIZE_LIMIT": str(total)})
    try:
        _upload_200_mb(client, live_server, total, chunk)
    finally:
        live_server.stop()


def _upload_200_mb(client: httpx.Client, live_server: LiveServer, total: int, chunk: int) -> None:
    big = f"big-{uuid.uuid4().hex[:6]}"
    create_bucket(httpx.Client(base_url=live_server.url), live_server, big)
    auth = service_headers(live_server)
    location = tus.create(client, auth, total, meta(big, "video.mp4", contentType="video/mp4"),
                          endpoint=url(live_server)).headers["location"]
    cut_at = 100 * MiB + 12345  # inside the 17th chunk
    written: list[int] = []

    def body(start: int, stop: int) -> Iterator[bytes]:
        for piece in tus.pattern(start, stop):
            if start < cut_at <= start + len(piece):
                yield piece[:cut_at - start]
                written.append(wait_part_size(live_server, location, cut_at - 2 * MiB))  # surely taken in
                raise ConnectionResetError("network gone")
            start += len(piece)
            yield piece

    offset, cuts = 0, 0
    while offset < total:
        end = min(offset + chunk, total)
        try:
            sent = tus.patch(client, auth, location, offset, body(offset, end), **{"Content-Length": str(end - offset)})
        except (httpx.HTTPError, ConnectionResetError):
            cuts += 1
            offset = wait_offset(client, auth, location, lambda o: o > offset)  # noqa: B023 - read at once
            assert written[0] <= offset <= cut_at  # what the server had written was kept
            cut_at = -1  # once
            continue
        assert sent.status_code == 204, sent.text
        offset = int(sent.headers["upload-offset"])
    assert cuts == 1

    digest = hashlib.sha256()
    for piece in tus.pattern(0, total):
        digest.update(piece)
    downloaded = hashlib.sha256()
    with client.stream("GET", f"{live_server.url}/storage/v1/object/{big}/video.mp4", headers=auth) as got:
        assert got.status_code == 200
        for block in got.iter_bytes():
            downloaded.update(block)
    assert downloaded.hexdigest() == digest.hexdigest()


# -- the backends' resumable protocol, directly ---------------------------------------------

@pytest.fixture(params=["file", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "file":
        return FileBackend(tmp_path / "storage")
    endpoint = request.getfixturevalue("s3_endpoint")
    return S3Backend(make_client(endpoint, "testing", "testing", "us-east-1"), f"r-{uuid.uuid4().hex[:8]}",
                     resumable_part_size=5 * MiB)


async def _stream(data: bytes, fail_after: int | None = None) -> AsyncIterator[bytes]:
    for i in range(0, len(data), 256 * 1024):
        if fail_after is not None and i >= fail_after:
            raise ConnectionResetError("client gone")
        yield data[i:i + 256 * 1024]


def test_backend_appends_resume_and_complete(store: Backend) -> None:
    """Appends of any size, one cut mid-stream: every byte the stream gave is durable (and
    reported at each durable point), the next append starts there from the state last
    reported, and the completed upload is the object at its key, nothing left in scratch."""
    data = b"".join(tus.pattern(0, 13 * MiB))
    key = f"b/{uuid.uuid4().hex}/v1"
    scratch = uuid.uuid4().hex
    durable: list[tuple[dict[str, Any], int]] = []  # what a row would hold

    async def record(state: dict[str, Any], offset: int) -> None:
        durable.append((state, offset))

    async def scenario() -> None:
        await store.start()
        state = await store.resumable_open(scratch, key, "video/mp4", "max-age=60")
        state, offset = await store.resumable_append(scratch, key, state, 0, _stream(data[:MiB]), len(data), record)
        assert offset == MiB  # short of S3's smallest part: kept aside until the next append
        with pytest.raises(ConnectionResetError):
            await store.resumable_append(scratch, key, state, offset, _stream(data[offset:], fail_after=7 * MiB + 256 * 1024),
                                         len(data), record)
        state, offset = durable[-1]
        assert offset == 8 * MiB + 256 * 1024  # the cut kept all it had read, between two writes
        state, offset = await store.resumable_append(scratch, key, state, offset, _stream(data[offset:]),
                                                     len(data), record)
        assert offset == len(data)
        head = await store.resumable_complete(scratch, key, state)
        assert head.size == len(data)
        streamed = b"".join([bytes(c) async for c in store.stream(key)])
        assert hashlib.sha256(streamed).digest() == hashlib.sha256(data).digest()
        if isinstance(store, S3Backend):
            assert [p["size"] for p in state["parts"]] == [5 * MiB, 5 * MiB, 3 * MiB]
            left = await anyio.to_thread.run_sync(lambda: list(store.client.list_objects(store.bucket, "#resumable/")))
            assert left == []
        else:
            assert isinstance(store, FileBackend)
            assert not store.scratch_path(scratch).exists()

    anyio.run(scenario)


def test_backend_drops_bytes_past_the_recorded_offset(tmp_path: Path) -> None:
    """A process killed after writing but before recording its offset: the next append
    starts at the recorded offset, not at the file's end."""
    store = FileBackend(tmp_path / "storage")
    scratch = uuid.uuid4().hex

    async def nothing(state: dict[str, Any], offset: int) -> None:
        return None

    async def scenario() -> None:
        await store.start()
        state = await store.resumable_open(scratch, "b/x/v1", "text/plain", "no-cache")
        await store.resumable_append(scratch, "b/x/v1", state, 0, _stream(b"abcdef"), 9, nothing)
        # the row still says 3: bytes 3..5 were never acknowledged
        await store.resumable_append(scratch, "b/x/v1", state, 3, _stream(b"XYZ123"), 9, nothing)
        await store.resumable_complete(scratch, "b/x/v1", state)
        assert b"".join([bytes(c) async for c in store.stream("b/x/v1")]) == b"abcXYZ123"

    anyio.run(scenario)


def test_backend_abort_removes_everything(store: Backend) -> None:
    scratch = uuid.uuid4().hex
    key = f"b/{uuid.uuid4().hex}/v1"

    async def nothing(state: dict[str, Any], offset: int) -> None:
        return None

    async def scenario() -> None:
        await store.start()
        state = await store.resumable_open(scratch, key, "text/plain", "no-cache")
        state, _ = await store.resumable_append(scratch, key, state, 0, _stream(b"x" * 1000), 10_000, nothing)
        await store.resumable_abort(scratch, key, state)
        await store.resumable_abort(scratch, key, state)  # twice is harmless
        with pytest.raises(BackendMissing):
            await store.resumable_append(scratch, key, state, 1000, _stream(b"y"), 10_000, nothing)
        if isinstance(store, S3Backend):
            left = await anyio.to_thread.run_sync(lambda: list(store.client.list_objects(store.bucket, "#resumable/")))
            assert left == []

    anyio.run(scenario)
