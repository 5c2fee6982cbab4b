"""Bytes left by a crash: a server killed (SIGKILL) after an upload's bytes are stored and
before its row is committed leaves a stored version no row points to; on S3 a large
upload killed midway leaves an unfinished multipart upload. The reaper removes them once
older than STORAGE_ORPHAN_GRACE_MS, on the file backend and on S3 (moto), and keeps
what rows, resumable uploads in progress and younger bytes still need."""

from __future__ import annotations

import os
import shutil
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import httpx
import psycopg
import pytest

from server.storage.backends import Backend, FileBackend
from server.storage.backends.s3 import S3Backend, make_client
from tests import harness
from tests.storage import tus_client as tus
from tests.storage.support import create_bucket, run_sql, service_headers

S3_BUCKET = "supalite-orphans"
HOLD_LOCK = 0x4F52_5048  # the advisory lock the test holds to stop an upload before its row
GRACE_MS = 3000
MiB = 1024 * 1024

# Owner SQL of the test: an upload under crash/ waits, after its bytes are stored, for the
# lock the test holds, exactly where a process can die between its bytes and its row.
HOLD_TRIGGER = f"""
create or replace function public.hold_crash_uploads() returns trigger language plpgsql as $$
begin
  if new.name like 'crash/%' and new.version <> 'probe' then
    perform pg_advisory_xact_lock({HOLD_LOCK});
  end if;
  return new;
end
$$;
create trigger hold_crash_uploads before insert or update on storage.objects
  for each row execute function public.hold_crash_uploads();
"""


@dataclass
class Store:
    kind: str
    database_url: str
    data_dir: Path
    env: dict[str, str]
    keys: Callable[[str], list[str]]
    backend: Callable[[], Backend]  # the same store, opened by the test as a server opens it
    servers: list[harness.LiveServer] = field(default_factory=list)

    def start(self, **env: str) -> harness.LiveServer:
        server = harness.start_server(self.database_url, args=["--no-migrate"], data_dir=self.data_dir,
                                      extra_env={**self.env, **env})
        self.servers.append(server)
        return server

    def sql(self, statement: str, params: list[object] | None = None) -> list[tuple]:
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            cur = conn.execute(statement.encode(), params)
            return cur.fetchall() if cur.description else []


@pytest.fixture(params=["file", "s3"])
def store(request: pytest.FixtureRequest, template_ready: str) -> Iterator[Store]:
    db_name = harness.unique_name(f"t_orphans_{request.param}")
    database_url = harness.create_database_from_template(template_ready, db_name)
    data_dir = harness.scratch_dir("supalite-orphans-")
    root = data_dir / "storage"
    if request.param == "s3":
        endpoint = request.getfixturevalue("s3_endpoint")
        env = {"STORAGE_BACKEND": "s3", "STORAGE_S3_ENDPOINT": endpoint, "STORAGE_S3_BUCKET": S3_BUCKET,
               "STORAGE_S3_ACCESS_KEY": "testing", "STORAGE_S3_SECRET_KEY": "testing", "TUS_PART_SIZE": "5"}
        client = make_client(endpoint, "testing", "testing", "us-east-1")

        def keys(prefix: str) -> list[str]:
            return sorted(o.object_name for o in client.list_objects(S3_BUCKET, prefix=prefix, recursive=True))

        def backend() -> Backend:
            return S3Backend(client, S3_BUCKET, 5 * MiB)
    else:
        env = {}

        def keys(prefix: str) -> list[str]:
            found = [p for p in (root / prefix).rglob("*") if p.is_file()] if (root / prefix).exists() else []
            return sorted(str(p.relative_to(root)) for p in found)

        def backend() -> Backend:
            return FileBackend(root)
    made = Store(request.param, database_url, data_dir, env, keys, backend)
    try:
        yield made
    finally:
        for server in made.servers:
            server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
        harness.drop_database(template_ready, db_name)


