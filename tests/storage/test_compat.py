"""/storage/v1 answering as storage-api's current source does: list-v2 folders, sorting and
cursors; object info; image renders (output type, X-Transformations, SVG); requests without
any token; bucket JSON, type and MIME rules; download names; unsatisfiable ranges."""

from __future__ import annotations

import base64
import http.server
import io
import re
import threading
import uuid
from collections.abc import Iterator
from typing import Any, ClassVar

import httpx
import orjson
import pytest
from PIL import Image

from server.storage import content_types, errors, transforms
from server.storage.media import content_disposition
from server.storage.service import decode_cursor, encode_cursor
from tests.harness import LiveServer
from tests.storage.support import create_bucket, headers, run_sql, service_headers

JS_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


@pytest.fixture(scope="module")
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=30) as c:
        yield c


def new_bucket(client: httpx.Client, server: LiveServer, **options: object) -> str:
    name = f"compat-{uuid.uuid4().hex[:8]}"
    create_bucket(client, server, name, **options)
    return name


def upload(client: httpx.Client, server: LiveServer, bucket: str, name: str, data: bytes = b"x",
           content_type: str = "text/plain", **extra: str) -> httpx.Response:
    h = {**service_headers(server), "content-type": content_type, **extra}
    return client.post(f"/storage/v1/object/{bucket}/{name}", content=data, headers=h)


def list_v2(client: httpx.Client, server: LiveServer, bucket: str, **body: Any) -> httpx.Response:
    return client.post(f"/storage/v1/object/list-v2/{bucket}", json=body, headers=service_headers(server))


def jpeg(width: int = 64, height: int = 48) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="JPEG")
    return out.getvalue()


# -- requests without a token ---------------------------------------------------------------

def test_no_token_is_refused_with_invalid_compact_jws(client: httpx.Client, live_server: LiveServer) -> None:
    bucket = new_bucket(client, live_server, public=True)
    upload(client, live_server, bucket, "pic.txt", b"public bytes")
    for method, url in (("GET", "/storage/v1/bucket"), ("GET", f"/storage/v1/bucket/{bucket}"),
                        ("POST", f"/storage/v1/object/list-v2/{bucket}"), ("GET", f"/storage/v1/object/{bucket}/pic.txt"),
                        ("GET", f"/storage/v1/object/info/{bucket}/pic.txt"), ("POST", f"/storage/v1/object/{bucket}/new.txt")):
        response = client.request(method, url)
        assert response.status_code == 400, (method, url)
        assert response.json() == {"statusCode": "403", "code": "AccessDenied", "error": "Unauthorized",
                                   "message": "Invalid Compact JWS"}, (method, url)
    # a scheme that is not Bearer is no token either
    basic = client.get("/storage/v1/bucket", headers={"Authorization": "Basic dXNlcjpwdw=="})
    assert basic.json()["message"] == "Invalid Compact JWS"
    # the routes storage-api serves without a JWT still answer
    assert client.get("/storage/v1/status").status_code == 200
    assert client.get(f"/storage/v1/object/public/{bucket}/pic.txt").content == b"public bytes"
    assert client.get(f"/storage/v1/object/info/public/{bucket}/pic.txt").json()["name"] == "pic.txt"
    signed = client.post(f"/storage/v1/object/sign/{bucket}/pic.txt", json={"expiresIn": 60},
                         headers=service_headers(live_server)).json()["signedURL"]
    assert client.get(f"/storage/v1{signed}").content == b"public bytes"
    # the apikey header alone still stands in for the token (Supabase's gateway)
    assert client.get("/storage/v1/bucket", headers={"apikey": live_server.anon_key}).status_code == 200


# -- buckets -------------------------------------------------------------------------------

BUCKET_KEYS = ["id", "name", "owner", "public", "file_size_limit", "allowed_mime_types", "created_at", "updated_at"]


