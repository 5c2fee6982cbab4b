"""The same storage behaviours through storage3 (supabase-py's storage client)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator

import httpx
import pytest
from storage3 import SyncStorageClient
from storage3.exceptions import StorageApiError

from tests import harness
from tests.storage.support import own_folder_policies, user_token


@pytest.fixture(scope="module")
def live_server(database_url: str) -> Iterator[harness.LiveServer]:
    data_dir = harness.scratch_dir("supalite-storage-py-")
    server = harness.start_server(database_url, args=["--no-migrate"], data_dir=data_dir)
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def storage(server: harness.LiveServer, token: str | None = None) -> SyncStorageClient:
    key = token or server.service_key
    return SyncStorageClient(f"{server.url}/storage/v1", {"apikey": server.anon_key, "Authorization": f"Bearer {key}"})


def test_buckets_uploads_lists_and_downloads(live_server: harness.LiveServer) -> None:
    admin = storage(live_server)
    name = f"py-{uuid.uuid4().hex[:6]}"
    admin.create_bucket(name, options={"public": True, "file_size_limit": 1000, "allowed_mime_types": ["text/plain", "application/pdf"]})
    bucket = admin.get_bucket(name)
    assert bucket.public is True and bucket.file_size_limit == 1000
    files = admin.from_(name)
    files.upload("docs/one.txt", b"one", {"content-type": "text/plain"})
    files.upload("docs/two.pdf", b"%PDF", {"content-type": "application/pdf"})
    with pytest.raises(StorageApiError) as duplicate:
        files.upload("docs/one.txt", b"again", {"content-type": "text/plain"})
    assert duplicate.value.status == "409" or duplicate.value.code == "ResourceAlreadyExists"
    files.upload("docs/one.txt", b"upserted", {"content-type": "text/plain", "upsert": "true"})
    assert files.download("docs/one.txt") == b"upserted"
    with pytest.raises(StorageApiError) as too_big:
        files.upload("docs/big.txt", b"x" * 2000, {"content-type": "text/plain"})
    # storage3's `code` is the body's `error`, storage-api's backwards-compatible name
    assert (too_big.value.code, too_big.value.status) == ("Payload too large", "413")
    with pytest.raises(StorageApiError) as wrong_type:
        files.upload("docs/a.png", b"png", {"content-type": "image/png"})
    assert wrong_type.value.code == "invalid_mime_type"
    assert [e["name"] for e in files.list()] == ["docs"]
    assert [e["name"] for e in files.list("docs")] == ["one.txt", "two.pdf"]
    assert [e["name"] for e in files.list("docs", {"search": "two"})] == ["two.pdf"]
    assert files.exists("docs/two.pdf") is True
    files.move("docs/two.pdf", "archive/two.pdf")
    files.copy("archive/two.pdf", "archive/three.pdf")
    assert files.download("archive/three.pdf") == b"%PDF"
    signed = files.create_signed_url("archive/three.pdf", 60)
    assert httpx.get(signed["signedURL"]).content == b"%PDF"
    public = files.get_public_url("docs/one.txt")
    assert httpx.get(public).content == b"upserted"
    removed = files.remove(["archive/two.pdf", "archive/three.pdf"])
    assert sorted(r["name"] for r in removed) == ["archive/three.pdf", "archive/two.pdf"]
    upload = files.create_signed_upload_url("signed/new.txt")
    files.upload_to_signed_url("signed/new.txt", upload["token"], b"by token", {"content-type": "text/plain"})
    assert files.download("signed/new.txt") == b"by token"


def test_policy_limits_users_to_their_folder(live_server: harness.LiveServer) -> None:
    name = f"pyown-{uuid.uuid4().hex[:6]}"
    storage(live_server).create_bucket(name)
    own_folder_policies(live_server, name)
    alice, alice_token = user_token(live_server)
    _, bob_token = user_token(live_server)
    storage(live_server, alice_token).from_(name).upload(f"{alice}/a.txt", b"alice", {"content-type": "text/plain"})
    with pytest.raises(StorageApiError) as refused:
        storage(live_server, bob_token).from_(name).upload(f"{alice}/b.txt", b"bob", {"content-type": "text/plain"})
    assert (refused.value.code, refused.value.status) == ("Unauthorized", "403")
    with pytest.raises(StorageApiError):
        storage(live_server, bob_token).from_(name).download(f"{alice}/a.txt")
    assert storage(live_server, alice_token).from_(name).download(f"{alice}/a.txt") == b"alice"


def test_list_v2_info_and_buckets_as_storage_api(live_server: harness.LiveServer) -> None:
    """storage3's models read list-v2 folders (key and name), info's empty metadata and the
    bucket list's `type` as Supabase sends them."""
    admin = storage(live_server)
    name = f"pyv2-{uuid.uuid4().hex[:6]}"
    admin.create_bucket(name, options={"allowed_mime_types": ["text/*"]})
    files = admin.from_(name)
    for path in ("fold/a.txt", "fold/sub/b.txt", "top.txt"):
        files.upload(path, b"x", {"content-type": "text/plain"})
    page = files.list_v2({"with_delimiter": True})
    assert [(f.key, f.name) for f in page.folders] == [("fold", "fold/")]
    assert [(o.key, o.name) for o in page.objects] == [("top.txt", "top.txt")] and page.hasNext is False
    inner = files.list_v2({"with_delimiter": True, "prefix": "fold/", "limit": 1})
    assert [(o.key, o.name) for o in inner.objects] == [("a.txt", "fold/a.txt")] and inner.hasNext is True
    rest = files.list_v2({"with_delimiter": True, "prefix": "fold/", "limit": 1, "cursor": inner.nextCursor or ""})
    assert [(f.key, f.name) for f in rest.folders] == [("sub", "fold/sub/")] and rest.hasNext is False
    newest = files.list_v2({"sortBy": {"column": "created_at", "order": "desc"}, "limit": 1})
    assert newest.objects[0].name == "top.txt"
    assert files.info("top.txt")["metadata"] == {}
    listed = [b for b in admin.list_buckets() if b.id == name]
    assert listed[0].type == "STANDARD" and listed[0].allowed_mime_types == ["text/*"]
    with pytest.raises(StorageApiError) as refused:
        files.upload("img.png", b"png", {"content-type": "image/png"})
    assert (refused.value.code, refused.value.status) == ("invalid_mime_type", "415")
    assert admin.empty_bucket(name) == {"message": "Empty bucket has been queued. Completion may take up to an hour."}


def test_no_token_is_refused(live_server: harness.LiveServer) -> None:
    anonymous = SyncStorageClient(f"{live_server.url}/storage/v1", {})
    with pytest.raises(StorageApiError) as refused:
        anonymous.list_buckets()
    assert (refused.value.code, refused.value.status, refused.value.message) == ("Unauthorized", "403", "Invalid Compact JWS")
