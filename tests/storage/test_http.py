"""/storage/v1 over plain HTTP: uploads, downloads with Range / ETag / 304, errors in the
storage format, bucket limits, path checks, and RLS deciding every access."""

from __future__ import annotations

import hashlib
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest

from tests.harness import LiveServer
from tests.storage.support import create_bucket, headers, own_folder_policies, service_headers, user_token


@pytest.fixture(scope="module")
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=30) as c:
        yield c


@pytest.fixture(scope="module")
def bucket(client: httpx.Client, live_server: LiveServer) -> str:
    name = f"files-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, name, public=False)
    return name


def put(client: httpx.Client, server: LiveServer, bucket: str, name: str, data: bytes, **extra: str) -> httpx.Response:
    h = {**service_headers(server), "content-type": "application/pdf", "cache-control": "max-age=3600", **extra}
    return client.post(f"/storage/v1/object/{bucket}/{name}", content=data, headers=h)


def test_upload_then_download_with_media_headers(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    data = bytes(range(256)) * 1000
    response = put(client, live_server, bucket, "docs/a.pdf", data)
    assert response.status_code == 200, response.text
    assert response.json()["Key"] == f"{bucket}/docs/a.pdf"
    got = client.get(f"/storage/v1/object/{bucket}/docs/a.pdf", headers=service_headers(live_server))
    assert got.status_code == 200
    assert got.content == data
    assert got.headers["content-type"] == "application/pdf"
    assert got.headers["content-length"] == str(len(data))
    assert got.headers["cache-control"] == "max-age=3600"
    assert got.headers["etag"] == f'"{hashlib.md5(data).hexdigest()}"'
    assert got.headers["accept-ranges"] == "bytes"
    assert "last-modified" in got.headers


def test_range_requests(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    data = b"0123456789" * 100
    put(client, live_server, bucket, "range.bin", data)
    url = f"/storage/v1/object/authenticated/{bucket}/range.bin"
    h = service_headers(live_server)
    part = client.get(url, headers={**h, "Range": "bytes=10-19"})
    assert part.status_code == 206
    assert part.content == data[10:20]
    assert part.headers["content-range"] == f"bytes 10-19/{len(data)}"
    assert part.headers["content-length"] == "10"
    tail = client.get(url, headers={**h, "Range": "bytes=-5"})
    assert (tail.status_code, tail.content) == (206, data[-5:])
    open_end = client.get(url, headers={**h, "Range": "bytes=990-"})
    assert (open_end.status_code, open_end.content) == (206, data[990:])
    beyond = client.get(url, headers={**h, "Range": "bytes=5000-"})
    # storage-api passes S3's InvalidRange on as a storage error (HTTP 400, statusCode 416)
    assert beyond.status_code == 400
    assert beyond.json()["statusCode"] == "416" and beyond.json()["message"] == "InvalidRange"


def test_etag_and_if_none_match(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    put(client, live_server, bucket, "etag.bin", b"hello etag")
    url = f"/storage/v1/object/{bucket}/etag.bin"
    first = client.get(url, headers=service_headers(live_server))
    etag = first.headers["etag"]
    again = client.get(url, headers={**service_headers(live_server), "If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    changed = client.get(url, headers={**service_headers(live_server), "If-None-Match": '"other"'})
    assert changed.status_code == 200
    head = client.head(url, headers=service_headers(live_server))
    assert head.status_code == 200
    assert head.headers["content-length"] == "10"
    assert head.headers["etag"] == etag


def test_download_parameter_makes_an_attachment(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    put(client, live_server, bucket, "attach.pdf", b"%PDF-1.4")
    url = f"/storage/v1/object/{bucket}/attach.pdf"
    plain = client.get(url, params={"download": ""}, headers=service_headers(live_server))
    assert plain.headers["content-disposition"] == "attachment;"
    named = client.get(url, params={"download": "cours 1.pdf"}, headers=service_headers(live_server))
    # storage-api: a quoted ASCII fallback and the RFC 8187 name, no trailing ';'
    assert named.headers["content-disposition"] == "attachment; filename=\"cours 1.pdf\"; filename*=UTF-8''cours%201.pdf"


def test_missing_object_is_a_storage_error(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    response = client.get(f"/storage/v1/object/{bucket}/nope.txt", headers=service_headers(live_server))
    assert response.status_code == 400
    assert response.json() == {"statusCode": "404", "code": "NoSuchKey", "error": "not_found", "message": "Object not found"}


def test_duplicate_upload_without_upsert(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    assert put(client, live_server, bucket, "dup.txt", b"one").status_code == 200
    second = put(client, live_server, bucket, "dup.txt", b"two")
    assert second.status_code == 400
    assert second.json()["statusCode"] == "409"
    upsert = put(client, live_server, bucket, "dup.txt", b"three", **{"x-upsert": "true"})
    assert upsert.status_code == 200
    got = client.get(f"/storage/v1/object/{bucket}/dup.txt", headers=service_headers(live_server))
    assert got.content == b"three"


@pytest.mark.parametrize("name", [
    "../escape.txt", "%2E%2E/escape.txt", "a/%2e%2e/%2e%2e/b.txt", "a//b.txt", "a/%00b", "%2Fabs.txt", "a%5C..%5Cb"])
def test_path_traversal_is_refused(client: httpx.Client, live_server: LiveServer, bucket: str, name: str) -> None:
    # Sent raw, so no client normalises the dots away before the server sees them.
    request = client.build_request("POST", f"/storage/v1/object/{bucket}/x", content=b"evil",
                                   headers={**service_headers(live_server), "content-type": "text/plain"})
    request.url = request.url.copy_with(raw_path=f"/storage/v1/object/{bucket}/{name}".encode())
    response = client.send(request)
    # Either the name is refused (InvalidKey) or the normalised URL routes nowhere.
    assert response.status_code in (400, 404, 405)
    if response.status_code == 400:
        assert response.json()["code"] in ("InvalidKey", "NoSuchBucket")
    data_dir = live_server.settings.data_dir
    assert not [p for p in data_dir.parent.rglob("*") if p.name.startswith(("escape", "b.txt"))]


def test_bucket_limits(client: httpx.Client, live_server: LiveServer) -> None:
    name = f"limited-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, name, file_size_limit=100, allowed_mime_types=["image/*", "application/pdf"])
    big = put(client, live_server, name, "big.pdf", b"x" * 101)
    assert big.status_code == 400
    assert big.json()["code"] == "EntityTooLarge" and big.json()["statusCode"] == "413"
    wrong = client.post(f"/storage/v1/object/{name}/a.txt", content=b"hi",
                        headers={**service_headers(live_server), "content-type": "text/plain"})
    assert wrong.json()["code"] == "InvalidMimeType" and wrong.json()["statusCode"] == "415"
    image = client.post(f"/storage/v1/object/{name}/a.png", content=b"png",
                        headers={**service_headers(live_server), "content-type": "image/png"})
    assert image.status_code == 200
    listed = client.post(f"/storage/v1/object/list/{name}", json={"prefix": ""}, headers=service_headers(live_server))
    assert [o["name"] for o in listed.json()] == ["a.png"]


def test_chunked_upload_past_the_limit_leaves_nothing(client: httpx.Client, live_server: LiveServer) -> None:
    name = f"chunked-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, name, file_size_limit=1000)

    def body() -> Iterator[bytes]:
        for _ in range(10):
            yield b"y" * 500

    response = client.post(f"/storage/v1/object/{name}/big.bin", content=body(),
                           headers={**service_headers(live_server), "content-type": "application/octet-stream"})
    assert response.json()["code"] == "EntityTooLarge"
    folder = live_server.settings.data_dir / "storage" / name
    assert not folder.exists() or not [p for p in folder.rglob("*") if p.is_file()]
    info = client.get(f"/storage/v1/object/info/{name}/big.bin", headers=service_headers(live_server))
    assert info.json()["code"] == "NoSuchKey"


def test_multi_megabyte_upload_comes_back_exact(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    """Many blocks, in chunks of uneven sizes: the bytes, size and MD5 ETag come back exact."""
    data = hashlib.shake_256(b"multi-megabyte").digest(9 * 1024 * 1024 + 4321)
    sizes = [1, 10, 70_000, 1_048_576, 333_333]

    def body() -> Iterator[bytes]:
        position, turn = 0, 0
        while position < len(data):
            size = sizes[turn % len(sizes)]
            yield data[position:position + size]
            position, turn = position + size, turn + 1

    response = client.post(f"/storage/v1/object/{bucket}/big/exact.bin", content=body(),
                           headers={**service_headers(live_server), "content-type": "application/octet-stream",
                                    "content-length": str(len(data))})
    assert response.status_code == 200, response.text
    got = client.get(f"/storage/v1/object/{bucket}/big/exact.bin", headers=service_headers(live_server))
    assert got.content == data
    assert got.headers["content-length"] == str(len(data))
    assert got.headers["etag"] == f'"{hashlib.md5(data).hexdigest()}"'
    info = client.get(f"/storage/v1/object/info/{bucket}/big/exact.bin", headers=service_headers(live_server))
    assert info.json()["size"] == len(data)


def test_client_vanishing_mid_body_leaves_nothing(client: httpx.Client, live_server: LiveServer) -> None:
    """The connection closed after 3 of 8 announced MB: no object, no partial file."""
    name = f"vanish-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, name)
    url = urlparse(live_server.url)
    head = (f"POST /storage/v1/object/{name}/gone.bin HTTP/1.1\r\nHost: {url.netloc}\r\n"
            f"Authorization: Bearer {live_server.service_key}\r\napikey: {live_server.service_key}\r\n"
            f"Content-Type: application/octet-stream\r\nContent-Length: {8 * 1024 * 1024}\r\n\r\n")
    folder = live_server.settings.data_dir / "storage" / name

    def files() -> list[Path]:
        return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []

    def wait_for(done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 30  # a bound on the wait, not a timing assertion
        while not done() and time.monotonic() < deadline:
            time.sleep(0.05)

    with socket.create_connection((url.hostname, url.port)) as raw:
        raw.sendall(head.encode())
        for _ in range(3):
            raw.sendall(b"v" * 1024 * 1024)
        wait_for(lambda: any(p.stat().st_size > 0 for p in files() if p.exists()))
        assert [p.name.endswith(".part") for p in files()] == [True]  # mid-body: the server waits for more
    wait_for(lambda: not files())
    assert not files()
    info = client.get(f"/storage/v1/object/info/{name}/gone.bin", headers=service_headers(live_server))
    assert info.json()["code"] == "NoSuchKey"


def test_rls_decides_who_touches_what(client: httpx.Client, live_server: LiveServer) -> None:
    name = f"private-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, name)
    own_folder_policies(live_server, name)
    alice, alice_token = user_token(live_server)
    _, bob_token = user_token(live_server)
    mine = client.post(f"/storage/v1/object/{name}/{alice}/notes.txt", content=b"secret",
                       headers={**headers(live_server, alice_token), "content-type": "text/plain"})
    assert mine.status_code == 200, mine.text
    denied = client.post(f"/storage/v1/object/{name}/{alice}/bob.txt", content=b"intrusion",
                         headers={**headers(live_server, bob_token), "content-type": "text/plain"})
    assert denied.status_code == 400
    assert denied.json()["statusCode"] == "403"
    assert client.get(f"/storage/v1/object/{name}/{alice}/notes.txt", headers=headers(live_server, alice_token)).content == b"secret"
    hidden = client.get(f"/storage/v1/object/{name}/{alice}/notes.txt", headers=headers(live_server, bob_token))
    assert hidden.json()["code"] == "NoSuchKey"
    anon = client.get(f"/storage/v1/object/{name}/{alice}/notes.txt", headers=headers(live_server))
    assert anon.json()["code"] == "NoSuchKey"
    public = client.get(f"/storage/v1/object/public/{name}/{alice}/notes.txt")
    assert public.status_code == 400 and public.json()["code"] == "NoSuchBucket"
    listed = client.post(f"/storage/v1/object/list/{name}", json={"prefix": ""}, headers=headers(live_server, bob_token))
    assert listed.json() == []
    not_deleted = client.delete(f"/storage/v1/object/{name}/{alice}/notes.txt", headers=headers(live_server, bob_token))
    assert not_deleted.json()["code"] == "NoSuchKey"


def test_invalid_jwt(client: httpx.Client, live_server: LiveServer, bucket: str) -> None:
    response = client.get(f"/storage/v1/object/{bucket}/a", headers={"Authorization": "Bearer not.a.jwt"})
    assert response.status_code == 400
    # storage-api's jwt hook: a token that does not verify is AccessDenied (403 in the body)
    assert (response.json()["code"], response.json()["statusCode"], response.json()["error"]) == (
        "AccessDenied", "403", "Unauthorized")


def test_unknown_routes_and_methods_answer_like_fastify(client: httpx.Client, live_server: LiveServer) -> None:
    h = service_headers(live_server)
    for method, path, url in (("GET", "/storage/v1/nope?x=1", "/nope?x=1"),
                              ("PATCH", "/storage/v1/bucket", "/bucket"),
                              ("GET", "/storage/v1/render/image/other/b/a.png", "/render/image/other/b/a.png"),
                              ("DELETE", "/storage/v1/status", "/status")):
        response = client.request(method, path, headers=h)
        assert response.status_code == 404, (method, path)
        assert response.headers["content-type"].startswith("application/json")
        assert response.json() == {"message": f"Route {method}:{url} not found", "error": "Not Found", "statusCode": 404}