def test_bucket_json_as_storage_api_sends_it(client: httpx.Client, live_server: LiveServer) -> None:
    bucket = new_bucket(client, live_server, public=True, file_size_limit="1MB")
    got = client.get(f"/storage/v1/bucket/{bucket}", headers=service_headers(live_server))
    body = got.json()
    assert list(body) == BUCKET_KEYS  # no `type` here, as storage-api's getBucket
    assert (body["owner"], body["public"], body["file_size_limit"], body["allowed_mime_types"]) == ("", True, 1000000, None)
    assert JS_DATE.fullmatch(body["created_at"]) and JS_DATE.fullmatch(body["updated_at"])
    listed = client.get("/storage/v1/bucket", params={"search": bucket}, headers=service_headers(live_server)).json()
    assert list(listed[0]) == ["id", "type", *BUCKET_KEYS[1:]] and listed[0]["type"] == "STANDARD"
    old_py = {**service_headers(live_server), "user-agent": "supabase-py/storage3 v0.11.3"}
    assert "type" not in client.get("/storage/v1/bucket", params={"search": bucket}, headers=old_py).json()[0]
    new_py = {**service_headers(live_server), "user-agent": "supabase-py/storage3 v0.12.1"}
    assert "type" in client.get("/storage/v1/bucket", params={"search": bucket}, headers=new_py).json()[0]
    bad_sort = client.get("/storage/v1/bucket", params={"sortColumn": "owner"}, headers=service_headers(live_server))
    assert bad_sort.status_code == 400
    assert bad_sort.json()["message"] == "querystring/sortColumn must be equal to one of the allowed values"
    emptied = client.post(f"/storage/v1/bucket/{bucket}/empty", headers=service_headers(live_server))
    assert emptied.json() == {"message": "Empty bucket has been queued. Completion may take up to an hour."}


def test_bucket_type(client: httpx.Client, live_server: LiveServer) -> None:
    h = service_headers(live_server)
    name = f"typed-{uuid.uuid4().hex[:8]}"
    assert client.post("/storage/v1/bucket", json={"name": name, "type": "STANDARD"}, headers=h).status_code == 200
    listed = client.get("/storage/v1/bucket", params={"search": name}, headers=h).json()
    assert listed[0]["type"] == "STANDARD"
    unknown = client.post("/storage/v1/bucket", json={"name": f"{name}-x", "type": "COLD"}, headers=h)
    assert unknown.status_code == 400 and unknown.json()["message"] == "body/type must be equal to one of the allowed values"
    analytics = client.post("/storage/v1/bucket", json={"name": f"{name}-a", "type": "ANALYTICS"}, headers=h)
    assert analytics.status_code == 400 and analytics.json()["code"] == "InvalidRequest"
    assert client.get(f"/storage/v1/bucket/{name}-a", headers=h).json()["statusCode"] == "404"


def test_bucket_type_is_storage_api_enum(client: httpx.Client, live_server: LiveServer) -> None:
    """A project's SQL casting to storage.buckettype runs as on Supabase; other values cannot be stored."""
    name = f"sqltyped-{uuid.uuid4().hex[:8]}"
    run_sql(live_server, f"insert into storage.buckets (id, name, type) values ('{name}', '{name}', 'STANDARD'::storage.buckettype)")
    listed = client.get("/storage/v1/bucket", params={"search": name}, headers=service_headers(live_server)).json()
    assert listed[0]["type"] == "STANDARD"
    with pytest.raises(Exception, match="buckettype"):
        run_sql(live_server, f"insert into storage.buckets (id, name, type) values ('{name}-x', '{name}-x', 'COLD')")


def test_bucket_errors_carry_storage_api_error_names(client: httpx.Client, live_server: LiveServer) -> None:
    h = service_headers(live_server)
    missing = client.get(f"/storage/v1/bucket/nope-{uuid.uuid4().hex[:6]}", headers=h).json()
    assert missing == {"statusCode": "404", "code": "NoSuchBucket", "error": "Bucket not found", "message": "Bucket not found"}
    bad_name = client.post("/storage/v1/bucket", json={"name": "a/b"}, headers=h).json()
    assert bad_name == {"statusCode": "400", "code": "InvalidBucketName", "error": "Invalid Input", "message": "Bucket name invalid"}
    name = new_bucket(client, live_server)
    again = client.post("/storage/v1/bucket", json={"name": name}, headers=h).json()
    assert (again["code"], again["error"], again["statusCode"]) == ("BucketAlreadyExists", "Duplicate", "409")
    upload(client, live_server, name, "keep.txt")
    full = client.delete(f"/storage/v1/bucket/{name}", headers=h).json()
    assert full == {"statusCode": "409", "code": "InvalidRequest", "error": "InvalidRequest",
                    "message": "The bucket you tried to delete is not empty"}