def wait_for(condition: Callable[[], bool], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


def store_without_row(store: Store, key: str, data: bytes) -> None:
    """What a process killed right after storing bytes leaves: the bytes, no row."""
    async def put() -> None:
        backend = store.backend()
        await backend.start()
        await backend.put(key, _once(data), "application/octet-stream", len(data))
        await backend.close()

    anyio.run(put)


def test_a_server_killed_between_bytes_and_row_leaves_bytes_the_reaper_removes(store: Store) -> None:
    doomed = store.start()
    auth = service_headers(doomed)
    bucket = f"orph-{uuid.uuid4().hex[:6]}"
    with httpx.Client(base_url=doomed.url, timeout=30) as client:
        create_bucket(client, doomed, bucket)
        kept = client.post(f"/storage/v1/object/{bucket}/kept.txt", content=b"kept bytes",
                           headers={**auth, "content-type": "text/plain"})
        assert kept.status_code == 200, kept.text
    kept_keys = store.keys(f"{bucket}/kept.txt/")
    assert len(kept_keys) == 1

    run_sql(doomed, HOLD_TRIGGER)
    holder = psycopg.connect(store.database_url, autocommit=True)
    holder.execute("select pg_advisory_lock(%s)", [HOLD_LOCK])
    data = b"".join(tus.pattern(0, 3 * MiB))

    def upload() -> None:
        try:
            httpx.post(f"{doomed.url}/storage/v1/object/{bucket}/crash/a.bin", content=data,
                       headers={**auth, "content-type": "application/octet-stream"}, timeout=60)
        except httpx.HTTPError:
            pass  # the server dies under it

    uploader = threading.Thread(target=upload)
    uploader.start()
    try:
        # The bytes are stored; the row waits for the lock.
        assert wait_for(lambda: bool(store.keys(f"{bucket}/crash/a.bin/"))), "the upload never stored its bytes"
        doomed.process.kill()  # SIGKILL: no cleanup of any kind
        doomed.process.wait(10)
    finally:
        holder.execute("select pg_advisory_unlock(%s)", [HOLD_LOCK])
        holder.close()
        uploader.join(30)
    store.sql("drop trigger hold_crash_uploads on storage.objects; drop function public.hold_crash_uploads()")
    orphans = store.keys(f"{bucket}/crash/a.bin/")
    assert len(orphans) == 1
    assert store.sql("select count(*) from storage.objects where bucket_id = %s and name = 'crash/a.bin'",
                     [bucket]) == [(0,)]  # never served, never queued for the reaper

    # An unfinished multipart upload of a large upload killed midway (S3), as old.
    unfinished: list[tuple[str, str]] = []
    if store.kind == "s3":
        client = make_client(store.env["STORAGE_S3_ENDPOINT"], "testing", "testing", "us-east-1")
        key = f"{bucket}/crash/big.bin/{uuid.uuid4()}"
        unfinished.append((key, client._create_multipart_upload(S3_BUCKET, key, {})))

    reaper = store.start(STORAGE_ORPHAN_GRACE_MS=str(GRACE_MS))
    auth = service_headers(reaper)
    with httpx.Client(base_url=reaper.url, timeout=30) as client:
        # A resumable upload in progress: its bytes (S3: a multipart upload) outlive the grace.
        location = tus.create(client, auth, 2 * MiB, {"bucketName": bucket, "objectName": "resumable.bin"},
                              endpoint=reaper.url + tus.ENDPOINT).headers["location"]
        first = b"".join(tus.pattern(0, MiB))
        assert tus.patch(client, auth, location, 0, first).status_code == 204

        assert wait_for(lambda: not store.keys(f"{bucket}/crash/a.bin/")), "the orphan was never removed"
        if unfinished:
            assert wait_for(lambda: not _unfinished_uploads(store, f"{bucket}/crash/")), "never aborted"

        # A younger orphan stays until it is older than the grace, then goes too.
        young = f"{bucket}/crash/young.bin/{uuid.uuid4()}"
        store_without_row(store, young, b"young")
        time.sleep(1)
        assert store.keys(f"{bucket}/crash/young.bin/") == [young]
        assert wait_for(lambda: not store.keys(f"{bucket}/crash/young.bin/")), "the young orphan was never removed"

        # What rows point to is untouched.
        assert store.keys(f"{bucket}/kept.txt/") == kept_keys
        got = client.get(f"/storage/v1/object/{bucket}/kept.txt", headers=auth)
        assert (got.status_code, got.content) == (200, b"kept bytes")
        rest = b"".join(tus.pattern(MiB, 2 * MiB))
        assert tus.patch(client, auth, location, MiB, rest).status_code == 204
        done = client.get(f"/storage/v1/object/{bucket}/resumable.bin", headers=auth)
        assert done.content == first + rest
    assert "that no row points to" in reaper.log()


def _unfinished_uploads(store: Store, prefix: str) -> list[str]:
    client = make_client(store.env["STORAGE_S3_ENDPOINT"], "testing", "testing", "us-east-1")
    result = client._list_multipart_uploads(S3_BUCKET, prefix=prefix)
    return [u.object_name for u in result.uploads]


def test_stored_before_lists_versions_by_when_they_were_placed(store: Store) -> None:
    """The orphan sweep's candidates: versions (`<bucket>/<name>/<uuid>`) only, never scratch
    bytes or other files, dated by when they were placed (a copy from its copying)."""
    bucket = f"listed-{uuid.uuid4().hex[:6]}"

    async def check() -> None:
        backend = store.backend()
        await backend.start()
        version = f"{bucket}/folder/doc.txt/{uuid.uuid4()}"
        await backend.put(version, _once(b"v"), "text/plain", 10)
        await backend.put(f"{bucket}/folder/notes.txt", _once(b"not a version"), "text/plain", 100)
        scratch, pending = uuid.uuid4().hex, f"{bucket}/up.bin/{uuid.uuid4()}"
        state = await backend.resumable_open(scratch, pending, "text/plain", "no-cache")
        if store.kind == "file":
            old = time.time() - 86400
            os.utime(store.data_dir / "storage" / version, (old, old))  # an old mtime, kept by its copy...
        copied = f"{bucket}/copy.txt/{uuid.uuid4()}"
        await backend.copy(version, copied)
        now = datetime.now(UTC)

        async def listed(moment: datetime) -> list[str]:
            batches = [batch async for batch in backend.stored_before(moment)]
            return sorted(key for batch in batches for key in batch if key.startswith(f"{bucket}/"))

        assert await listed(now + timedelta(seconds=5)) == sorted([version, copied])
        assert await listed(now - timedelta(seconds=60)) == []  # ...yet placed just now: not old
        await backend.resumable_abort(scratch, pending, state)
        await backend.close()

    anyio.run(check)
