"""/storage/v1 against hostile requests: signed tokens bound to their object and operation,
media types that never run on the API's origin, the caller's policies deciding before any
bucket check, absurd values refused in storage's format, bounded bodies read only after the
caller's JWT, and an upload killed mid-way leaving nothing behind once the server restarts;
resumable uploads told only to who may write them and bounded per caller; object names
that run through another object's stored version refused."""

from __future__ import annotations

import base64
import concurrent.futures
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tests import harness
from tests.storage import tus_client as tus
from tests.storage.support import (
    create_bucket,
    headers,
    own_folder_policies,
    run_sql,
    service_headers,
    user_token,
)

MB = 1024 * 1024


@pytest.fixture(scope="module")
def client(live_server: harness.LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def public_bucket(client: httpx.Client, live_server: harness.LiveServer) -> str:
    """A public bucket anon may read (and sign), but never write."""
    name = f"pub-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, name, public=True)
    run_sql(live_server, f"create policy \"{name} anon read\" on storage.objects for select to anon "
                         f"using (bucket_id = '{name}')")
    return name


def put(client: httpx.Client, server: harness.LiveServer, bucket: str, name: str, data: bytes,
        content_type: str = "application/octet-stream", **extra: str) -> httpx.Response:
    return client.post(f"/storage/v1/object/{bucket}/{name}", content=data,
                       headers={**service_headers(server), "content-type": content_type, **extra})


def assert_storage_error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """A storage-format error: {statusCode, error, message}, never a 500."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert isinstance(body.get("statusCode"), str) and body.get("error") and body.get("message"), body
    if code is not None:
        assert body["code"] == code, body
    return body


def object_exists(client: httpx.Client, server: harness.LiveServer, bucket: str, name: str) -> bool:
    info = client.get(f"/storage/v1/object/info/{bucket}/{name}", headers=service_headers(server))
    return info.status_code == 200


# -- 1. signed tokens ------------------------------------------------------------------

def sign(client: httpx.Client, server: harness.LiveServer, bucket: str, name: str, expires_in: Any,
         token: str | None = None) -> httpx.Response:
    return client.post(f"/storage/v1/object/sign/{bucket}/{name}", json={"expiresIn": expires_in},
                       headers=headers(server, token))


def test_a_download_token_cannot_upload(client: httpx.Client, live_server: harness.LiveServer,
                                        public_bucket: str) -> None:
    assert put(client, live_server, public_bucket, "doc.txt", b"original", "text/plain").status_code == 200
    signed = sign(client, live_server, public_bucket, "doc.txt", 600)  # as anon
    assert signed.status_code == 200, signed.text
    token = signed.json()["signedURL"].split("token=")[1]
    client.delete(f"/storage/v1/object/{public_bucket}/doc.txt", headers=service_headers(live_server))
    replay = client.put(f"/storage/v1/object/upload/sign/{public_bucket}/doc.txt?token={token}",
                        content=b"<script>evil()</script>", headers={"content-type": "text/html"})
    assert_storage_error(replay, 400, "InvalidSignature")
    assert not object_exists(client, live_server, public_bucket, "doc.txt")


def test_an_upload_token_cannot_download_and_tokens_stay_on_their_path(
        client: httpx.Client, live_server: harness.LiveServer, public_bucket: str) -> None:
    put(client, live_server, public_bucket, "kept.txt", b"kept", "text/plain")
    upload = client.post(f"/storage/v1/object/upload/sign/{public_bucket}/new.txt", headers=service_headers(live_server))
    token = upload.json()["token"]
    forged = client.get(f"/storage/v1/object/sign/{public_bucket}/new.txt?token={token}")
    assert_storage_error(forged, 400, "InvalidSignature")
    download = sign(client, live_server, public_bucket, "kept.txt", 60).json()["signedURL"].split("token=")[1]
    elsewhere = client.get(f"/storage/v1/object/sign/{public_bucket}/other.txt?token={download}")
    assert_storage_error(elsewhere, 400, "InvalidSignature")
    # and the legitimate uses still work
    assert client.get(f"/storage/v1/object/sign/{public_bucket}/kept.txt?token={download}").content == b"kept"
    done = client.put(f"/storage/v1/object/upload/sign/{public_bucket}/new.txt?token={token}", content=b"new",
                      headers={"content-type": "text/plain"})
    assert done.status_code == 200, done.text


@pytest.mark.parametrize("expires_in", [1e12, 10**30, "1" * 5000, -1, 0, 1.5, "soon", True, [60], {"s": 1}, None])
def test_absurd_expiries_are_refused(client: httpx.Client, live_server: harness.LiveServer, public_bucket: str,
                                     expires_in: Any) -> None:
    put(client, live_server, public_bucket, "exp.txt", b"x", "text/plain", **{"x-upsert": "true"})
    body = assert_storage_error(sign(client, live_server, public_bucket, "exp.txt", expires_in), 400)
    assert body["statusCode"] == "400"
    many = client.post(f"/storage/v1/object/sign/{public_bucket}", json={"expiresIn": expires_in, "paths": ["exp.txt"]},
                       headers=headers(live_server))
    assert_storage_error(many, 400)


def test_a_long_but_valid_expiry_downloads(client: httpx.Client, live_server: harness.LiveServer,
                                           public_bucket: str) -> None:
    put(client, live_server, public_bucket, "long.txt", b"long", "text/plain", **{"x-upsert": "true"})
    signed = sign(client, live_server, public_bucket, "long.txt", 100 * 365 * 86400)
    got = client.get("/storage/v1" + signed.json()["signedURL"])
    assert got.status_code == 200 and got.content == b"long"


# -- 2. content types ------------------------------------------------------------------

@pytest.mark.parametrize(("sent", "served"), [("TEXT/HTML", "text/plain"), ("text/html; charset=utf-8", "text/plain"),
                                              ("Application/XHTML+XML", "text/plain")])
def test_html_in_any_spelling_is_served_as_text(client: httpx.Client, live_server: harness.LiveServer,
                                                public_bucket: str, sent: str, served: str) -> None:
    name = f"page-{uuid.uuid4().hex[:6]}.html"
    assert put(client, live_server, public_bucket, name, b"<script>alert(1)</script>", sent).status_code == 200
    for url in (f"/storage/v1/object/public/{public_bucket}/{name}", f"/storage/v1/object/{public_bucket}/{name}"):
        got = client.get(url, headers=service_headers(live_server))
        assert got.headers["content-type"].split(";")[0] == served
        assert got.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("sent", ["image/svg+xml", "IMAGE/SVG+XML", "application/xml", "text/javascript",
                                  "application/x-unknown-thing"])
def test_active_types_are_downloads_in_a_sandbox(client: httpx.Client, live_server: harness.LiveServer,
                                                 public_bucket: str, sent: str) -> None:
    name = f"active-{uuid.uuid4().hex[:6]}"
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>'
    assert put(client, live_server, public_bucket, name, svg, sent).status_code == 200
    got = client.get(f"/storage/v1/object/public/{public_bucket}/{name}")
    assert got.status_code == 200 and got.content == svg  # fetch-based downloads still get the bytes
    assert got.headers["content-disposition"].startswith("attachment")
    assert got.headers["content-security-policy"] == "sandbox; default-src 'none'"
    assert got.headers["x-content-type-options"] == "nosniff"


def test_images_and_pdfs_still_display_inline(client: httpx.Client, live_server: harness.LiveServer,
                                              public_bucket: str) -> None:
    for name, mime in (("a.png", "image/png"), ("a.pdf", "application/pdf")):
        put(client, live_server, public_bucket, name, b"bytes", mime, **{"x-upsert": "true"})
        got = client.get(f"/storage/v1/object/public/{public_bucket}/{name}")
        assert got.headers["content-type"] == mime
        assert "content-disposition" not in got.headers and "content-security-policy" not in got.headers
        assert got.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("sent", ["application/pdf;a=b, TEXT/HTML", "application/pdf, text/html", "application/pdf x",
                                  "text/html", "TEXT/HTML"])
def test_a_pdf_only_bucket_takes_only_pdfs(client: httpx.Client, live_server: harness.LiveServer, sent: str) -> None:
    name = f"pdfs-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, name, allowed_mime_types=["application/pdf"])
    refused = put(client, live_server, name, "x.pdf", b"<html>", sent)
    assert_storage_error(refused, 400, "InvalidMimeType")
    assert not object_exists(client, live_server, name, "x.pdf")
    files = {"file": ("x.pdf", b"<html>", sent)}
    form = client.post(f"/storage/v1/object/{name}/y.pdf", files=files, headers=service_headers(live_server))
    assert_storage_error(form, 400, "InvalidMimeType")
    assert put(client, live_server, name, "ok.pdf", b"%PDF", "Application/PDF; q=1").status_code == 200


# -- 3. the caller's policies decide first ---------------------------------------------

def test_anon_learns_nothing_about_buckets_it_cannot_touch(client: httpx.Client, live_server: harness.LiveServer,
                                                           public_bucket: str) -> None:
    name = f"full-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, name, allowed_mime_types=["application/pdf"], file_size_limit=10)
    put(client, live_server, name, "a.pdf", b"%PDF", "application/pdf")
    anon = headers(live_server)
    for bucket in (name, public_bucket, "covers"):
        assert_storage_error(client.delete(f"/storage/v1/bucket/{bucket}", headers=anon), 400, "NoSuchBucket")
        updated = client.put(f"/storage/v1/bucket/{bucket}", json={"public": True}, headers=anon)
        assert_storage_error(updated, 400, "NoSuchBucket")
        client.post(f"/storage/v1/bucket/{bucket}/empty", headers=anon)
    missing = f"missing-{uuid.uuid4().hex[:6]}"
    assert_storage_error(client.delete(f"/storage/v1/bucket/{missing}", headers=anon), 400, "NoSuchBucket")
    # uploads: refused by policy before the bucket's type and size rules or its existence show
    for bucket in (name, missing):
        wrong = client.post(f"/storage/v1/object/{bucket}/b.txt", content=b"x" * 100,
                            headers={**anon, "content-type": "text/plain"})
        assert assert_storage_error(wrong, 400, "AccessDenied")["statusCode"] == "403"
    signed = client.post(f"/storage/v1/object/upload/sign/{missing}/c.txt", headers=anon)
    assert_storage_error(signed, 400, "AccessDenied")
    bucket = client.get(f"/storage/v1/bucket/{name}", headers=service_headers(live_server)).json()
    assert bucket["public"] is False and bucket["file_size_limit"] == 10
    assert object_exists(client, live_server, name, "a.pdf")
    # the service role still gets the real answers
    assert_storage_error(client.delete(f"/storage/v1/bucket/{name}", headers=service_headers(live_server)),
                         400, "InvalidRequest")


# -- 5. absurd values ------------------------------------------------------------------

def test_absurd_ranges_are_not_errors(client: httpx.Client, live_server: harness.LiveServer,
                                      public_bucket: str) -> None:
    put(client, live_server, public_bucket, "range.bin", b"0123456789", **{"x-upsert": "true"})
    url = f"/storage/v1/object/public/{public_bucket}/range.bin"
    huge = "9" * 5000
    # an unsatisfiable range is S3's InvalidRange as storage-api passes it on: 400, statusCode 416
    past = b'{"statusCode":"416","code":"S3Error","error":"The requested range is not satisfiable","message":"InvalidRange"}'
    cases = {f"bytes=0-{huge}": (206, b"0123456789"), f"bytes={huge}-": (400, past), f"bytes=-{huge}": (206, b"0123456789"),
             f"bytes={huge}-{huge}": (400, past), "bytes=5-2": (400, past), "bytes=0-1,3-4": (200, b"0123456789"),
             "bytes=--1": (200, b"0123456789"), f"bytes={'0' * 5000}1-2": (206, b"12")}
    for header, (status, content) in cases.items():
        got = client.get(url, headers={"Range": header})
        assert (got.status_code, got.content) == (status, content), header[:40]


ABSURD: list[Any] = [1e30, -1, 1.5, "x", "9" * 5000, True, [1], {"a": 1}, 2**63]


@pytest.mark.parametrize("field", ["limit", "offset"])
@pytest.mark.parametrize("value", ABSURD)
def test_list_numbers_are_checked(client: httpx.Client, live_server: harness.LiveServer, public_bucket: str,
                                  field: str, value: Any) -> None:
    for route in ("list", "list-v2"):
        if route == "list-v2" and field == "offset":
            continue
        response = client.post(f"/storage/v1/object/{route}/{public_bucket}", json={"prefix": "", field: value},
                               headers=service_headers(live_server))
        assert_storage_error(response, 400)


@pytest.mark.parametrize("body", [
    {"search": "s" * 100_000}, {"prefix": "p" * 100_000}, {"prefix": 5}, {"sortBy": "name"},
    {"sortBy": {"column": "name", "order": "sideways"}}, {"sortBy": {"column": ["x"]}}, {"search": {"a": 1}},
])
def test_list_strings_are_checked(client: httpx.Client, live_server: harness.LiveServer, public_bucket: str,
                                  body: dict[str, Any]) -> None:
    response = client.post(f"/storage/v1/object/list/{public_bucket}", json=body, headers=service_headers(live_server))
    assert_storage_error(response, 400)


@pytest.mark.parametrize("body", [{"cursor": "not base64!"}, {"cursor": "c" * 100_000}, {"limit": 0},
                                  {"with_delimiter": "maybe"}, {"prefix": ["a"]}])
def test_list_v2_inputs_are_checked(client: httpx.Client, live_server: harness.LiveServer, public_bucket: str,
                                    body: dict[str, Any]) -> None:
    response = client.post(f"/storage/v1/object/list-v2/{public_bucket}", json=body,
                           headers=service_headers(live_server))
    assert_storage_error(response, 400)


@pytest.mark.parametrize("body", [
    {"name": "n" * 5000}, {"name": 5}, {"name": "ok-name", "public": "yes"}, {"name": "ok-name", "public": 1},
    {"name": "ok-name", "file_size_limit": 1e30}, {"name": "ok-name", "file_size_limit": "9" * 5000},
    {"name": "ok-name", "file_size_limit": "1" * 5000 + "GB"}, {"name": "ok-name", "file_size_limit": -5},
    {"name": "ok-name", "file_size_limit": [1]}, {"name": "ok-name", "allowed_mime_types": ["a b/c"]},
    {"name": "ok-name", "allowed_mime_types": ["x/y"] * 1001}, {"name": "ok-name", "allowed_mime_types": "image/png"},
    {"name": "ok-name", "id": ["x"]},
])
def test_bucket_bodies_are_checked(client: httpx.Client, live_server: harness.LiveServer,
                                   body: dict[str, Any]) -> None:
    response = client.post("/storage/v1/bucket", json=body, headers=service_headers(live_server))
    assert_storage_error(response, 400)
    assert client.get("/storage/v1/bucket/ok-name", headers=service_headers(live_server)).json()["code"] == "NoSuchBucket"


@pytest.mark.parametrize("query", ["limit=" + "9" * 5000, "offset=" + "9" * 5000, "limit=-1", "offset=x",
                                   "search=" + "s" * 5000])
def test_bucket_list_queries_are_checked(client: httpx.Client, live_server: harness.LiveServer, query: str) -> None:
    response = client.get(f"/storage/v1/bucket?{query}", headers=service_headers(live_server))
    assert_storage_error(response, 400)


def test_bulk_requests_are_bounded(client: httpx.Client, live_server: harness.LiveServer, public_bucket: str) -> None:
    put(client, live_server, public_bucket, "bulk.txt", b"bulk", "text/plain", **{"x-upsert": "true"})
    prefixes = ["bulk.txt"] + [f"n{i}" for i in range(1000)]
    removed = client.request("DELETE", f"/storage/v1/object/{public_bucket}", json={"prefixes": prefixes},
                             headers=service_headers(live_server))
    assert assert_storage_error(removed, 400, "InvalidRequest")["message"].startswith("Bulk object requests are limited")
    assert object_exists(client, live_server, public_bucket, "bulk.txt")
    signed = client.post(f"/storage/v1/object/sign/{public_bucket}", json={"expiresIn": 60, "paths": prefixes},
                         headers=service_headers(live_server))
    assert_storage_error(signed, 400, "InvalidRequest")
    for bad in ([], [1], "bulk.txt", ["p" * 5000], None):
        response = client.request("DELETE", f"/storage/v1/object/{public_bucket}", json={"prefixes": bad},
                                  headers=service_headers(live_server))
        assert_storage_error(response, 400)


def test_every_route_survives_absurd_values(client: httpx.Client, live_server: harness.LiveServer,
                                            public_bucket: str) -> None:
    """A little fuzzing: every JSON route with absurd values in every field answers a
    storage error (or succeeds), never a 500."""
    weird: list[Any] = [None, 1e30, -1, "", "x" * 20_000, [], {}, True, "../../etc/passwd", "\u0000", 2**70]
    routes = [
        ("POST", "/storage/v1/bucket", ["name", "id", "public", "file_size_limit", "allowed_mime_types"]),
        ("PUT", f"/storage/v1/bucket/{public_bucket}", ["public", "file_size_limit", "allowed_mime_types"]),
        ("POST", f"/storage/v1/object/list/{public_bucket}", ["prefix", "limit", "offset", "search", "sortBy"]),
        ("POST", f"/storage/v1/object/list-v2/{public_bucket}", ["prefix", "limit", "cursor", "with_delimiter", "sortBy"]),
        ("POST", "/storage/v1/object/move", ["bucketId", "sourceKey", "destinationKey", "destinationBucket"]),
        ("POST", "/storage/v1/object/copy", ["bucketId", "sourceKey", "destinationKey", "metadata", "copyMetadata"]),
        ("POST", f"/storage/v1/object/sign/{public_bucket}/x.txt", ["expiresIn", "transform"]),
        ("POST", f"/storage/v1/object/sign/{public_bucket}", ["expiresIn", "paths"]),
        ("DELETE", f"/storage/v1/object/{public_bucket}", ["prefixes"]),
    ]
    base = {"name": "fuzz", "bucketId": public_bucket, "sourceKey": "nothing.txt", "destinationKey": "d.txt",
            "expiresIn": 60, "paths": ["a"], "prefixes": ["nothing.txt"]}
    for method, url, fields in routes:
        for field in fields:
            for value in weird:
                response = client.request(method, url, json={**base, field: value},
                                          headers=service_headers(live_server))
                assert response.status_code < 500, (method, url, field, repr(value)[:40], response.text[:200])
                if response.status_code >= 400:
                    assert_storage_error(response, response.status_code)
    for raw in (b"[1,2]", b"{", b"[" * 5000 + b"]" * 5000, b"\xff\xfe", b'"str"'):
        response = client.post(f"/storage/v1/object/list/{public_bucket}", content=raw,
                               headers={**service_headers(live_server), "content-type": "application/json"})
        assert_storage_error(response, 400)
    client.delete("/storage/v1/bucket/fuzz", headers=service_headers(live_server))


def test_query_strings_and_headers_survive_absurd_values(client: httpx.Client, live_server: harness.LiveServer,
                                                         public_bucket: str) -> None:
    import io

    from PIL import Image

    png = io.BytesIO()
    Image.new("RGB", (4, 4)).save(png, format="PNG")
    put(client, live_server, public_bucket, "img.png", png.getvalue(), "image/png", **{"x-upsert": "true"})
    huge = "9" * 5000
    queries = [f"width={huge}", "width=-1", "height=1e9", "quality=abc", "resize=explode", "format=exe",
               f"download={'d' * 5000}", "download=a%0d%0aX-Injected:%201", f"token={huge}", "token=a.b.c"]
    for route in ("render/image/public", "render/image/authenticated", "object/public", "object/authenticated",
                  "render/image/sign", "object/sign", "object/info/public"):
        for query in queries:
            response = client.get(f"/storage/v1/{route}/{public_bucket}/img.png?{query}",
                                  headers=service_headers(live_server))
            assert response.status_code < 500, (route, query[:40], response.text[:200])
            assert "x-injected" not in response.headers
    for name, value in (("if-modified-since", huge), ("if-none-match", "," * 5000), ("if-range", huge),
                        ("range", "bytes=" + ",".join(["0-1"] * 2000))):
        response = client.get(f"/storage/v1/object/public/{public_bucket}/img.png", headers={name: value})
        assert response.status_code in (200, 206, 304, 416), (name, response.status_code)


def test_upload_headers_are_checked(client: httpx.Client, live_server: harness.LiveServer, public_bucket: str) -> None:
    for extra in ({"content-type": "a/b, c/d"}, {"cache-control": b"max-age=\xff"},
                  {"x-metadata": base64.b64encode(b"[1]").decode()}, {"x-metadata": "%%%"}):
        response = client.post(f"/storage/v1/object/{public_bucket}/h.txt", content=b"h",
                               headers={**service_headers(live_server), "content-type": "text/plain", **extra})
        assert_storage_error(response, 400)
    assert not object_exists(client, live_server, public_bucket, "h.txt")
    form = client.post(f"/storage/v1/object/{public_bucket}/f.txt", headers=service_headers(live_server),
                       data={"cacheControl": "3600\r\nX-Injected: 1"}, files={"file": ("f.txt", b"f", "text/plain")})
    assert_storage_error(form, 400)


# -- 6. bodies: bounded, and never read before the caller is known ---------------------

def stream(total: int, chunk: bytes = b"z" * MB, head: bytes = b"") -> Iterator[bytes]:
    if head:
        yield head
    sent = 0
    while sent < total:
        yield chunk
        sent += len(chunk)


def peak_rss_growth(server: harness.LiveServer, action: Callable[[], httpx.Response]) -> tuple[httpx.Response, int]:
    """(answer, the server's largest RSS growth while it was being sent)."""
    pid = server.process.pid
    before = harness.process_tree_rss(pid)
    peak = before
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, harness.process_tree_rss(pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        response = action()
    finally:
        done.set()
        sampler.join()
    return response, max(peak, harness.process_tree_rss(pid)) - before


def test_a_json_body_over_1_mib_is_refused(client: httpx.Client, live_server: harness.LiveServer,
                                           public_bucket: str) -> None:
    big = {"prefixes": ["p" * 1000] * 1100}
    response = client.request("DELETE", f"/storage/v1/object/{public_bucket}", json=big,
                              headers=service_headers(live_server))
    assert_storage_error(response, 413, "EntityTooLarge")


@pytest.mark.parametrize("case", ["anon-bad-token", "forged-token", "user-over-limit", "declared-over-limit",
                                  "json-200mb", "forged-json-200mb", "multipart-header-200mb",
                                  "multipart-fields"])
def test_200_mb_bodies_are_refused_without_being_held(client: httpx.Client, live_server: harness.LiveServer,
                                                      case: str) -> None:
    bucket = f"mem-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, bucket, file_size_limit=MB)
    run_sql(live_server, f"create policy \"{bucket} users write\" on storage.objects for insert to authenticated "
                         f"with check (bucket_id = '{bucket}')")
    _, token = user_token(live_server)
    forged = token.rsplit(".", 1)[0] + ".c2lnbmF0dXJl"
    user = headers(live_server, token)
    url = f"{live_server.url}/storage/v1/object/{bucket}/big.bin"
    octets = {"content-type": "application/octet-stream"}
    boundary = "xyzzy"
    multipart = {"content-type": f"multipart/form-data; boundary={boundary}"}
    part = f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\nX-Pad: ".encode()

    def fields() -> Iterator[bytes]:  # 200 MB of small, distinct form fields
        sent = 0
        while sent < 200 * MB:
            chunk = b"".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"f{sent + i}\"\r\n\r\nv\r\n"
                             .encode() for i in range(10_000))
            sent += len(chunk)
            yield chunk
    requests: dict[str, Callable[[httpx.Client], httpx.Response]] = {
        "anon-bad-token": lambda c: c.post(url, content=stream(200 * MB),
                                           headers={**octets, "apikey": live_server.anon_key,
                                                    "authorization": "Bearer not.a.token"}),
        "forged-token": lambda c: c.post(url, content=stream(200 * MB),
                                         headers={**octets, "apikey": live_server.anon_key,
                                                  "authorization": f"Bearer {forged}"}),
        "user-over-limit": lambda c: c.post(url, content=stream(200 * MB), headers={**user, **octets}),
        "declared-over-limit": lambda c: c.post(url, content=stream(200 * MB),
                                                headers={**user, **octets, "content-length": str(200 * MB)}),
        "json-200mb": lambda c: c.post(f"{live_server.url}/storage/v1/object/list/{bucket}",
                                       content=stream(200 * MB, b" " * MB, b'{"prefix": "'),
                                       headers={**user, "content-type": "application/json"}),
        "forged-json-200mb": lambda c: c.post(f"{live_server.url}/storage/v1/object/move",
                                              content=stream(200 * MB, b" " * MB, b'{"bucketId": "'),
                                              headers={"apikey": live_server.anon_key,
                                                       "authorization": f"Bearer {forged}",
                                                       "content-type": "application/json"}),
        "multipart-header-200mb": lambda c: c.post(url, content=stream(200 * MB, b"h" * MB, part),
                                                   headers={**user, **multipart}),
        "multipart-fields": lambda c: c.post(url, content=fields(), headers={**user, **multipart}),
    }
    with httpx.Client(timeout=120) as fresh:
        response, grown = peak_rss_growth(live_server, lambda: requests[case](fresh))
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    assert_storage_error(response, response.status_code)
    assert grown < 50 * MB, f"server RSS grew by {grown / MB:.0f} MB"
    assert not object_exists(client, live_server, bucket, "big.bin")
    folder = live_server.settings.data_dir / "storage" / bucket
    assert not folder.exists() or not [p for p in folder.rglob("*") if p.is_file()]


# -- 4. an upload killed mid-way -------------------------------------------------------

def part_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.part") if p.is_file()] if root.exists() else []


def test_partial_files_of_a_killed_upload_are_removed_at_restart(database_url: str) -> None:
    first = harness.start_server(database_url, args=["--no-migrate"])
    second = None
    try:
        bucket = f"crash-{uuid.uuid4().hex[:6]}"
        with httpx.Client(base_url=first.url, timeout=30) as c:
            create_bucket(c, first, bucket)
            assert put(c, first, bucket, "kept.bin", b"kept").status_code == 200
        root = first.settings.data_dir / "storage"
        release = threading.Event()

        def slow_body() -> Iterator[bytes]:
            yield b"a" * (2 * MB)
            release.wait(60)  # hold the upload open until the server is killed

        def upload() -> None:
            try:
                httpx.post(f"{first.url}/storage/v1/object/{bucket}/partial.bin", content=slow_body(),
                           headers={**service_headers(first), "content-type": "application/octet-stream"},
                           timeout=60)
            except httpx.HTTPError:
                pass

        uploader = threading.Thread(target=upload)
        uploader.start()
        deadline = time.monotonic() + 30
        while not part_files(root) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert part_files(root), "the upload never started writing"
        first.process.kill()  # kill -9 mid-upload
        first.process.wait(10)
        release.set()
        uploader.join()
        assert part_files(root)  # what the killed process left
        second = harness.start_server(database_url, args=["--no-migrate"], data_dir=first.settings.data_dir)
        deadline = time.monotonic() + 30
        while part_files(root) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not part_files(root)
        with httpx.Client(base_url=second.url, timeout=30) as c:
            assert c.get(f"/storage/v1/object/{bucket}/kept.bin", headers=service_headers(second)).content == b"kept"
            assert not object_exists(c, second, bucket, "partial.bin")
    finally:
        if second is not None:
            second.stop()
        first.stop()


# -- 5. resumable uploads: who may look at one, how many one caller may leave open ------

def tus_url(server: harness.LiveServer) -> str:
    return server.url + tus.ENDPOINT


def test_a_resumable_upload_is_told_only_to_who_may_write_it(client: httpx.Client,
                                                             live_server: harness.LiveServer) -> None:
    """Upload-Metadata names the bucket, the object, its type and user metadata: a HEAD by
    anon or by another user gets what their PATCH gets (403), whether the upload exists or not."""
    bucket = f"tus-own-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, bucket)
    own_folder_policies(live_server, bucket)
    user, token = user_token(live_server)
    _, other = user_token(live_server)
    created = tus.create(client, headers(live_server, token), 100,
                         {"bucketName": bucket, "objectName": f"{user}/medical-record.pdf",
                          "contentType": "application/pdf", "metadata": '{"patient": "Jane Doe"}'},
                         endpoint=tus_url(live_server))
    assert created.status_code == 201, created.text
    location = created.headers["location"]

    own = tus.head(client, headers(live_server, token), location)
    assert own.status_code == 200
    assert "medical-record.pdf" in tus_metadata(own)["objectName"]
    assert tus.head(client, service_headers(live_server), location).status_code == 200

    made_up = location.rsplit("/", 1)[0] + "/" + tus.encode_id(f"{bucket}/{user}/other.pdf/{uuid.uuid4()}")
    for auth in (headers(live_server), headers(live_server, other)):
        for url in (location, made_up):
            seen = tus.head(client, auth, url)
            assert seen.status_code == 403, (url, seen.status_code)
            assert "upload-metadata" not in seen.headers and "upload-offset" not in seen.headers
    # The signed route checks its token first: no token, no answer.
    signed = location.replace(tus.ENDPOINT, tus.ENDPOINT + "/sign")
    assert tus.head(client, {}, signed).status_code == 400
    assert tus.head(client, service_headers(live_server), made_up).status_code == 404


def tus_metadata(response: httpx.Response) -> dict[str, str]:
    pairs = (item.split(" ") for item in response.headers["upload-metadata"].split(","))
    return {key: base64.b64decode(value).decode() for key, value in pairs}


def scratch_files(server: harness.LiveServer) -> int:
    folder = server.settings.data_dir / "storage" / "#resumable"
    return len(list(folder.glob("*.upload"))) if folder.exists() else 0


def test_uploads_in_progress_are_bounded_per_caller(client: httpx.Client, live_server: harness.LiveServer) -> None:
    """One caller abandoning uploads keeps at most TUS_MAX_UPLOADS_PER_CALLER rows and
    scratch files; the next creation is refused in storage's format before costing disk."""
    bound = live_server.settings.tus_max_uploads_per_caller
    assert 0 < bound <= 1000
    bucket = f"tus-cap-{uuid.uuid4().hex[:6]}"
    create_bucket(client, live_server, bucket)
    own_folder_policies(live_server, bucket)
    user, token = user_token(live_server)
    auth = headers(live_server, token)

    def create(name: str, who: dict[str, str] = auth, owner: str = user) -> httpx.Response:
        return tus.create(client, who, 10, {"bucketName": bucket, "objectName": f"{owner}/{name}"},
                          endpoint=tus_url(live_server))

    locations = []
    for i in range(bound - 10):
        created = create(f"abandoned-{i}.bin")
        assert created.status_code == 201, (i, created.text)
        locations.append(created.headers["location"])
    # The last places taken by a burst of concurrent creations: exactly the bound, never more.
    with httpx.Client(base_url=live_server.url, timeout=60) as burst_client, \
            concurrent.futures.ThreadPoolExecutor(30) as pool:
        burst = list(pool.map(lambda i: tus.create(burst_client, auth, 10, {
            "bucketName": bucket, "objectName": f"{user}/burst-{i}.bin"}, endpoint=tus_url(live_server)), range(30)))
    assert sorted(r.status_code for r in burst) == [201] * 10 + [429] * 20
    locations += [r.headers["location"] for r in burst if r.status_code == 201]
    files = scratch_files(live_server)
    refused = create("one-too-many.bin")
    assert refused.status_code == 429, refused.text
    assert refused.text.startswith(f"Too many resumable uploads in progress: at most {bound} per caller")
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        rows = conn.execute("select count(*) from storage.resumable_uploads where bucket_id = %s", [bucket]).fetchone()
    assert rows == (bound,)
    assert scratch_files(live_server) == files  # refused before the backend was asked for anything

    # Another caller has a bound of its own.
    other, other_token = user_token(live_server)
    assert create("theirs.bin", headers(live_server, other_token), other).status_code == 201
    # Cancelling one, or finishing one, gives its place back.
    assert client.delete(locations[0], headers={**auth, **tus.TUS}).status_code == 204
    assert create("after-cancel.bin").status_code == 201
    assert create("no-room.bin").status_code == 429
    assert tus.patch(client, auth, locations[1], 0, b"0123456789").status_code == 204
    assert create("after-finish.bin").status_code == 201


# -- 6. object names that run through another object's stored version -------------------

def test_a_name_through_a_stored_version_is_refused_and_reaches_nothing(
        client: httpx.Client, live_server: harness.LiveServer, public_bucket: str) -> None:
    """The file backend keeps `a.txt` at `a.txt/<version>`: a name `a.txt/<version>[/...]`
    is storage's InvalidKey (upload, upsert, copy, move, resumable), never a 500, and the
    first object stays whole."""
    folder = f"probe-{uuid.uuid4().hex[:6]}"
    logged = len(live_server.log())
    assert put(client, live_server, public_bucket, f"{folder}/a.txt", b"first object", "text/plain").status_code == 200
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        (version,), = conn.execute("select version from storage.objects where bucket_id = %s and name = %s",
                                   [public_bucket, f"{folder}/a.txt"]).fetchall()
    auth = service_headers(live_server)
    for name in (f"{folder}/a.txt/{version}", f"{folder}/a.txt/{version}/deeper.txt"):
        assert_storage_error(put(client, live_server, public_bucket, name, b"intruder", "text/plain"), 400, "InvalidKey")
        assert_storage_error(put(client, live_server, public_bucket, name, b"intruder", "text/plain",
                                 **{"x-upsert": "true"}), 400, "InvalidKey")
        body = {"bucketId": public_bucket, "sourceKey": f"{folder}/a.txt", "destinationKey": name}
        assert_storage_error(client.post("/storage/v1/object/copy", json=body, headers=auth), 400, "InvalidKey")
        assert_storage_error(client.post("/storage/v1/object/move", json=body, headers=auth), 400, "InvalidKey")
        resumable = tus.create(client, auth, 8, {"bucketName": public_bucket, "objectName": name},
                               endpoint=tus_url(live_server))
        assert (resumable.status_code, resumable.text) == (400, f"Invalid key: {name}")
        assert client.get(f"/storage/v1/object/{public_bucket}/{name}", headers=auth).status_code in (400, 404)
        assert not object_exists(client, live_server, public_bucket, name)
    got = client.get(f"/storage/v1/object/{public_bucket}/{folder}/a.txt", headers=auth)
    assert (got.status_code, got.content) == (200, b"first object")
    # A name beside it (not through a version) is fine.
    assert put(client, live_server, public_bucket, f"{folder}/a.txt/notes.txt", b"beside", "text/plain").status_code == 200
    assert "Traceback" not in live_server.log()[logged:]