def test_allowed_mime_types_normalized_and_wildcards(client: httpx.Client, live_server: LiveServer) -> None:
    h = service_headers(live_server)
    name = f"mime-{uuid.uuid4().hex[:8]}"
    created = client.post("/storage/v1/bucket", headers=h, json={
        "name": name, "allowed_mime_types": [" Text/Plain; charset=\"UTF-8\" ", "text/plain;charset=iso-8859-1",
                                             "IMAGE/*", "image/*", ""]})
    assert created.status_code == 200, created.text
    assert client.get(f"/storage/v1/bucket/{name}", headers=h).json()["allowed_mime_types"] == ["text/plain", "image/*"]
    for bad in ("*/*", "*/png", "image/p*", "garbage*", "image/png/extra", "image/png, application/pdf"):
        refused = client.put(f"/storage/v1/bucket/{name}", json={"allowed_mime_types": [bad]}, headers=h)
        assert refused.status_code == 400, bad
        assert refused.json()["code"] == "InvalidMimeType" and refused.json()["error"] == "invalid_mime_type", bad
    # the upload paths: POST, PUT (update), upsert and a signed upload URL
    assert upload(client, live_server, name, "a.png", b"png", "image/png").status_code == 200
    assert upload(client, live_server, name, "b.webp", b"webp", "IMAGE/WEBP").status_code == 200
    assert upload(client, live_server, name, "c.txt", b"txt", "text/plain; charset=utf-8").status_code == 200
    html = upload(client, live_server, name, "d.html", b"<p>", "text/html")
    assert html.status_code == 400 and html.json()["statusCode"] == "415"
    assert html.json()["message"] == "mime type text/html is not supported"
    put = client.put(f"/storage/v1/object/{name}/a.png", content=b"<p>", headers={**h, "content-type": "text/html"})
    assert put.json()["code"] == "InvalidMimeType"
    upsert = upload(client, live_server, name, "a.png", b"pdf", "application/pdf", **{"x-upsert": "true"})
    assert upsert.json()["code"] == "InvalidMimeType"
    token = client.post(f"/storage/v1/object/upload/sign/{name}/e.bin", headers=h).json()["token"]
    signed = client.put(f"/storage/v1/object/upload/sign/{name}/e.bin", params={"token": token}, content=b"bin",
                        headers={"content-type": "application/octet-stream"})
    assert signed.json()["code"] == "InvalidMimeType"
    # [] and null both allow anything, and are kept as given
    assert client.put(f"/storage/v1/bucket/{name}", json={"allowed_mime_types": []}, headers=h).status_code == 200
    assert client.get(f"/storage/v1/bucket/{name}", headers=h).json()["allowed_mime_types"] == []
    assert upload(client, live_server, name, "d.html", b"<p>", "text/html").status_code == 200


# -- object info ---------------------------------------------------------------------------

def test_info_without_user_metadata_is_an_empty_object(client: httpx.Client, live_server: LiveServer) -> None:
    bucket = new_bucket(client, live_server)
    upload(client, live_server, bucket, "doc.txt", b"hello", "text/plain", **{"cache-control": "max-age=60"})
    meta = base64.b64encode(orjson.dumps({"lang": "fr"})).decode()
    upload(client, live_server, bucket, "meta.txt", b"hi", "text/plain", **{"x-metadata": meta})
    got = client.get(f"/storage/v1/object/info/{bucket}/doc.txt", headers=service_headers(live_server))
    body = got.json()
    assert list(body) == ["id", "name", "version", "bucket_id", "size", "content_type", "cache_control", "etag",
                          "metadata", "last_modified", "created_at"]
    assert body["metadata"] == {}
    assert (body["name"], body["bucket_id"], body["size"], body["content_type"], body["cache_control"]) == (
        "doc.txt", bucket, 5, "text/plain", "max-age=60")
    assert JS_DATE.fullmatch(body["last_modified"]) and JS_DATE.fullmatch(body["created_at"])
    assert got.headers["etag"] == body["etag"] and got.headers["cache-control"] == "max-age=60"
    other = client.get(f"/storage/v1/object/info/authenticated/{bucket}/meta.txt", headers=service_headers(live_server))
    assert other.json()["metadata"] == {"lang": "fr"}


# -- list-v2 -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tree(client: httpx.Client, live_server: LiveServer) -> str:
    """fold.txt sorts before fold/ (0x2E < 0x2F); dates set so date order differs from name order."""
    bucket = new_bucket(client, live_server)
    dates = {"fold/a.txt": "2024-01-03", "fold/sub/b.txt": "2024-01-01", "fold.txt": "2024-01-05",
             "top.txt": "2024-01-02", "x/y/z.txt": "2024-01-04"}
    for name in dates:
        assert upload(client, live_server, bucket, name, name.encode()).status_code == 200
    for name, day in dates.items():
        run_sql(live_server, f"update storage.objects set created_at = '{day}T10:00:00.123456Z', "
                             f"updated_at = '{day}T12:00:00Z' where bucket_id = '{bucket}' and name = '{name}'")
    return bucket


def entries(page: dict[str, Any]) -> list[tuple[str, str]]:
    return [("folder", f["name"]) for f in page["folders"]] + [("object", o["name"]) for o in page["objects"]]


def walk(client: httpx.Client, server: LiveServer, bucket: str, **body: Any) -> list[dict[str, Any]]:
    """Every page of a listing, one entry a page, following nextCursor."""
    pages, cursor = [], None
    for _ in range(20):
        page = list_v2(client, server, bucket, limit=1, **body, **({"cursor": cursor} if cursor else {})).json()
        pages.append(page)
        if not page["hasNext"]:
            return pages
        cursor = page["nextCursor"]
    raise AssertionError("the cursor never ended")


def test_list_v2_folders_and_objects(client: httpx.Client, live_server: LiveServer, tree: str) -> None:
    page = list_v2(client, live_server, tree, with_delimiter=True).json()
    assert list(page) == ["hasNext", "folders", "objects"] and page["hasNext"] is False
    assert page["folders"] == [
        {"key": "fold", "name": "fold/", "id": None, "updated_at": None, "created_at": None, "last_accessed_at": None,
         "metadata": None, "user_metadata": None},
        {"key": "x", "name": "x/", "id": None, "updated_at": None, "created_at": None, "last_accessed_at": None,
         "metadata": None, "user_metadata": None}]
    assert [(o["key"], o["name"]) for o in page["objects"]] == [("fold.txt", "fold.txt"), ("top.txt", "top.txt")]
    first = page["objects"][0]
    assert list(first) == ["key", "name", "id", "updated_at", "created_at", "last_accessed_at", "metadata", "user_metadata"]
    assert first["created_at"] == "2024-01-05T10:00:00.123Z" and first["user_metadata"] == {}
    inner = list_v2(client, live_server, tree, with_delimiter=True, prefix="fold/").json()
    assert [(f["key"], f["name"]) for f in inner["folders"]] == [("sub", "fold/sub/")]
    assert [(o["key"], o["name"]) for o in inner["objects"]] == [("a.txt", "fold/a.txt")]
    flat = list_v2(client, live_server, tree, prefix="fold").json()
    assert flat["folders"] == [] and [o["name"] for o in flat["objects"]] == ["fold.txt", "fold/a.txt", "fold/sub/b.txt"]
    assert list(flat["objects"][0]) == ["id", "name", "metadata", "updated_at", "created_at", "last_accessed_at"]


def test_list_v2_cursor_walks_in_key_order(client: httpx.Client, live_server: LiveServer, tree: str) -> None:
    pages = walk(client, live_server, tree, with_delimiter=True)
    assert [entries(p)[0] for p in pages] == [("object", "fold.txt"), ("folder", "fold/"), ("object", "top.txt"),
                                              ("folder", "x/")]
    assert pages[1]["nextCursorKey"] == "fold"  # a folder's cursor is its name without the slash
    assert decode_cursor(pages[1]["nextCursor"]) == {"l": "fold", "o": "asc"}
    assert "nextCursor" not in pages[-1] and "nextCursorKey" not in pages[-1]
    down = walk(client, live_server, tree, with_delimiter=True, sortBy={"column": "name", "order": "desc"})
    assert [entries(p)[0] for p in down] == [("folder", "x/"), ("object", "top.txt"), ("folder", "fold/"),
                                             ("object", "fold.txt")]
    flat = walk(client, live_server, tree, sortBy={"column": "name", "order": "desc"})
    assert [entries(p)[0][1] for p in flat] == ["x/y/z.txt", "top.txt", "fold/sub/b.txt", "fold/a.txt", "fold.txt"]


def test_list_v2_sorted_by_date(client: httpx.Client, live_server: LiveServer, tree: str) -> None:
    by_created = list_v2(client, live_server, tree, with_delimiter=True, sortBy={"column": "created_at"}).json()
    # a folder's dates are its oldest key's created_at: fold (01-01), top (01-02), x (01-04), fold.txt (01-05)
    assert [f["name"] for f in by_created["folders"]] == ["fold/", "x/"]
    assert [o["name"] for o in by_created["objects"]] == ["top.txt", "fold.txt"]
    assert by_created["folders"][0]["created_at"] == by_created["folders"][0]["updated_at"] == "2024-01-01T10:00:00.123Z"
    pages = walk(client, live_server, tree, with_delimiter=True, sortBy={"column": "created_at", "order": "desc"})
    assert [entries(p)[0][1] for p in pages] == ["fold.txt", "x/", "top.txt", "fold/"]
    cursor = decode_cursor(pages[0]["nextCursor"])
    assert cursor == {"l": "fold.txt", "o": "desc", "c": "created_at", "a": "2024-01-05T10:00:00.123Z"}
    flat = walk(client, live_server, tree, sortBy={"column": "updated_at", "order": "asc"})
    assert [entries(p)[0][1] for p in flat] == ["fold/sub/b.txt", "top.txt", "fold/a.txt", "x/y/z.txt", "fold.txt"]


def test_list_v2_bad_inputs(client: httpx.Client, live_server: LiveServer, tree: str) -> None:
    bad_cursor = list_v2(client, live_server, tree, cursor="!!!")
    assert bad_cursor.status_code == 400
    assert bad_cursor.json() == {"statusCode": "400", "code": "MissingParameter", "error": "MissingParameter",
                                 "message": "Invalid Parameter continuation token"}
    unknown_key = list_v2(client, live_server, tree, cursor=base64.b64encode(b"x:y").decode())
    assert unknown_key.json()["code"] == "MissingParameter"
    column = list_v2(client, live_server, tree, sortBy={"column": "size"})
    assert column.json()["message"] == "body/sortBy/column must be equal to one of the allowed values"
    no_column = list_v2(client, live_server, tree, sortBy={"order": "desc"})
    assert no_column.json()["message"] == "body/sortBy must have required property 'column'"
    assert list_v2(client, live_server, tree, limit=0).status_code == 400


def test_cursor_codec() -> None:
    token = encode_cursor({"l": "a/b", "o": "desc", "c": None, "a": None})
    assert base64.b64decode(token) == b"l:a/b\no:desc"
    assert decode_cursor(token.rstrip("=")) == {"l": "a/b", "o": "desc"}  # padding optional, as in Node
    with pytest.raises(errors.StorageError):
        decode_cursor(base64.b64encode(b"l:a\nbad").decode())


# -- image renders -------------------------------------------------------------------------

def render(client: httpx.Client, server: LiveServer, bucket: str, name: str, accept: str = "*/*",
           **params: str) -> httpx.Response:
    return client.get(f"/storage/v1/render/image/authenticated/{bucket}/{name}", params=params,
                      headers={**service_headers(server), "accept": accept})


def test_render_answers_with_the_output_format(client: httpx.Client, live_server: LiveServer) -> None:
    bucket = new_bucket(client, live_server)
    upload(client, live_server, bucket, "photo.txt", jpeg(), "text/plain")  # a JPEG stored as text/plain
    got = render(client, live_server, bucket, "photo.txt", width="20", height="20", resize="cover", quality="60")
    assert got.status_code == 200, got.text
    assert got.headers["content-type"] == "image/jpeg"
    assert got.headers["x-transformations"] == "height:20,width:20,resizing_type:fill,quality:60"
    assert Image.open(io.BytesIO(got.content)).size == (20, 20)
    info = client.get(f"/storage/v1/object/info/{bucket}/photo.txt", headers=service_headers(live_server)).json()
    assert got.headers["etag"] == info["etag"]  # the source object's ETag, as storage-api sends
    webp = render(client, live_server, bucket, "photo.txt", accept="image/avif,image/webp,*/*", width="10")
    assert webp.headers["content-type"] == "image/webp"  # no format given: WebP for clients that take it
    assert webp.headers["x-transformations"] == "width:10,resizing_type:fill"
    origin = render(client, live_server, bucket, "photo.txt", accept="image/webp", width="10", format="origin")
    assert origin.headers["content-type"] == "image/jpeg"
    asked = render(client, live_server, bucket, "photo.txt", width="10", format="webp", resize="contain")
    assert asked.headers["content-type"] == "image/webp"
    assert asked.headers["x-transformations"] == "width:10,resizing_type:fit,format:webp"
    clamped = render(client, live_server, bucket, "photo.txt", width="99999", resize="fill")
    assert clamped.headers["x-transformations"] == "width:2500,resizing_type:force"
    plain = render(client, live_server, bucket, "photo.txt")
    assert plain.status_code == 200 and "x-transformations" not in plain.headers
    for params, message in (({"quality": "10"}, "querystring/quality must be >= 20"),
                            ({"width": "-1"}, "querystring/width must be >= 0"),
                            ({"format": "png"}, "querystring/format must be equal to one of the allowed values")):
        refused = render(client, live_server, bucket, "photo.txt", **params)
        assert refused.status_code == 400 and refused.json()["message"] == message


def test_signed_render_url_carries_storage_api_transformations(client: httpx.Client, live_server: LiveServer) -> None:
    bucket = new_bucket(client, live_server)
    upload(client, live_server, bucket, "p.jpg", jpeg(), "image/jpeg")
    signed = client.post(f"/storage/v1/object/sign/{bucket}/p.jpg", headers=service_headers(live_server),
                         json={"expiresIn": 60, "transform": {"width": 16, "quality": 70}}).json()["signedURL"]
    token = signed.split("token=")[1]
    claims = orjson.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert claims["transformations"] == "width:16,resize:undefined,quality:70"
    got = client.get(f"/storage/v1{signed}")
    assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg"
    assert got.headers["x-transformations"] == "width:16,resizing_type:fill,quality:70"


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Recorder.hits.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_svg_sources_are_rasterised_without_fetching(client: httpx.Client, live_server: LiveServer) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        remote = f"http://127.0.0.1:{server.server_address[1]}/leak.png"
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20">'
               f'<rect width="40" height="20" fill="blue"/><image xlink:href="{remote}" width="5" height="5"/>'
               f'<style>@import url("{remote}");</style></svg>').encode()
        bucket = new_bucket(client, live_server)
        upload(client, live_server, bucket, "logo.svg", svg, "image/svg+xml")
        got = render(client, live_server, bucket, "logo.svg", width="80")
        assert got.status_code == 200, got.text
        assert got.headers["content-type"] == "image/png"
        assert Image.open(io.BytesIO(got.content)).size == (80, 40)
        as_webp = render(client, live_server, bucket, "logo.svg", accept="image/webp", height="10")
        assert as_webp.headers["content-type"] == "image/webp"
        assert _Recorder.hits == []
    finally:
        server.shutdown()
        server.server_close()
    entity = (b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
              b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&b;</text></svg>')
    upload(client, live_server, bucket, "entity.svg", entity, "image/svg+xml")
    refused = render(client, live_server, bucket, "entity.svg", width="10")
    assert refused.status_code == 400 and refused.json()["code"] == "InvalidRequest"
    huge = b'<svg xmlns="http://www.w3.org/2000/svg" width="100000000" height="1"><rect width="9" height="1"/></svg>'
    upload(client, live_server, bucket, "huge.svg", huge, "image/svg+xml")
    bounded = render(client, live_server, bucket, "huge.svg")
    assert bounded.status_code == 200 and max(Image.open(io.BytesIO(bounded.content)).size) <= transforms.MAX_DIMENSION
    upload(client, live_server, bucket, "broken.svg", b"<svg><unclosed", "image/svg+xml")
    assert render(client, live_server, bucket, "broken.svg").status_code == 400
    # nested <use>: 10 levels of 10 references ask for 10^9 draws from a few kilobytes
    levels = "".join(f'<g id="l{i}">' + f'<use xlink:href="#l{i - 1}"/>' * 10 + "</g>" for i in range(1, 10))
    bomb = (b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="9" height="9">'
            b'<defs><rect id="l0" width="1" height="1"/>' + levels.encode() + b'</defs><use xlink:href="#l9"/></svg>')
    upload(client, live_server, bucket, "bomb.svg", bomb, "image/svg+xml")
    assert render(client, live_server, bucket, "bomb.svg").json()["code"] == "InvalidRequest"


def test_transform_forms() -> None:
    t = transforms.parse({"width": "200", "height": "200", "resize": "cover", "quality": "60"})
    assert ",".join(t.segments()) == "height:200,width:200,resizing_type:fill,quality:60"
    assert t.token() == "height:200,width:200,resize:cover,quality:60"
    assert transforms.from_token("width:20,resize:undefined").segments() == ["width:20", "resizing_type:fill"]
    assert transforms.parse({"format": "origin", "quality": "90"}).segments() == ["quality:90"]


# -- downloads and ranges ------------------------------------------------------------------

@pytest.mark.parametrize(("download", "expected"), [
    ("", "attachment;"),
    ("report.pdf", "attachment; filename=report.pdf; filename*=UTF-8''report.pdf"),
    ("cours 1 (v2).pdf", "attachment; filename=\"cours 1 (v2).pdf\"; filename*=UTF-8''cours%201%20%28v2%29.pdf"),
    ("leçon été.txt", "attachment; filename=\"le_on _t_.txt\"; filename*=UTF-8''le%C3%A7on%20%C3%A9t%C3%A9.txt"),
    ("it's*.txt", "attachment; filename=it's*.txt; filename*=UTF-8''it%27s%2A.txt"),
    ('a"b\\c', "attachment; filename=a_b_c; filename*=UTF-8''a%22b%5Cc"),
])
def test_content_disposition_forms(download: str, expected: str) -> None:
    assert content_disposition(download) == {"Content-Disposition": expected}


def test_download_variants_over_http(client: httpx.Client, live_server: LiveServer) -> None:
    bucket = new_bucket(client, live_server, public=True)
    upload(client, live_server, bucket, "f.txt", b"abc")
    base = f"{live_server.url}/storage/v1/object/public/{bucket}/f.txt"
    assert client.get(base + "?download").headers["content-disposition"] == "attachment;"
    assert client.get(base + "?download=").headers["content-disposition"] == "attachment;"
    named = client.get(base + "?download=%C3%A9t%C3%A9%20notes.txt").headers["content-disposition"]
    assert named == "attachment; filename=\"_t_ notes.txt\"; filename*=UTF-8''%C3%A9t%C3%A9%20notes.txt"
    assert not named.endswith(";")
    plain = client.get(base)
    assert "content-disposition" not in plain.headers and plain.headers["x-robots-tag"] == "none"


def test_unsatisfiable_range_as_storage_api(client: httpx.Client, live_server: LiveServer) -> None:
    bucket = new_bucket(client, live_server)
    upload(client, live_server, bucket, "r.bin", b"0123456789")
    url = f"/storage/v1/object/{bucket}/r.bin"
    past = client.get(url, headers={**service_headers(live_server), "Range": "bytes=50-"})
    assert past.status_code == 400
    assert past.json() == {"statusCode": "416", "code": "S3Error", "error": "The requested range is not satisfiable",
                           "message": "InvalidRange"}
    assert "content-range" not in past.headers
    upper = client.get(url, headers={**service_headers(live_server), "Range": "BYTES=2-4"})
    assert (upper.status_code, upper.content, upper.headers["content-range"]) == (206, b"234", "bytes 2-4/10")


def test_mime_normalization_rules() -> None:
    assert content_types.normalize_allowed(["Image/PNG; q=1", "image/png", "", "video/*"]) == ["image/png", "video/*"]
    for bad in ("*", "image/", "image/png image/gif", "x" * 1001):
        with pytest.raises(errors.StorageError):
            content_types.normalize_allowed([bad])


def test_user_token_still_reads(client: httpx.Client, live_server: LiveServer) -> None:
    """A real token (anon key as Bearer) is served as before."""
    assert client.get("/storage/v1/bucket", headers=headers(live_server)).status_code == 200
